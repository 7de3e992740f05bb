"""The SDKs' end-to-end tests run against the session's local stack (the `stack` fixture, tests/conftest.py)."""
