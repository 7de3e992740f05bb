"""The documentation states what the code does."""

from __future__ import annotations

import re
from pathlib import Path

from chalicelib.auth import signing
from chalicelib.platform.settings import ENV_PREFIX, Settings

ROOT = Path(__file__).resolve().parents[2]


def test_every_setting_is_in_the_readme():
    readme = (ROOT / "README.md").read_text()
    for name in Settings.model_fields:
        assert f"`{ENV_PREFIX}{name.upper()}`" in readme, name


def test_readme_shows_the_two_commands_first():
    readme = (ROOT / "README.md").read_text()
    first_block = readme.split("```sh", 1)[1].split("```", 1)[0]
    assert "make dev" in first_block and "make test" in first_block


def test_worked_signing_example_is_right():
    doc = (ROOT / "docs" / "authentication.md").read_text()
    examples = re.findall(r"```\n(2026-11-22T10:00:00Z\.[^\n]*)\n```\n\n`X-SIGNATURE: ([0-9a-f]{64})`", doc)
    assert len(examples) == 2
    for message, signature in examples:
        timestamp, method, rest = message.split(".", 2)
        path, body = rest.split(".", 1)
        assert signing.sign("das_example-secret-do-not-use", timestamp, method, path, body.encode()) == signature


def test_every_error_code_is_documented():
    errors_doc = (ROOT / "docs" / "errors.md").read_text()
    codes: set[str] = set()
    for path in (ROOT / "chalicelib").rglob("*.py"):
        codes |= set(re.findall(r'^([A-Z][A-Z_]+) = "\1"$', path.read_text(), flags=re.M))
    codes |= set(re.findall(r'GatewayError\(\d+, "([A-Z_]+)"', (ROOT / "infra" / "gateway_responses.py").read_text()))
    assert codes, "no codes found"
    missing = sorted(code for code in codes if f"`{code}`" not in errors_doc)
    assert not missing, missing
