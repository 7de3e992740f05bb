"""The request and response models generated from /openapi.json (attrs classes with `to_dict` / `from_dict`)."""

from dompet._generated.models import *  # noqa: F403
from dompet._generated.models import __all__ as __all__
