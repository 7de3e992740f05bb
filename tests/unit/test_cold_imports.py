"""What `import app` (a Lambda's cold start) leaves for first use: the AWS SDK and the Bitcoin library load when a
request first needs them, never at import (docs/performance.md, cold start)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DEFERRED = ("boto3", "botocore.client", "embit")


def test_import_app_leaves_the_aws_sdk_and_the_bitcoin_library_for_first_use() -> None:
    code = f"import json, sys, app; print(json.dumps([m for m in {list(DEFERRED)!r} if m in sys.modules]))"
    env = {
        **os.environ,
        "AWS_ACCESS_KEY_ID": "test",
        "AWS_SECRET_ACCESS_KEY": "test",
        "AWS_DEFAULT_REGION": "us-east-1",
        "DOMPET_STAGE": "test",
    }
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, check=True)
    assert json.loads(done.stdout.strip().splitlines()[-1]) == []
