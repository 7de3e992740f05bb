"""Sends from the caller's MPC wallet: coin, ERC-20, ERC-721 and raw transactions.

This module turns a wallet request into a call for the EVM pipeline (chalicelib/evm/pipeline.py) and signs
through the user's MPC wallet (`MpcWalletSigner`). Before anything is signed it refuses what cannot work:
the wallet and its `secret` (A+C sign instead of A+B), recipient and amounts, token balance and ERC-721
ownership; the pipeline then checks native funds for value plus gas at the fee cap.

Outcomes are domain results: `pipeline.Sent` (routes.py answers it, 502 with the hash when no node
confirmed the broadcast) or an ApiError refusal.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from chalicelib.auth.models import WalletPrincipal
from chalicelib.evm import abi, digests, engine, erc20, pipeline, tokens
from chalicelib.evm.fees import Fees
from chalicelib.evm.pipeline import Call, Sent
from chalicelib.evm.rpc import quantity
from chalicelib.evm.tracking import EvmTransaction
from chalicelib.evm.transactions import SignedAuthorization, UnsignedTx
from chalicelib.mpc import service as mpc
from chalicelib.platform import amounts, aws, unit_of_work
from chalicelib.platform.addresses import checksum_address
from chalicelib.platform.amounts import parse_amount
from chalicelib.platform.errors import ApiError, bad_request
from chalicelib.platform.networks import Network, resolve
from chalicelib.wallets import history, provisioning, signatures
from chalicelib.wallets.models import (
    INVALID_FEES,
    AuthorizationListEntry,
    CancelRequest,
    DelegateRequest,
    RawTransaction,
    SendCoinRequest,
    SendTokenRequest,
    SendTransactionRequest,
    SpeedUpRequest,
    TransferErc721Request,
)
from chalicelib.wallets.store import BoundWallet

INVALID_AMOUNT = amounts.INVALID_AMOUNT
INVALID_TOKEN_ID = amounts.INVALID_TOKEN_ID
INVALID_TRANSACTION = "INVALID_TRANSACTION"
INVALID_AUTHORIZATION = "INVALID_AUTHORIZATION"
FROM_MISMATCH = "FROM_MISMATCH"
INSUFFICIENT_TOKEN_BALANCE = "INSUFFICIENT_TOKEN_BALANCE"
NOT_TOKEN_OWNER = tokens.NOT_TOKEN_OWNER
SENT = "transaction is processing"

MAX_UINT256 = amounts.MAX_UINT256
MAX_GAS = 30_000_000
MAX_NONCE = 2**64 - 2  # EIP-2681


@dataclass(frozen=True)
class MpcWalletSigner:
    """The user's MPC wallet as an evm.Signer: A+B sign, or A+C with the user's `secret`."""

    principal: WalletPrincipal
    wallet: BoundWallet
    secret: str | None

    @property
    def address(self) -> str:
        return self.wallet.address

    def admit(self, time_left_s: float | None) -> None:
        """With the user's `secret` the pair is A+C, which always runs in full (no presignature pool)."""
        mpc.admit(self.wallet.walletId, time_left_s, pooled=self.secret is None)

    def sign_transaction(self, tx: UnsignedTx) -> bytes:
        """The parties are shown `tx` and hash it themselves: an MPC wallet signs no bare digest."""
        return provisioning.sign(self.principal, digests.transaction(tx), self.secret, self.wallet)


@dataclass(frozen=True)
class TrackerSigner:
    """A wallet's key as the transaction engine signs with it, A+B from the presignature pool: a re-pricing or a
    gap fill of the wallet's own transactions, which its cosigner allows only as such (a replacement is the same
    payment at the same nonce, counted once; a gap fill moves nothing: docs/policies.md)."""

    wallet_id: str
    address: str

    def admit(self, time_left_s: float | None) -> None:
        mpc.admit(self.wallet_id, time_left_s)

    def sign_transaction(self, tx: UnsignedTx) -> bytes:
        try:
            return mpc.sign(self.wallet_id, self.address, digests.transaction(tx), "tx-engine")
        except mpc.MpcRunError as exc:
            raise exc.api_error() from None


# The kinds of transaction a wallet sends, which the engine re-prices and whose nonce gaps it fills.
WALLET_SENDS = engine.Owner(
    kinds=frozenset({"coin", "token", "erc721", "raw", "delegation", engine.GAP_FILL}),
    signer=lambda tx: TrackerSigner(tx.walletId, tx.sender),
)


def send_coin(principal: WalletPrincipal, request: SendCoinRequest) -> Sent:
    network = resolve(request.network, request.chainId)
    to = checksum_address(request.to, "to")
    value = parse_amount(request.amount, network.nativeDecimals)
    wallet = provisioning.bound_wallet(principal)
    return _send(principal, wallet, network, request.secret, Call(to, value, b""), kind="coin")


def send_token(principal: WalletPrincipal, request: SendTokenRequest) -> Sent:
    network = resolve(request.network, request.chainId)
    to = checksum_address(request.to, "to")
    token = checksum_address(request.tokenAddress, "tokenAddress")
    wallet = provisioning.bound_wallet(principal)
    info, held = erc20.token_holding(network, token, wallet.address)  # one round trip
    amount = parse_amount(request.amount, info.decimals)
    if held < amount:
        raise ApiError(422, INSUFFICIENT_TOKEN_BALANCE, f"The wallet holds less than {request.amount} {info.symbol}")
    return _send(principal, wallet, network, request.secret, Call(token, 0, abi.transfer(to, amount)), kind="token")


def transfer_erc721(principal: WalletPrincipal, request: TransferErc721Request) -> Sent:
    network = resolve(request.network, request.chainId)
    to = checksum_address(request.to, "to")
    token = checksum_address(request.tokenAddress, "tokenAddress")
    if not amounts.is_uint256(request.tokenId):
        raise bad_request(INVALID_TOKEN_ID, "tokenId must be a decimal uint256", errors=[_field("tokenId")])
    token_id = int(request.tokenId)
    wallet = provisioning.bound_wallet(principal)
    if tokens.owner_of(network, token, token_id) != wallet.address:
        raise ApiError(422, NOT_TOKEN_OWNER, f"The wallet does not own token {token_id} of {token}")
    data = abi.safe_transfer_from(wallet.address, to, token_id)
    return _send(principal, wallet, network, request.secret, Call(token, 0, data), kind="erc721")


def send_transaction(principal: WalletPrincipal, request: SendTransactionRequest) -> Sent:
    network = resolve(request.network, request.chainId)
    raw = request.transaction
    wallet = provisioning.bound_wallet(principal)
    sender = checksum_address(raw.from_, "transaction.from")
    if sender != wallet.address:
        raise bad_request(FROM_MISMATCH, "transaction.from must be the wallet's address", errors=[_field("from")])
    fields = _hex_fields(raw)
    to = checksum_address(raw.to, "transaction.to") if raw.to else None
    if to is None:
        raise bad_request(INVALID_TRANSACTION, "transaction.to is required", errors=[_field("to")])
    if raw.authorizationList and raw.gasPrice is not None:
        reason = "a transaction with an authorizationList (type 4) has EIP-1559 fees: leave gasPrice out"
        raise bad_request(INVALID_TRANSACTION, reason, errors=[_field("gasPrice")])
    authorizations = _authorizations(network, raw.authorizationList or [])
    call = Call(to, fields["value"], bytes.fromhex(raw.data[2:]) if raw.data else b"", authorizations)
    return _send(
        principal,
        wallet,
        network,
        request.secret,
        call,
        kind="raw",
        gas=fields.get("gasLimit"),
        gas_price=fields.get("gasPrice"),
        nonce=fields.get("nonce"),
    )


def delegate(principal: WalletPrincipal, request: DelegateRequest) -> Sent:
    """A set-code transaction from the wallet to itself with its own authorization of `contractAddress` (the zero
    address revokes), signed at the transaction's nonce + 1."""
    network = resolve(request.network, request.chainId)
    delegate_to = checksum_address(request.contractAddress, "contractAddress")
    wallet = provisioning.bound_wallet(principal)
    call = Call(wallet.address, 0, b"")
    return _send(principal, wallet, network, request.secret, call, kind="delegation", delegate_to=delegate_to)


def _authorizations(network: Network, entries: list[AuthorizationListEntry]) -> tuple[SignedAuthorization, ...]:
    """The signed tuples a transaction carries, each for this chain (or any), signed by some account, with the
    hash it was given (if any) its own: the chain would skip any other without a word."""
    listed = []
    for index, entry in enumerate(entries):
        at = f"authorizationList[{index}]"
        address = checksum_address(entry.address, f"transaction.{at}.address")
        try:
            signed = SignedAuthorization.from_wire({**entry.model_dump(exclude={"hash"}), "address": address})
        except ValueError as exc:
            raise _bad_authorization(at, str(exc)) from None
        if signed.chain_id not in (0, network.chainId):
            raise _bad_authorization(at, f"signed for chain {signed.chain_id}, not {network.chainId} (or 0, any)")
        digest = digests.authorization_hash(signed.chain_id, signed.address, signed.nonce)
        if entry.hash is not None and entry.hash.lower() != "0x" + digest.hex():
            raise _bad_authorization(at, "hash is not the tuple's: keccak256(0x05 ‖ rlp([chainId, address, nonce]))")
        if digests.authority(signed) is None:
            raise _bad_authorization(at, "the signature recovers to no account")
        listed.append(signed)
    return tuple(listed)


def _bad_authorization(at: str, reason: str) -> ApiError:
    message = f"transaction.{at}: {reason}"
    return bad_request(
        INVALID_AUTHORIZATION, message, errors=[{"field": at, "message": reason[:300], "type": "value_error"}]
    )


def _send(
    principal: WalletPrincipal,
    wallet: BoundWallet,
    network: Network,
    secret: str | None,
    call: Call,
    *,
    kind: str,
    gas: int | None = None,
    gas_price: int | None = None,
    nonce: int | None = None,
    delegate_to: str | None = None,
) -> Sent:
    """`delegate_to`: the wallet's own authorization of that contract goes with the transaction (set-code)."""
    if secret is not None:
        wallet = provisioning.wallet_of(principal)  # read once: its secret0 hash is checked here and when signing
    provisioning.check_secret(principal, wallet, secret)
    signer = MpcWalletSigner(principal, wallet, secret)
    authorize: Callable[[int], SignedAuthorization] | None = None
    if delegate_to is not None:
        authorize = functools.partial(
            signatures.signed_authorization, principal, wallet, secret, network.chainId, delegate_to
        )
    return pipeline.send(
        network,
        signer,
        call,
        owner=wallet.walletId,
        kind=kind,
        gas=gas,
        gas_price=gas_price,
        nonce=nonce,
        authorize=authorize,
    )


def _hex_fields(raw: RawTransaction) -> dict[str, int]:
    fields: dict[str, int] = {}
    for name in ("nonce", "gasPrice", "gasLimit", "value"):
        text = getattr(raw, name)
        if text is None:
            continue
        try:
            fields[name] = quantity(text)
        except ValueError:
            raise bad_request(
                INVALID_TRANSACTION, f"transaction.{name} must be a hex quantity", errors=[_field(name)]
            ) from None
    fields.setdefault("value", 0)
    if fields.get("nonce", 0) > MAX_NONCE:
        raise bad_request(INVALID_TRANSACTION, "transaction.nonce is out of range", errors=[_field("nonce")])
    if fields.get("gasLimit") == 0 or fields.get("gasLimit", 0) > MAX_GAS:
        raise bad_request(INVALID_TRANSACTION, "transaction.gasLimit is out of range", errors=[_field("gasLimit")])
    if raw.data and not re.fullmatch(r"0x([0-9a-fA-F]{2})*", raw.data):
        raise bad_request(
            INVALID_TRANSACTION, "transaction.data must be 0x-prefixed hex bytes", errors=[_field("data")]
        )
    return fields


def _field(name: str) -> dict[str, str]:
    return {"field": name, "message": "invalid", "type": "value_error"}


# --- speed-up and cancel of the wallet's own pending transactions (the engine: chalicelib/evm/engine.py) ----------


def speed_up(principal: WalletPrincipal, tx_hash: str, request: SpeedUpRequest) -> Sent:
    """Replace the wallet's pending transaction `tx_hash` (any hash of its record) with the same transaction at
    higher fees: the request's, or the engine's next bump. The replacement as sent."""
    offered = _offered(request)
    wallet = provisioning.bound_wallet(principal)
    tx = history.owned(wallet.walletId, tx_hash)
    legacy = tx.unsigned().gas_price is not None
    if offered is not None and (offered.gas_price is not None) != legacy:
        if legacy:
            message, wrong = "A legacy transaction: offer gasPrice", ["maxFeePerGas", "maxPriorityFeePerGas"]
        else:
            message, wrong = "An EIP-1559 transaction: offer maxFeePerGas and maxPriorityFeePerGas", ["gasPrice"]
        raise bad_request(
            INVALID_FEES, message, errors=[_fee_error(name, "not this transaction's fee") for name in wrong]
        )
    signer = _replacement_signer(principal, wallet, request.secret)
    with _record_busy():
        return engine.speed_up(tx, signer, offered, _effect(tx))


def cancel(principal: WalletPrincipal, tx_hash: str, request: CancelRequest) -> Sent:
    """Replace the wallet's pending transaction `tx_hash` with a 0-value send to the wallet itself at its nonce, at
    the engine's next bump; the record is `cancelled` once that is mined. The replacement as sent."""
    wallet = provisioning.bound_wallet(principal)
    tx = history.owned(wallet.walletId, tx_hash)
    signer = _replacement_signer(principal, wallet, request.secret)
    with _record_busy():
        return engine.cancel(tx, signer, _effect(tx))


def _offered(request: SpeedUpRequest) -> Fees | None:
    """The fees the request offers (each a uint256 already), one kind and the EIP-1559 pair whole; None: none."""
    given = [
        name for name in ("gasPrice", "maxFeePerGas", "maxPriorityFeePerGas") if getattr(request, name) is not None
    ]
    if request.gasPrice is not None and len(given) > 1:
        raise bad_request(
            INVALID_FEES,
            "Offer gasPrice (a legacy transaction) or maxFeePerGas and maxPriorityFeePerGas (EIP-1559), not both",
            errors=[_fee_error(name, "one kind of fee only") for name in given],
        )
    if request.gasPrice is not None:
        return Fees(gas_price=int(request.gasPrice))
    if request.maxFeePerGas is None and request.maxPriorityFeePerGas is None:
        return None
    if request.maxFeePerGas is None or request.maxPriorityFeePerGas is None:
        missing = "maxFeePerGas" if request.maxFeePerGas is None else "maxPriorityFeePerGas"
        raise bad_request(
            INVALID_FEES,
            "maxFeePerGas and maxPriorityFeePerGas go together",
            errors=[_fee_error(missing, "required with the other EIP-1559 fee")],
        )
    max_fee, priority = int(request.maxFeePerGas), int(request.maxPriorityFeePerGas)
    if priority > max_fee:
        raise bad_request(
            INVALID_FEES,
            "maxPriorityFeePerGas may not exceed maxFeePerGas",
            errors=[_fee_error("maxPriorityFeePerGas", "above maxFeePerGas")],
        )
    return Fees(max_fee=max_fee, max_priority_fee=priority)


def _fee_error(name: str, message: str) -> dict[str, str]:
    return {"field": name, "message": message, "type": "value_error"}


def _replacement_signer(principal: WalletPrincipal, wallet: BoundWallet, secret: str | None) -> MpcWalletSigner:
    """The wallet as a send signs: A+B, or A+C with its `secret` (checked here, as `_send` does)."""
    if secret is not None:
        wallet = provisioning.wallet_of(principal)
    provisioning.check_secret(principal, wallet, secret)
    return MpcWalletSigner(principal, wallet, secret)


def _effect(tx: EvmTransaction) -> dict[str, str]:
    """The Idempotency-Key's effect, written with the replacement: the record's hash, known before the
    replacement's (any hash of the record answers GET /api/v1/wallet/transactions/{hash}); a lost answer is then
    never a second replacement."""
    return {"txHash": tx.hash}


@contextmanager
def _record_busy() -> Iterator[None]:
    """A tracker step held the record as the replacement was recorded: nothing was recorded or broadcast, retry."""
    try:
        yield
    except aws.ItemBusyError:
        raise unit_of_work.busy() from None
