"""What the Lambda package needs is in requirements.txt (Chalice builds the package from it alone).

Lazily imported modules are only imported when a route runs, so a missing one would pass
every local test and fail on AWS; this test reads the imports instead.
"""

from __future__ import annotations

import ast
import importlib.metadata as metadata
import re
import sys
from pathlib import Path

from packaging.requirements import Requirement

ROOT = Path(__file__).resolve().parents[2]
PROVIDED = {"chalice", "chalicelib"}  # chalice ships its runtime into the package itself
# Built from this repository into vendor/ by `make vendor` (not on PyPI).
VENDORED = {"dompet_mpc"}


def _imported_top_level_modules() -> set[str]:
    names: set[str] = set()
    for path in [ROOT / "app.py", *(ROOT / "chalicelib").rglob("*.py")]:
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                names |= {alias.name.split(".")[0] for alias in node.names}
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                names.add(node.module.split(".")[0])
    return {n for n in names if n not in sys.stdlib_module_names and n not in PROVIDED}


def _canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _closure(requirements: list[Requirement]) -> set[str]:
    seen: set[str] = set()
    pending = list(requirements)
    while pending:
        requirement = pending.pop()
        name = _canonical(requirement.name)
        if name in seen:
            continue
        seen.add(name)
        for text in metadata.requires(requirement.name) or []:
            dependency = Requirement(text)
            extras = requirement.extras or {""}
            if dependency.marker is None or any(dependency.marker.evaluate({"extra": e}) for e in extras):
                pending.append(dependency)
    return seen


def test_every_runtime_import_is_packaged():
    lines = [line.split("#")[0].strip() for line in (ROOT / "requirements.txt").read_text().splitlines()]
    packaged = _closure([Requirement(line) for line in lines if line])
    providers = metadata.packages_distributions()
    missing = {
        module: providers.get(module, ["?"])
        for module in _imported_top_level_modules() - VENDORED
        if not any(_canonical(dist) in packaged for dist in providers.get(module, []))
    }
    assert not missing, f"imported at runtime but not in requirements.txt: {missing}"
