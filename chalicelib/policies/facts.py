"""What the engine evaluates: the facts of a payload, read from the payload itself (never from a caller's claim).

A transaction's value transfers are decoded from its call data for the standard token calls only (ERC-20,
ERC-721, ERC-1155). Decoding is strict (evm/abi.py through eth_abi): a call that does not decode exactly is
`decoded=False`, and every rule that needs the recipient or the amount refuses it (the engine fails closed).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from chalicelib.evm import abi
from chalicelib.evm.digests import Signable
from chalicelib.evm.transactions import UnsignedTx
from chalicelib.evm.typed_data import domain_fields

__all__ = [
    "Facts",
    "FactsError",
    "PersonalMessageFacts",
    "TransactionFacts",
    "Transfer",
    "TypedDataFacts",
    "facts_of",
    "transaction_facts",
]

NATIVE = "native"
_HEX_BYTES = re.compile(r"0x(?:[0-9a-fA-F]{2})*")


class FactsError(ValueError):
    """A payload the engine cannot read (the caller refuses to sign it)."""


@dataclass(frozen=True)
class Transfer:
    asset: str  # "native" or the token contract address, lowercase
    amount: int  # base units
    recipient: str  # lowercase address


@dataclass(frozen=True)
class TransactionFacts:
    chain_id: int
    to: str | None  # lowercase; None = contract creation
    value: int
    selector: str | None  # "0x" + 8 lowercase hex when len(data) >= 4, else None
    has_data: bool  # len(data) > 0
    transfers: tuple[Transfer, ...]
    decoded: bool  # False for call data that is not one of the standard calls (or is malformed), and for a creation


@dataclass(frozen=True)
class PersonalMessageFacts:
    pass


@dataclass(frozen=True)
class TypedDataFacts:
    chain_id: int | None
    verifying_contract: str | None  # lowercase
    primary_type: str


Facts = TransactionFacts | PersonalMessageFacts | TypedDataFacts


def facts_of(payload: Signable) -> Facts:
    """The facts of what a party is asked to sign; FactsError for a body it cannot read."""
    if payload.kind == "transaction":
        try:
            tx = UnsignedTx.from_wire(payload.transaction or {})
        except ValueError as exc:
            raise FactsError(str(exc)) from None
        return transaction_facts(tx)
    if payload.kind == "personal_message":
        if not _HEX_BYTES.fullmatch(payload.message or ""):
            raise FactsError("message must be 0x-prefixed hex bytes")
        return PersonalMessageFacts()
    try:
        fields = domain_fields(payload.typedData or {})
    except ValueError as exc:  # TypedDataError: the field and the problem, never the document's values
        raise FactsError(str(exc)) from None
    contract = fields["verifyingContract"]
    return TypedDataFacts(
        chain_id=fields["chainId"],
        verifying_contract=None if contract is None else str(contract).lower(),
        primary_type=str(fields["primaryType"]),
    )


def transaction_facts(tx: UnsignedTx) -> TransactionFacts:
    data = tx.data
    selector = "0x" + data[:4].hex() if len(data) >= 4 else None
    if tx.to is None:
        # A creation's coin goes to an address no rule can name: counted against native limits, on no allowlist.
        return TransactionFacts(
            chain_id=tx.chain_id,
            to=None,
            value=tx.value,
            selector=selector,
            has_data=bool(data),
            transfers=(Transfer(NATIVE, tx.value, ""),) if tx.value > 0 else (),
            decoded=False,
        )
    to = tx.to.lower()
    transfers: list[Transfer] = []
    # A plain coin send always has its transfer, even of 0: `destinations` then sees its recipient.
    if tx.value > 0 or not data:
        transfers.append(Transfer(NATIVE, tx.value, to))
    decoded = True
    if data:
        call = _STANDARD_CALLS.get(selector or "")
        token = None if call is None else _decode(call, to, data[4:])
        decoded = token is not None
        if token:
            transfers.append(token[0])
    return TransactionFacts(
        chain_id=tx.chain_id,
        to=to,
        value=tx.value,
        selector=selector,
        has_data=bool(data),
        transfers=tuple(transfers),
        decoded=decoded,
    )


@dataclass(frozen=True)
class _Call:
    types: list[str]
    # The transfer of the decoded arguments (token address first), or None for a call that moves nothing.
    transfer: Callable[[str, tuple[Any, ...]], Transfer | None]


def _decode(call: _Call, token: str, arguments: bytes) -> tuple[Transfer, ...] | None:
    """The call's transfer (none for approve); None when the arguments are not a strict ABI encoding."""
    try:
        values = abi.decode(call.types, arguments)
        transfer = call.transfer(token, values)
    except ValueError:
        return None
    return () if transfer is None else (transfer,)


def _batch(token: str, values: tuple[Any, ...]) -> Transfer:
    ids, amounts = values[2], values[3]
    if len(ids) != len(amounts):
        # ERC-1155 reverts on this; refusing to read it keeps a strange call out of every rule's blind spot.
        raise ValueError("ids and amounts differ in length")
    return Transfer(token, sum(amounts), values[1].lower())


_STANDARD_CALLS: dict[str, _Call] = {
    # ERC-20 transfer(address,uint256)
    "0xa9059cbb": _Call(["address", "uint256"], lambda token, v: Transfer(token, v[1], v[0].lower())),
    # ERC-20 / ERC-721 transferFrom(address,address,uint256)
    "0x23b872dd": _Call(["address", "address", "uint256"], lambda token, v: Transfer(token, v[2], v[1].lower())),
    # ERC-721 safeTransferFrom(address,address,uint256)
    "0x42842e0e": _Call(["address", "address", "uint256"], lambda token, v: Transfer(token, 1, v[1].lower())),
    # ERC-721 safeTransferFrom(address,address,uint256,bytes)
    "0xb88d4fde": _Call(["address", "address", "uint256", "bytes"], lambda token, v: Transfer(token, 1, v[1].lower())),
    # ERC-1155 safeTransferFrom(address,address,uint256,uint256,bytes)
    "0xf242432a": _Call(
        ["address", "address", "uint256", "uint256", "bytes"], lambda token, v: Transfer(token, v[3], v[1].lower())
    ),
    # ERC-1155 safeBatchTransferFrom(address,address,uint256[],uint256[],bytes)
    "0x2eb2c2d6": _Call(["address", "address", "uint256[]", "uint256[]", "bytes"], _batch),
    # ERC-20 approve(address,uint256): moves nothing now
    "0x095ea7b3": _Call(["address", "uint256"], lambda token, v: None),
}
