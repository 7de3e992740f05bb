"""The base of the service's wire and storage models."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from pydantic import BaseModel, ConfigDict


class WireModel(BaseModel):
    """A model whose validator and serializer are built on first use rather than at import: a cold start imports
    every route's models, and a request uses a few of them (pydantic's `defer_build`). A model's own
    `model_config` is merged with this one."""

    model_config = ConfigDict(defer_build=True)

    # The model's example is made of its fields' examples (platform/examples.py); these values change a few of
    # them, by JSON key, nested as in the example (a page's `{"data": [{"status": ...}]}`). A model class among
    # them stands for its example.
    example_overrides: ClassVar[Mapping[str, Any]] = {}
