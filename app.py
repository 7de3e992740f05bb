"""Dompet: creates the Chalice app and declares its routes (chalicelib/route_table.py) and functions
(resources.FUNCTIONS), nothing else.

This import is every Lambda function's cold start, so it loads no route or worker module: each is imported, after
the hooks are wired (chalicelib/wiring.py), by the first event that needs it (chalicelib/platform/lazy_app.py). A
function's handler string is `app.<name>`, the module attributes declared at the end.
"""

import importlib

from chalicelib.platform import resources
from chalicelib.platform.lazy_app import LazyChalice
from chalicelib.platform.networks import registry
from chalicelib.platform.router import platform_bp
from chalicelib.platform.settings import load_settings
from chalicelib.route_table import ROUTES
from chalicelib.system.assets import BINARY_MEDIA_TYPES


def _wire() -> None:
    # The wiring imports every domain that answers a hook; it runs before the first handler, not at import.
    importlib.import_module("chalicelib.wiring").wire()


settings = load_settings()  # a bad setting stops start-up here, naming the variable
registry()

app = LazyChalice("dompet", prepare=_wire)
app.register_blueprint(platform_bp)
# Chalice base64-encodes a body (and API Gateway decodes it) only for a media type in `binary_types`, which `chalice
# package` also writes into the API definition: the vendored assets of /docs and the console.
app.api.binary_types.extend(t for t in BINARY_MEDIA_TYPES if t not in app.api.binary_types)
app.declare_routes(ROUTES)
globals().update(app.declare_functions(resources.FUNCTIONS, settings.stage))
