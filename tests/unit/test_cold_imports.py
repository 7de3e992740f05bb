"""What `import app` (a Lambda's cold start) leaves for first use: the AWS SDK and the Bitcoin library load when a
request first needs them, never at import; models are built on first use; pydantic never scans the installed
distributions for plugins (docs/performance.md, cold start)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DEFERRED = ("boto3", "botocore.client", "embit")


def _after_import_app(code: str) -> object:
    env = {
        **os.environ,
        "AWS_ACCESS_KEY_ID": "test",
        "AWS_SECRET_ACCESS_KEY": "test",
        "AWS_DEFAULT_REGION": "us-east-1",
        "DOMPET_STAGE": "test",
    }
    env.pop("PYDANTIC_DISABLE_PLUGINS", None)
    done = subprocess.run(
        [sys.executable, "-c", f"import json, sys, app; {code}"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_import_app_leaves_the_aws_sdk_and_the_bitcoin_library_for_first_use() -> None:
    assert _after_import_app(f"print(json.dumps([m for m in {list(DEFERRED)!r} if m in sys.modules]))") == []


def test_import_app_builds_only_the_settings_and_the_networks_and_looks_for_no_plugin() -> None:
    """Every other model is deferred (platform/wire.py): built by the first request that uses it."""
    built = _after_import_app(
        "from pydantic import BaseModel; from pydantic.plugin import _loader; "
        "seen = set(); todo = list(BaseModel.__subclasses__())\n"
        "while todo:\n"
        "    m = todo.pop(); seen.add(m); todo += [s for s in m.__subclasses__() if s not in seen]\n"
        "print(json.dumps({'built': sorted(f'{m.__module__}.{m.__qualname__}' for m in seen "
        "if m.__module__.startswith('chalicelib') and m.__pydantic_complete__), "
        "'pluginsLoaded': _loader._plugins is not None}))"
    )
    assert built == {
        "built": [
            "chalicelib.platform.networks.BitcoinNetwork",
            "chalicelib.platform.networks.CustodyToken",
            "chalicelib.platform.networks.FeeRateBounds",
            "chalicelib.platform.networks.Network",
            "chalicelib.platform.networks.Registry",
            "chalicelib.platform.settings.Settings",
        ],
        "pluginsLoaded": False,
    }
