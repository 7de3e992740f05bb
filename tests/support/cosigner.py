"""The cosigner seen from unit tests: what its policy check decides for a payload, which reads of its policy
table a block makes, and a guard that signing runs from presignatures only (no full signing session)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import dompet_mpc
import pytest

from chalicelib.evm import digests
from chalicelib.evm.digests import Signable
from chalicelib.mpc import cosigner_checks
from chalicelib.platform import aws
from chalicelib.platform.invocation import running_as


def cosigner_decides(wallet_id: str, payload: Signable) -> str | None:
    """What the cosigner's policy check decides for `payload` (counting it when allowed, as before a signature):
    None when allowed, else the refusing rule."""
    with running_as("cosigner"):
        try:
            cosigner_checks.authorize(wallet_id, payload, digests.digest_of(payload), None)
        except cosigner_checks.PolicyRefusedError as refusal:
            assert refusal.rule is not None, refusal.reason
            return refusal.rule
    return None


@contextmanager
def cosigner_policy_reads() -> Iterator[list[str]]:
    """The names of the reads of the cosigner's policy table made inside the block."""
    reads: list[str] = []

    def seen(params: dict[str, Any], model: Any, **_: Any) -> None:
        tables = [params.get("TableName", ""), *params.get("RequestItems", {})]
        if any(str(t).endswith("cosigner-policy") for t in tables):
            reads.append(model.name)

    events = aws.dynamodb_client().meta.events
    events.register("before-parameter-build.dynamodb", seen)
    try:
        yield reads
    finally:
        events.unregister("before-parameter-build.dynamodb", seen)


def no_full_signing(monkeypatch: pytest.MonkeyPatch) -> None:
    """From here on a full signing session fails the test: signatures must come from presignatures."""

    def refuse(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("a full signing session started")

    monkeypatch.setattr(dompet_mpc, "signing_session", refuse)
