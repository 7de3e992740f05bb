"""What tests/support/lazy_module.py's import and the test app's wiring counted."""

imports = 0
prepared = 0
