"""Dompet's service code: `platform`, `evm`, `bitcoin` and `mpc` below, the domains above them
(devtools/import_graph.py)."""

import os

# The service uses no pydantic plugins. Looking for them reads the entry points of every installed distribution the
# first time any model is built (about 100 ms of each cold start); a deployment that wants plugins sets the variable.
os.environ.setdefault("PYDANTIC_DISABLE_PLUGINS", "__all__")
