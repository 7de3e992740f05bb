"""Helpers and fixtures shared by test modules. Test modules import from here (or get fixtures from a conftest),
never from another test module."""
