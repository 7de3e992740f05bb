"""Wallet principals, audit records, stored data and the presignature refill worker, for MPC tests on moto."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
from boto3.dynamodb.conditions import Key
from eth_keys import keys as eth_keys

from chalicelib.auth import users
from chalicelib.auth.models import WalletPrincipal
from chalicelib.auth.tokens import Claims, TokenKind
from chalicelib.evm.digests import digest_of, personal_message
from chalicelib.mpc import cosigner_checks
from chalicelib.platform import aws, resources
from chalicelib.tenancy import service as tenancy


def principal_for(tenant: Any, sub_id: str) -> WalletPrincipal:
    user = users.get_or_create(tenant.clientId, sub_id)
    claims = Claims(user.userId, tenant.clientId, sub_id, TokenKind.ACCESS, 0, 2**31, "t")
    return WalletPrincipal(client=tenancy.client_for_secret(tenant.clientSecret), claims=claims, user=user)


def refreshed(principal: WalletPrincipal) -> WalletPrincipal:
    user = users.get(principal.user.clientId, principal.user.subId)
    assert user is not None
    return WalletPrincipal(client=principal.client, claims=principal.claims, user=user)


def recovered_address(signature: bytes, digest: bytes) -> str:
    return str(eth_keys.Signature(signature).recover_public_key_from_msg_hash(digest).to_checksum_address())


def recovered_public_key(signature: bytes, digest: bytes) -> bytes:
    """The compressed SEC1 public key a signature over `digest` recovers to."""
    return bytes(eth_keys.Signature(signature).recover_public_key_from_msg_hash(digest).to_compressed_bytes())


def isolated_policies(monkeypatch: pytest.MonkeyPatch) -> Callable[[cosigner_checks.SigningPolicy], None]:
    """The signing-policy registry for one test (the registry is the process's): a copy to register in, and no
    governance remembered from other tests. Returns `register`."""
    monkeypatch.setattr(cosigner_checks, "POLICIES", cosigner_checks.POLICIES.copy())
    cosigner_checks._GOVERNED.clear()
    return cosigner_checks.register


def audit_records(wallet_id: str) -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = aws.table("signing-audit").query(
        KeyConditionExpression=Key("pk").eq(f"WALLET#{wallet_id}")
    )["Items"]
    return items


def dump_tables() -> dict[str, list[dict[str, Any]]]:
    dump = {}
    for table in resources.TABLES:
        dump[table.name] = aws.table(table.name).scan(ConsistentRead=True)["Items"]
    return dump


class _LambdaContext:
    def get_remaining_time_in_millis(self) -> int:
        return 120_000


def run_refill_function(body: dict[str, Any]) -> Any:
    record = {
        "messageId": "m0",
        "receiptHandle": "r0",
        "body": json.dumps(body),
        "attributes": {},
        "messageAttributes": {},
        "md5OfBody": "",
        "eventSource": "aws:sqs",
        "eventSourceARN": f"arn:aws:sqs:us-east-1:123456789012:{aws.queue('presign-refill')}",
        "awsRegion": "us-east-1",
    }
    from app import app

    return app.handler_map["refill_presignatures"]({"Records": [record]}, _LambdaContext())  # as Lambda calls it


def refill_messages(follow_ups: bool = False) -> list[dict[str, Any]]:
    """The refill requests queued (and taken off the queue): asks only, or with `follow_ups` only the refills'
    delayed second looks (presignatures.request_follow_up), which become visible some seconds later."""
    sqs = aws.client("sqs")
    url = sqs.get_queue_url(QueueName=aws.queue("presign-refill"))["QueueUrl"]
    found = []
    while True:
        batch = sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=10, WaitTimeSeconds=0).get("Messages", [])
        if not batch:
            return found
        found += [body for body in (json.loads(m["Body"]) for m in batch) if bool(body.get("followUp")) == follow_ups]


def partial_request(wallet_id: str, presignature_id: str, message: bytes) -> dict[str, Any]:
    """The cosigner's request for its partial signature of personal message `message` from a presignature."""
    payload = personal_message(message)
    return {
        "action": "partial",
        "runId": presignature_id,
        "walletId": wallet_id,
        "peers": [0],
        "digest": digest_of(payload).hex(),
        "payload": payload.model_dump(),
        "signers": [0, 1],
    }
