"""The operator's admin command (`python -m chalicelib.operator`) run against the local stack."""

from __future__ import annotations

import os
import subprocess
import sys
from typing import Any

from tests.support.scripts import ROOT


def operator_env(stack: dict[str, Any]) -> dict[str, str]:
    """The environment of an operator command run against the stack (its moto server, stage and networks)."""
    inherited = {k: v for k, v in os.environ.items() if not k.startswith(("AWS_", "DOMPET_"))}
    return {
        **inherited,
        "AWS_ENDPOINT_URL": stack["info"]["awsEndpointUrl"],
        "AWS_ACCESS_KEY_ID": "local",
        "AWS_SECRET_ACCESS_KEY": "local",
        "AWS_DEFAULT_REGION": "us-east-1",
        "DOMPET_STAGE": "local",
        "DOMPET_NETWORKS_FILE": str(stack["state"] / "networks.json"),
    }


def _run(stack: dict[str, Any], argv: list[str], timeout: int) -> subprocess.CompletedProcess[str]:
    """A Python command of this checkout, run as the operator runs it against the stack."""
    return subprocess.run(
        [sys.executable, *argv],
        cwd=ROOT,
        env=operator_env(stack),
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


def operator(stack: dict[str, Any], *args: str) -> str:
    """`python -m chalicelib.operator ARGS` against the stack; its stdout."""
    done = _run(stack, ["-m", "chalicelib.operator", *args], timeout=120)
    assert done.returncode == 0, f"admin {args[0]}: {done.stdout}\n{done.stderr}"
    return done.stdout


def fill_aux_pool(stack: dict[str, Any], sets: int) -> None:
    """Put `sets` aux-info sets into the stack's pool (cached insecure fixture primes), for wallets a test makes."""
    done = _run(stack, ["-c", f"from devtools import aux_cache; aux_cache.fill_pool({int(sets)})"], timeout=300)
    assert done.returncode == 0, done.stderr


def stack_table(stack: dict[str, Any], name: str) -> Any:
    """A table of the stack's moto server, by its logical name (resources.py), as boto3's resource."""
    import boto3

    dynamodb = boto3.resource(
        "dynamodb",
        endpoint_url=stack["info"]["awsEndpointUrl"],
        region_name="us-east-1",
        aws_access_key_id="local",
        aws_secret_access_key="local",
    )
    return dynamodb.Table(f"dompet-local-{name}")
