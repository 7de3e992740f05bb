"""The API version this SDK was generated from (`info.version` of /openapi.json)."""

__version__ = "0.1.0"
