"""The stocked path of a message signature: fewer AWS calls in a row, nothing weaker.

* the signature's audit record and its entry in the wallet's list are ONE transaction, so a signature handed out is
  listed and audited, and one that cannot be listed is never handed out (it is still audited);
* the cosigner reads its mark of the key (signing policies) and its presignature share in one consistent batch, and
  still refuses an online step for a key it governs, leaving its share ready.

AWS is moto in process, the MPC core real (the cosigner in process over the DynamoDB mailbox).
"""

from __future__ import annotations

from typing import Any

import pytest
from eth_account import Account
from eth_account.messages import encode_defunct

from chalicelib.custody.withdrawals.cosigner_check import CUSTODY_POLICY
from chalicelib.evm.digests import digest_of, personal_message
from chalicelib.mpc import cosigner_checks, parties, presignatures, shares
from chalicelib.platform import aws, settings
from chalicelib.platform.cache import reset_all
from chalicelib.platform.errors import ApiError
from chalicelib.platform.pagination import PageQuery, sequence_key
from chalicelib.wallets import history, provisioning, signatures
from chalicelib.wallets.models import SignMessageRequest
from tests.support.mpc import (
    audit_records,
    partial_request,
    principal_for,
    refill_messages,
    refreshed,
    run_refill_function,
)


@pytest.fixture
def stocked(tenant, aux_sets, monkeypatch) -> Any:
    """A wallet principal whose pool holds two presignatures."""
    monkeypatch.setenv("DOMPET_PRESIGN_POOL_FLOOR", "2")
    monkeypatch.setenv("DOMPET_PRESIGN_POOL_CEILING", "2")
    settings.load_settings.cache_clear()
    aux_sets(1)
    principal = principal_for(tenant, "alice")
    provisioning.create(principal, None)
    (refill,) = refill_messages()
    assert run_refill_function(refill) == {"batchItemFailures": []}
    yield refreshed(principal)
    settings.load_settings.cache_clear()


@pytest.fixture
def transactions(monkeypatch) -> list[list[str]]:
    """The tables of each DynamoDB transaction's items, in order; the transactions go through."""
    seen: list[list[str]] = []
    real = aws.transact

    def spy(items: Any) -> None:
        seen.append([item.table for item in items])
        real(items)

    monkeypatch.setattr(aws, "transact", spy)
    return seen


def test_a_stocked_signature_is_listed_and_audited_in_one_transaction(stocked, transactions):
    wallet_id = stocked.user.walletId
    answer = signatures.sign_message(stocked, SignMessageRequest(message="sign in"))

    assert Account.recover_message(encode_defunct(text="sign in"), signature=answer.signature) == answer.address
    (audit,) = audit_records(wallet_id)
    assert (audit["method"], audit["outcome"], "0x" + audit["digest"]) == ("presignature", "signed", answer.messageHash)
    listed, total = history.signatures_page(wallet_id, PageQuery(page=1, limit=10))
    assert total == 1 and listed[0]["hash"] == answer.messageHash
    # The audit record, the list's counter and its entry: one transaction (after each party's consumption).
    assert sorted(transactions[-1]) == ["signing-audit", "wallets", "wallets"]
    assert sum("signing-audit" in tables for tables in transactions) == 1


def test_a_signature_that_cannot_be_listed_is_not_handed_out_but_is_audited(stocked):
    wallet_id = stocked.user.walletId
    # An entry in the way of the list's next one: every append loses its condition, the list stays busy.
    entries = history.signatures_of(wallet_id)
    aws.table("wallets").put_item(Item={"pk": entries.list_key, "sk": sequence_key(1), "seq": 1})

    with pytest.raises(ApiError) as failed:
        signatures.sign_message(stocked, SignMessageRequest(message="never answered"))
    assert (failed.value.status, failed.value.code) == (503, "LIST_BUSY")
    assert entries.count() == 0
    (audit,) = audit_records(wallet_id)  # the signature was made: its audit record is written alone
    assert (audit["method"], audit["outcome"]) == ("presignature", "signed")
    assert audit["digest"] == digest_of(personal_message(b"never answered")).hex()
    # Its presignature is spent at both parties: it signs nothing else.
    used = presignatures.used_key(wallet_id, audit["presignatureId"])
    for party in (shares.SIGNER, shares.COSIGNER):
        assert (
            aws.table(presignatures.TABLE[party]).get_item(Key=used, ConsistentRead=True)["Item"]["digest"]
            == (audit["digest"])
        )


def test_the_cosigner_refuses_an_online_step_for_a_key_it_governs_from_its_own_read_and_burns_it(stocked, monkeypatch):
    wallet_id = stocked.user.walletId
    presignature_id = presignatures.ready_ids(shares.COSIGNER, wallet_id)[0]
    mark = {**cosigner_checks.mark_key(wallet_id), "policy": "custody", "address": stocked.user.walletAddress}
    aws.table(cosigner_checks.COSIGNER_POLICY_TABLE).put_item(Item=mark)
    reset_all()  # nothing known in process: the cosigner decides from what it reads
    request = partial_request(wallet_id, presignature_id, b"unchecked")

    # Its policy is not registered in this process: no presignatures (party A signs in full, and is refused there).
    unregistered = cosigner_checks.POLICIES.copy()
    unregistered.unregister(CUSTODY_POLICY.name)
    monkeypatch.setattr(cosigner_checks, "POLICIES", unregistered)
    assert parties.cosigner(request)["code"] == parties.PRESIGNATURES_OFF
    assert presignature_id in presignatures.ready_ids(shares.COSIGNER, wallet_id)
    cosigner_checks.register(CUSTODY_POLICY)
    assert parties.cosigner(request)["code"] == "POLICY_REFUSED"  # a custody key signs transactions only
    # A refusal without a rule retires the presignature named with it: its share is used, for that digest.
    assert presignature_id not in presignatures.ready_ids(shares.COSIGNER, wallet_id)
    used = aws.table(presignatures.TABLE[shares.COSIGNER]).get_item(
        Key=presignatures.used_key(wallet_id, presignature_id)
    )["Item"]
    assert used["digest"] == request["digest"]
    assert cosigner_checks.known_governance(wallet_id) is not None  # and the mark it read is kept, as governance() does


def test_a_stocked_wallet_is_admitted_however_busy_the_run_slots_and_its_hint_reads_no_share(stocked, monkeypatch):
    """The pool's hint: what a send asks before it takes a nonce. A stocked wallet signs in milliseconds, so a full
    run queue does not refuse it; once its pool is used up, the same queue does (503 SIGNER_BUSY)."""
    import contextlib

    from chalicelib.mpc import service
    from chalicelib.platform.errors import RetryLaterError

    wallet_id = stocked.user.walletId
    reset_all()  # no candidates kept: the hint reads the table
    queries: list[dict[str, Any]] = []
    table = aws.table(presignatures.TABLE[shares.SIGNER])
    real_query = table.query

    def spy(**query: Any) -> Any:
        queries.append(query)
        return real_query(**query)

    monkeypatch.setattr(table, "query", spy)
    assert presignatures.ready_hint(wallet_id) == 2
    (query,) = queries
    assert query["Limit"] == presignatures.CANDIDATES_READ and "ct" not in query["ProjectionExpression"]
    monkeypatch.setattr(service, "_full_run_s", 3.0)
    with contextlib.ExitStack() as held:
        for _ in range(service.RUN_SLOTS):
            held.enter_context(service._run_slot())
        service.admit(wallet_id, 4.0)  # a ready presignature
        with pytest.raises(RetryLaterError):
            service.admit(wallet_id, 4.0, pooled=False)  # with the user's secret: a full run
        for _ in range(2):
            assert presignatures.take(wallet_id, bytes(32)) is not None
        assert presignatures.ready_hint(wallet_id) == 0
        with pytest.raises(RetryLaterError) as busy:
            service.admit(wallet_id, 4.0)
        assert busy.value.code == "SIGNER_BUSY"
