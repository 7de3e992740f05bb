"""The wallet's history: the transactions sent from it (records and tracker: chalicelib/evm/tracking.py), and the
messages it signed.

Message signatures are a list of their own in table `wallets` (`SIGNATURES#<walletId>`,
pagination.AppendOnlyList): each entry is the whole record (kind, digest, the typed data's domain, time), written
with the list's counter and the signing run's audit record in one unit of work (`signature_record` is the plan the
MPC service commits with its audit record, mpc/service.py). Neither the message nor the signature is stored.
"""

from __future__ import annotations

from typing import Any, Literal

from chalicelib.evm import tracking
from chalicelib.evm.tracking import EvmTransaction
from chalicelib.platform import clock
from chalicelib.platform.errors import not_found
from chalicelib.platform.pagination import AppendOnlyList, PageQuery
from chalicelib.platform.unit_of_work import Plan
from chalicelib.wallets.models import SignatureView

TRANSACTION_NOT_FOUND = "TRANSACTION_NOT_FOUND"
SIGNATURES_TABLE = "wallets"


def owned(wallet_id: str, tx_hash: str) -> EvmTransaction:
    """The record of `tx_hash` (any hash signed at its nonce) when the wallet sent it; else 404, whoever's it is."""
    tx = tracking.read(tx_hash)
    if tx is None or tx.walletId != wallet_id:
        raise not_found(TRANSACTION_NOT_FOUND, "No transaction with this hash was sent from this wallet")
    return tx


def view(wallet_id: str, tx_hash: str) -> dict[str, Any]:
    return tracking.public(owned(wallet_id, tx_hash))


def page(wallet_id: str, query: PageQuery) -> tuple[list[dict[str, Any]], int]:
    return tracking.page(wallet_id, query)


def signatures_of(wallet_id: str) -> AppendOnlyList:
    return AppendOnlyList(SIGNATURES_TABLE, f"SIGNATURES#{wallet_id}")


def signature_record(
    wallet_id: str,
    kind: Literal["personal_message", "typed_data", "authorization"],
    digest: bytes,
    *,
    primary_type: str | None = None,
    chain_id: int | None = None,
    verifying_contract: str | None = None,
    contract_address: str | None = None,
) -> Plan:
    """The plan that appends a signature the wallet makes to its list (a lost race for the next entry is planned
    again, platform/unit_of_work.py); the signing commits it with the signature's audit record."""
    record = SignatureView(
        kind=kind,
        hash="0x" + digest.hex(),
        primaryType=primary_type,
        chainId=None if chain_id is None else str(chain_id),
        verifyingContract=verifying_contract,
        contractAddress=contract_address,
        createdAt=clock.iso_now(),
    )
    return Plan(lists=[(signatures_of(wallet_id), record.model_dump())])


def signatures_page(wallet_id: str, query: PageQuery) -> tuple[list[dict[str, Any]], int]:
    """Page `query` of the wallet's signatures as the API shows them, newest first, and the exact total."""
    entries, total = signatures_of(wallet_id).page(query)
    return [{name: entry.get(name) for name in SignatureView.model_fields} for entry in entries], total
