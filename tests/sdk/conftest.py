"""The SDKs' end-to-end tests run against the session's local stack (tests/integration/conftest.py)."""

from tests.integration.conftest import stack  # noqa: F401
