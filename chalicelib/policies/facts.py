"""What the engine evaluates: the facts of a payload, read from the payload itself (never from a caller's claim).

A transaction's value transfers are decoded from its call data for the standard token calls only (ERC-20,
ERC-721, ERC-1155, and Uniswap Permit2's `approve`). Decoding is strict (evm/abi.py through eth_abi): a call that
does not decode exactly is `decoded=False`, and every rule that needs the recipient or the amount refuses it (the
engine fails closed).

An allowance is spending: whoever holds it moves the tokens with a call of its own that needs no signature of the
wallet. So every grant (`approve`, `increaseAllowance`, `setApprovalForAll(…, true)`, Permit2's `approve`, and the
typed-data permits: EIP-2612, DAI's, Permit2's) is a `Transfer` of its amount to the spender. A grant of a type's
largest amount or of a whole collection is `unbounded`. A revoke (`decreaseAllowance`, `setApprovalForAll(…,
false)`) moves nothing and names its spender in `revokes`.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from chalicelib.evm import abi
from chalicelib.evm.digests import Signable, authority, authorization_tuple
from chalicelib.evm.transactions import SignedAuthorization, UnsignedTx
from chalicelib.evm.typed_data import read

__all__ = [
    "ZERO_ADDRESS",
    "AuthorizationFacts",
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
UINT256_MAX = 2**256 - 1
UINT160_MAX = 2**160 - 1  # Permit2's allowance amounts: its largest is an allowance that never decreases
_HEX_BYTES = re.compile(r"0x(?:[0-9a-fA-F]{2})*")


class FactsError(ValueError):
    """A payload the engine cannot read (the caller refuses to sign it)."""


@dataclass(frozen=True)
class Transfer:
    asset: str  # "native" or the token contract address, lowercase
    amount: int  # base units (an approval's: the allowance it grants)
    recipient: str  # lowercase address (an approval's: its spender or operator)
    # An approval without an amount's bound (a collection's operator, a type's largest amount): any limit on the
    # asset refuses it, whatever the limit's value.
    unbounded: bool = False


@dataclass(frozen=True)
class TransactionFacts:
    chain_id: int
    to: str | None  # lowercase; None = contract creation
    value: int
    selector: str | None  # "0x" + 8 lowercase hex when len(data) >= 4, else None
    has_data: bool  # len(data) > 0
    transfers: tuple[Transfer, ...]
    decoded: bool  # False for call data that is not one of the standard calls (or is malformed), and for a creation
    revokes: tuple[str, ...] = ()  # lowercase spenders whose approval the call lowers or ends (it moves nothing)
    # A set-code (type 4) transaction's authorizations, each with the account that signed it.
    authorizations: tuple[AuthorizationFacts, ...] = ()


@dataclass(frozen=True)
class PersonalMessageFacts:
    size: int  # bytes of the message: 32 may be the hash of anything (messages.rawHashes)


@dataclass(frozen=True)
class TypedDataFacts:
    chain_id: int | None
    verifying_contract: str | None  # lowercase
    primary_type: str
    permit: str | None = None  # the permit this document strictly is ("EIP-2612 permit", ...), else None
    transfers: tuple[Transfer, ...] = ()  # a permit's grants
    revokes: tuple[str, ...] = ()


@dataclass(frozen=True)
class AuthorizationFacts:
    chain_id: int  # 0: valid on any chain
    delegate: str  # lowercase; the zero address revokes a delegation
    nonce: int
    # In a transaction's authorization list: the account that signed it, lowercase (None: its signature recovers
    # to no key). A payload to sign has none: the signer is the authority.
    authority: str | None = None


ZERO_ADDRESS = "0x" + "00" * 20

Facts = TransactionFacts | PersonalMessageFacts | TypedDataFacts | AuthorizationFacts


def _authorization_facts(payload: Signable) -> AuthorizationFacts:
    try:
        chain_id, address, nonce = authorization_tuple(payload)
    except ValueError as exc:
        raise FactsError(str(exc)) from None
    return AuthorizationFacts(chain_id=chain_id, delegate=address.lower(), nonce=nonce)


def facts_of(payload: Signable) -> Facts:
    """The facts of what a party is asked to sign; FactsError for a body it cannot read."""
    if payload.kind == "transaction":
        try:
            tx = UnsignedTx.from_wire(payload.transaction or {})
        except ValueError as exc:
            raise FactsError(str(exc)) from None
        return transaction_facts(tx)
    if payload.kind == "personal_message":
        message = payload.message or ""
        if not _HEX_BYTES.fullmatch(message):
            raise FactsError("message must be 0x-prefixed hex bytes")
        return PersonalMessageFacts(size=(len(message) - 2) // 2)
    if payload.kind == "authorization":
        return _authorization_facts(payload)
    if payload.kind != "typed_data":
        raise FactsError(f"the cosigner does not read {payload.kind} payloads")
    try:
        view = read(payload.typedData or {})
    except ValueError as exc:  # TypedDataError: the field and the problem, never the document's values
        raise FactsError(str(exc)) from None
    contract = view.domain.get("verifyingContract")
    chain_id = view.domain.get("chainId")
    facts = TypedDataFacts(
        chain_id=None if chain_id is None else int(chain_id),
        verifying_contract=None if contract is None else str(contract).lower(),
        primary_type=view.primary_type,
    )
    for permit in _PERMITS:
        if view.primary_type == permit.primary and view.types == permit.types:
            moves = permit.read(facts.verifying_contract, view.message)
            if moves is not None:
                return replace(facts, permit=permit.name, transfers=moves.transfers, revokes=moves.revokes)
    return facts


def transaction_facts(tx: UnsignedTx) -> TransactionFacts:
    facts = _call_facts(tx)
    if not tx.authorization_list:
        return facts
    return replace(facts, authorizations=tuple(_listed(entry) for entry in tx.authorization_list))


def _listed(entry: SignedAuthorization) -> AuthorizationFacts:
    signer = authority(entry)
    return AuthorizationFacts(
        chain_id=entry.chain_id,
        delegate=entry.address.lower(),
        nonce=entry.nonce,
        authority=None if signer is None else signer.lower(),
    )


def _call_facts(tx: UnsignedTx) -> TransactionFacts:
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
    revokes: tuple[str, ...] = ()
    if data:
        call = _STANDARD_CALLS.get(selector or "")
        moves = None if call is None else _decode(call, to, data[4:])
        decoded = moves is not None
        if moves is not None:
            transfers.extend(moves.transfers)
            revokes = moves.revokes
    return TransactionFacts(
        chain_id=tx.chain_id,
        to=to,
        value=tx.value,
        selector=selector,
        has_data=bool(data),
        transfers=tuple(transfers),
        decoded=decoded,
        revokes=revokes,
    )


@dataclass(frozen=True)
class _Moves:
    transfers: tuple[Transfer, ...] = ()
    revokes: tuple[str, ...] = ()


def _moved(token: str, amount: int, recipient: str) -> _Moves:
    return _Moves((Transfer(token, amount, recipient.lower()),))


def _grant(token: str, amount: int, spender: str, largest: int = UINT256_MAX) -> Transfer:
    """An allowance of `amount` to `spender`. Its type's largest amount is unbounded: most tokens (OpenZeppelin's,
    Permit2) never decrease such an allowance."""
    return Transfer(token, amount, spender.lower(), unbounded=amount == largest)


def _operator(token: str, operator: str, approved: bool) -> _Moves:
    """A whole collection's (or a whole balance's) approval: unbounded; its withdrawal moves nothing."""
    if approved:
        return _Moves((Transfer(token, UINT256_MAX, operator.lower(), unbounded=True),))
    return _Moves(revokes=(operator.lower(),))


@dataclass(frozen=True)
class _Call:
    types: list[str]
    # What the call moves, from the called contract (the token, for all but Permit2's approve) and the decoded
    # arguments.
    read: Callable[[str, tuple[Any, ...]], _Moves]


def _decode(call: _Call, token: str, arguments: bytes) -> _Moves | None:
    """What the call moves; None when the arguments are not a strict ABI encoding."""
    try:
        return call.read(token, abi.decode(call.types, arguments))
    except ValueError:
        return None


def _batch(token: str, values: tuple[Any, ...]) -> _Moves:
    ids, amounts = values[2], values[3]
    if len(ids) != len(amounts):
        # ERC-1155 reverts on this; refusing to read it keeps a strange call out of every rule's blind spot.
        raise ValueError("ids and amounts differ in length")
    return _moved(token, sum(amounts), values[1])


_STANDARD_CALLS: dict[str, _Call] = {
    # ERC-20 transfer(address,uint256)
    "0xa9059cbb": _Call(["address", "uint256"], lambda token, v: _moved(token, v[1], v[0])),
    # ERC-20 / ERC-721 transferFrom(address,address,uint256)
    "0x23b872dd": _Call(["address", "address", "uint256"], lambda token, v: _moved(token, v[2], v[1])),
    # ERC-721 safeTransferFrom(address,address,uint256)
    "0x42842e0e": _Call(["address", "address", "uint256"], lambda token, v: _moved(token, 1, v[1])),
    # ERC-721 safeTransferFrom(address,address,uint256,bytes)
    "0xb88d4fde": _Call(["address", "address", "uint256", "bytes"], lambda token, v: _moved(token, 1, v[1])),
    # ERC-1155 safeTransferFrom(address,address,uint256,uint256,bytes)
    "0xf242432a": _Call(
        ["address", "address", "uint256", "uint256", "bytes"], lambda token, v: _moved(token, v[3], v[1])
    ),
    # ERC-1155 safeBatchTransferFrom(address,address,uint256[],uint256[],bytes)
    "0x2eb2c2d6": _Call(["address", "address", "uint256[]", "uint256[]", "bytes"], _batch),
    # ERC-20 / ERC-721 approve(address,uint256): the amount (an ERC-721's token id, as transferFrom's) to the
    # spender. The selector cannot tell them apart: approve(x, 0) is an ERC-20 revoke but an ERC-721 grant of token
    # #0, so it is a transfer of 0 that the destination lists still see.
    "0x095ea7b3": _Call(["address", "uint256"], lambda token, v: _Moves((_grant(token, v[1], v[0]),))),
    # ERC-20 increaseAllowance(address,uint256)
    "0x39509351": _Call(["address", "uint256"], lambda token, v: _Moves((_grant(token, v[1], v[0]),))),
    # ERC-20 decreaseAllowance(address,uint256)
    "0xa457c2d7": _Call(["address", "uint256"], lambda token, v: _Moves(revokes=(v[0].lower(),))),
    # ERC-721 / ERC-1155 setApprovalForAll(address,bool); a bool other than 0 or 1 does not decode
    "0xa22cb465": _Call(["address", "bool"], lambda token, v: _operator(token, v[0], v[1])),
    # Uniswap Permit2 approve(address token,address spender,uint160 amount,uint48 expiration), called on Permit2:
    # a grant of the token its first argument names (not of the called contract), which Permit2 lets the spender
    # take from the wallet's allowance to Permit2. Its largest amount never decreases.
    "0x87517c45": _Call(
        ["address", "address", "uint160", "uint48"],
        lambda _, v: _Moves((_grant(v[0].lower(), v[2], v[1], UINT160_MAX),)),
    ),
}


# --- typed-data permits ----------------------------------------------------------------------------------------


def _struct(*fields: str) -> list[dict[str, str]]:
    """`"address owner"`, … -> EIP-712 fields."""
    return [{"name": name, "type": type_} for type_, name in (field.split(" ") for field in fields)]


@dataclass(frozen=True)
class _Permit:
    name: str
    primary: str
    # Exactly the struct types the document's primary type uses (what its digest covers), field by field in order:
    # any other definition hashes to another type, which the permit's contract would not accept.
    types: dict[str, list[dict[str, str]]]
    # What it grants, from the domain's verifying contract and the normalized message; None: not readable (an
    # EIP-2612 permit needs its token, the domain's verifyingContract).
    read: Callable[[str | None, dict[str, Any]], _Moves | None]


def _eip2612(token: str | None, message: dict[str, Any]) -> _Moves | None:
    return None if token is None else _Moves((_grant(token, message["value"], message["spender"]),))


def _dai(token: str | None, message: dict[str, Any]) -> _Moves | None:
    return None if token is None else _operator(token, message["spender"], message["allowed"])


def _allowances(details: list[dict[str, Any]], spender: str) -> _Moves:
    return _Moves(tuple(_grant(d["token"].lower(), d["amount"], spender, UINT160_MAX) for d in details))


def _transfers(permitted: list[dict[str, Any]], spender: str) -> _Moves:
    return _Moves(tuple(_grant(p["token"].lower(), p["amount"], spender) for p in permitted))


_PERMIT_DETAILS = _struct("address token", "uint160 amount", "uint48 expiration", "uint48 nonce")
_TOKEN_PERMISSIONS = _struct("address token", "uint256 amount")
_PERMITS = (
    _Permit(
        "EIP-2612 permit",
        "Permit",
        {"Permit": _struct("address owner", "address spender", "uint256 value", "uint256 nonce", "uint256 deadline")},
        _eip2612,
    ),
    _Permit(
        "DAI permit",
        "Permit",
        {"Permit": _struct("address holder", "address spender", "uint256 nonce", "uint256 expiry", "bool allowed")},
        _dai,
    ),
    _Permit(
        "Permit2 PermitSingle",
        "PermitSingle",
        {
            "PermitSingle": _struct("PermitDetails details", "address spender", "uint256 sigDeadline"),
            "PermitDetails": _PERMIT_DETAILS,
        },
        lambda _, m: _allowances([m["details"]], m["spender"]),
    ),
    _Permit(
        "Permit2 PermitBatch",
        "PermitBatch",
        {
            "PermitBatch": _struct("PermitDetails[] details", "address spender", "uint256 sigDeadline"),
            "PermitDetails": _PERMIT_DETAILS,
        },
        lambda _, m: _allowances(m["details"], m["spender"]),
    ),
    _Permit(
        "Permit2 PermitTransferFrom",
        "PermitTransferFrom",
        {
            "PermitTransferFrom": _struct(
                "TokenPermissions permitted", "address spender", "uint256 nonce", "uint256 deadline"
            ),
            "TokenPermissions": _TOKEN_PERMISSIONS,
        },
        lambda _, m: _transfers([m["permitted"]], m["spender"]),
    ),
    _Permit(
        "Permit2 PermitBatchTransferFrom",
        "PermitBatchTransferFrom",
        {
            "PermitBatchTransferFrom": _struct(
                "TokenPermissions[] permitted", "address spender", "uint256 nonce", "uint256 deadline"
            ),
            "TokenPermissions": _TOKEN_PERMISSIONS,
        },
        lambda _, m: _transfers(m["permitted"], m["spender"]),
    ),
)
