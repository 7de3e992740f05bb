"""The integrator-facing scripts in scripts/ (and the benchmarks' helpers in bench/), loaded from their files as
they are run."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[2]


def load(name: str, folder: str = "scripts") -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, ROOT / folder / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


dompet_sign = load("dompet_sign")
verify_script = load("dompet_webhook_verify")
