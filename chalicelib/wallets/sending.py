"""Sends from the caller's MPC wallet: coin, ERC-20, ERC-721 and raw transactions.

Every send runs the same steps, and refuses before anything is signed when it cannot work:

1. the wallet, and its `secret` if one was given (A+C sign instead of A+B);
2. the call (recipient, value, data), fees (EIP-1559 when the latest block has a
   base fee, legacy otherwise) and gas (`eth_estimateGas` unless given);
3. funds: native coin for value + gas at the fee cap, tokens, ERC-721 ownership;
4. a nonce (nonces.py), the signature through the MPC service, the record
   (status `signing` then `pending`), the broadcast, and a tracker message;
5. a failed broadcast marks the record failed and gives the nonce back.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from chalicelib.auth.models import WalletPrincipal
from chalicelib.platform import erc20
from chalicelib.platform.chain import RpcError, checksum_address, rpc_call
from chalicelib.platform.errors import UPSTREAM_UNAVAILABLE, ApiError, bad_request
from chalicelib.platform.http import Reply
from chalicelib.platform.logging import logger
from chalicelib.platform.networks import Network, resolve
from chalicelib.wallets import accounts, nonces, tracking
from chalicelib.wallets.models import (
    RawTransaction,
    SendCoinRequest,
    SendTokenRequest,
    SendTransactionRequest,
    TransferErc721Request,
)
from chalicelib.wallets.store import Wallet
from chalicelib.wallets.transactions import SignedTx, UnsignedTx, assemble, receipt, signing_hash

INVALID_AMOUNT = "INVALID_AMOUNT"
INVALID_TOKEN_ID = "INVALID_TOKEN_ID"
INVALID_TRANSACTION = "INVALID_TRANSACTION"
FROM_MISMATCH = "FROM_MISMATCH"
INSUFFICIENT_FUNDS = "INSUFFICIENT_FUNDS"
INSUFFICIENT_TOKEN_BALANCE = "INSUFFICIENT_TOKEN_BALANCE"
NOT_TOKEN_OWNER = "NOT_TOKEN_OWNER"
TRANSACTION_WOULD_FAIL = "TRANSACTION_WOULD_FAIL"
BROADCAST_REJECTED = "BROADCAST_REJECTED"
SENT = "transaction is processing"

ETHER_DECIMALS = 18
MAX_UINT256 = 2**256 - 1
GAS_MARGIN_PERCENT = 20  # calls with data: estimates can fall short when state moves before mining
MAX_GAS = 30_000_000
TRANSFER = "0xa9059cbb"  # transfer(address,uint256)
SAFE_TRANSFER_FROM = "0x42842e0e"  # safeTransferFrom(address,address,uint256)
OWNER_OF = "0x6352211e"  # ownerOf(uint256)
_DECIMAL = re.compile(r"[0-9]+(\.[0-9]+)?")
_UINT = re.compile(r"[0-9]{1,78}")
MAX_NONCE = 2**64 - 2  # EIP-2681
ALREADY_KNOWN = re.compile(r"already known|known transaction|already imported", re.IGNORECASE)


@dataclass(frozen=True)
class Call:
    to: str
    value: int
    data: bytes


def parse_amount(text: str, decimals: int, field: str = "amount") -> int:
    """An exact decimal string in human units -> base units; zero, negative, malformed or too precise: 400."""
    if len(text) > 100 or not _DECIMAL.fullmatch(text):
        raise _bad_amount(field, 'must be a positive decimal string such as "1.5"')
    whole, _, fraction = text.partition(".")
    fraction = fraction.rstrip("0")
    if len(fraction) > decimals:
        raise _bad_amount(field, f"has more than {decimals} decimal places")
    scale: int = 10**decimals
    base = int(whole) * scale + int(fraction.ljust(decimals, "0") or "0")  # exact: integers only
    if base <= 0:
        raise _bad_amount(field, "must be greater than zero")
    if base > MAX_UINT256:
        raise _bad_amount(field, "is too large")
    return base


def send_coin(principal: WalletPrincipal, request: SendCoinRequest) -> Reply:
    network = resolve(request.network, request.chainId)
    to = checksum_address(request.to, "to")
    value = parse_amount(request.amount, network.nativeDecimals)
    wallet = accounts.wallet_of(principal)
    return _send(principal, wallet, network, request.secret, Call(to, value, b""), kind="coin")


def send_token(principal: WalletPrincipal, request: SendTokenRequest) -> Reply:
    network = resolve(request.network, request.chainId)
    to = checksum_address(request.to, "to")
    token = checksum_address(request.tokenAddress, "tokenAddress")
    info = erc20.token_info(network, token)
    amount = parse_amount(request.amount, info.decimals)
    wallet = accounts.wallet_of(principal)
    if erc20.balance_of(network, token, wallet.address) < amount:
        raise ApiError(422, INSUFFICIENT_TOKEN_BALANCE, f"The wallet holds less than {request.amount} {info.symbol}")
    data = bytes.fromhex(TRANSFER[2:] + _word_address(to) + f"{amount:064x}")
    return _send(principal, wallet, network, request.secret, Call(token, 0, data), kind="token")


def transfer_erc721(principal: WalletPrincipal, request: TransferErc721Request) -> Reply:
    network = resolve(request.network, request.chainId)
    to = checksum_address(request.to, "to")
    token = checksum_address(request.tokenAddress, "tokenAddress")
    if not _UINT.fullmatch(request.tokenId) or int(request.tokenId) > MAX_UINT256:
        raise bad_request(INVALID_TOKEN_ID, "tokenId must be a decimal uint256", errors=[_field("tokenId")])
    token_id = int(request.tokenId)
    wallet = accounts.wallet_of(principal)
    if _owner_of(network, token, token_id) != wallet.address.lower():
        raise ApiError(422, NOT_TOKEN_OWNER, f"The wallet does not own token {token_id} of {token}")
    data = bytes.fromhex(
        SAFE_TRANSFER_FROM[2:] + _word_address(wallet.address) + _word_address(to) + f"{token_id:064x}"
    )
    return _send(principal, wallet, network, request.secret, Call(token, 0, data), kind="erc721")


def send_transaction(principal: WalletPrincipal, request: SendTransactionRequest) -> Reply:
    network = resolve(request.network, request.chainId)
    raw = request.transaction
    wallet = accounts.wallet_of(principal)
    sender = checksum_address(raw.from_, "transaction.from")
    if sender != wallet.address:
        raise bad_request(FROM_MISMATCH, "transaction.from must be the wallet's address", errors=[_field("from")])
    fields = _hex_fields(raw)
    to = checksum_address(raw.to, "transaction.to") if raw.to else None
    if to is None:
        raise bad_request(INVALID_TRANSACTION, "transaction.to is required", errors=[_field("to")])
    call = Call(to, fields["value"], bytes.fromhex(raw.data[2:]) if raw.data else b"")
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


def _send(
    principal: WalletPrincipal,
    wallet: Wallet,
    network: Network,
    secret: str | None,
    call: Call,
    *,
    kind: str,
    gas: int | None = None,
    gas_price: int | None = None,
    nonce: int | None = None,
) -> Reply:
    accounts.check_secret(wallet, secret)
    fees = _fees(network) if gas_price is None else {"gas_price": gas_price}
    gas = gas or _estimate_gas(network, wallet.address, call)
    cap = fees["gas_price"] if "gas_price" in fees else fees["max_fee"]
    balance = _int(_rpc(network, "eth_getBalance", [wallet.address, "latest"]))
    if balance < call.value + gas * cap:
        raise ApiError(
            422, INSUFFICIENT_FUNDS, f"Not enough {network.nativeSymbol} for the value plus gas on {network.name}"
        )
    chosen_nonce = nonce is not None
    allocation: nonces.Allocation | None = None
    if nonce is None:
        pending = _int(_rpc(network, "eth_getTransactionCount", [wallet.address, "pending"]))
        allocation = nonces.allocate(wallet.address, network.chainId, pending)
        nonce = allocation.nonce
    tx = UnsignedTx(
        chain_id=network.chainId,
        nonce=nonce,
        to=call.to,
        value=call.value,
        data=call.data,
        gas=gas,
        gas_price=fees.get("gas_price"),
        max_fee=fees.get("max_fee"),
        max_priority_fee=fees.get("max_priority_fee"),
    )
    try:
        signature = accounts.sign_digest(principal, signing_hash(tx), secret, wallet)
        signed = assemble(tx, wallet.address, signature)
        body = receipt(signed)
        tracking.record(wallet.walletId, network, signed, kind, body, chosen_nonce=chosen_nonce)
    except BaseException:
        if allocation is not None:
            nonces.release(wallet.address, network.chainId, allocation)
        raise
    if allocation is not None:
        try:  # recorded: the tracker owns the nonce now (a leftover lease is harmless: see nonces.py)
            nonces.settle(wallet.address, network.chainId, allocation)
        except Exception as exc:  # noqa: BLE001 - the send goes on; see nonces.py
            logger.warning("nonce lease not settled", extra={"hash": signed.hash, "errorType": type(exc).__name__})
    try:
        _rpc(network, "eth_sendRawTransaction", ["0x" + signed.raw.hex()], broadcast=True)
    except ApiError as exc:
        if exc.code != UPSTREAM_UNAVAILABLE:  # the node said no: nothing is on its way
            tracking.mark_failed(signed.hash, exc.message)
            if allocation is not None:
                nonces.release(wallet.address, network.chainId, allocation.nonce)
            raise
        # No node answered: the transaction may or may not be out there. It stays pending, and the
        # tracker re-broadcasts it, then settles or drops it (giving the nonce back); never sign anew.
        _after_broadcast(signed, network, body)
        return Reply(
            {"code": UPSTREAM_UNAVAILABLE, "hash": signed.hash},
            f"No node of {network.name} confirmed the broadcast; the transaction is tracked",
            502,
        )
    if tx.type == 2:
        # For a typed transaction the node, not the transaction, defines `gasPrice` (what it would
        # charge now); take its word so the receipt is what ethers shows for this hash.
        body["gasPrice"] = _node_gas_price(network, signed.hash) or body["gasPrice"]
    _after_broadcast(signed, network, body)
    logger.info("transaction sent", extra={"hash": signed.hash, "network": network.name, "nonce": nonce})
    return Reply({"txReceipt": body}, SENT)


def _after_broadcast(signed: SignedTx, network: Network, body: dict[str, Any]) -> None:
    """Bookkeeping once the transaction may be on its way: failures here must not fail the answer."""
    try:
        tracking.mark_pending(signed.hash, body)
    except Exception as exc:  # noqa: BLE001 - the sweep of `signing` records picks it up (tracking.py)
        logger.error("could not start tracking", extra={"hash": signed.hash, "errorType": type(exc).__name__})


def _node_gas_price(network: Network, tx_hash: str) -> str | None:
    try:
        seen = rpc_call(network, "eth_getTransactionByHash", [tx_hash])
        return str(int(seen["gasPrice"], 16)) if isinstance(seen, dict) and seen.get("gasPrice") else None
    except (RpcError, ApiError, TypeError, ValueError):
        return None  # the send succeeded; the fee cap stands in


def _fees(network: Network) -> dict[str, int]:
    block = _rpc(network, "eth_getBlockByNumber", ["latest", False])
    base_fee = block.get("baseFeePerGas") if isinstance(block, dict) else None
    if base_fee is None:
        return {"gas_price": _int(_rpc(network, "eth_gasPrice", []))}
    try:
        priority = _int(_rpc(network, "eth_maxPriorityFeePerGas", []))
    except ApiError:
        priority = 10**9  # nodes without the method: 1 gwei
    # Room for the base fee to double before the transaction is priced out.
    return {"max_fee": 2 * _int(base_fee) + priority, "max_priority_fee": priority}


def _estimate_gas(network: Network, sender: str, call: Call) -> int:
    params = {"from": sender, "to": call.to, "value": hex(call.value), "data": "0x" + call.data.hex()}
    try:
        estimate = _int(rpc_call(network, "eth_estimateGas", [params]))
    except RpcError as exc:
        if "insufficient funds" in str(exc).lower():
            raise ApiError(422, INSUFFICIENT_FUNDS, f"Not enough {network.nativeSymbol} for this transaction") from None
        if exc.reverted:
            raise ApiError(422, TRANSACTION_WOULD_FAIL, "The transaction would revert on chain") from None
        raise ApiError(502, UPSTREAM_UNAVAILABLE, f"The node of {network.name} could not estimate gas") from None
    return estimate if not call.data else min(estimate * (100 + GAS_MARGIN_PERCENT) // 100, MAX_GAS)


def _owner_of(network: Network, token: str, token_id: int) -> str:
    try:
        result = rpc_call(network, "eth_call", [{"to": token, "data": OWNER_OF + f"{token_id:064x}"}, "latest"])
    except RpcError as exc:
        if exc.reverted:  # no such token, or not an ERC-721
            raise ApiError(422, NOT_TOKEN_OWNER, f"Token {token_id} of {token} does not exist") from None
        raise ApiError(502, UPSTREAM_UNAVAILABLE, f"The node of {network.name} failed the call") from None
    if not isinstance(result, str) or len(result) < 66:
        raise ApiError(422, NOT_TOKEN_OWNER, f"{token} is not an ERC-721 contract on {network.name}")
    return "0x" + result[26:66].lower()


def _rpc(network: Network, method: str, params: list[object], broadcast: bool = False) -> object:
    try:
        return rpc_call(network, method, params)  # type: ignore[arg-type]
    except RpcError as exc:
        if broadcast and ALREADY_KNOWN.search(str(exc)):
            return None  # another URL or an earlier attempt delivered it already: that is success
        if broadcast:
            raise ApiError(422, BROADCAST_REJECTED, f"The node refused the transaction: {str(exc)[:200]}") from None
        raise ApiError(502, UPSTREAM_UNAVAILABLE, f"The node of {network.name} failed {method}") from None


def _int(value: object) -> int:
    if isinstance(value, str) and value.startswith("0x"):
        return int(value, 16)
    raise ApiError(502, UPSTREAM_UNAVAILABLE, "The node answered something that is not a quantity")


def _hex_fields(raw: RawTransaction) -> dict[str, int]:
    fields: dict[str, int] = {}
    for name in ("nonce", "gasPrice", "gasLimit", "value"):
        text = getattr(raw, name)
        if text is None:
            continue
        if not re.fullmatch(r"0x[0-9a-fA-F]{1,64}", text):
            raise bad_request(INVALID_TRANSACTION, f"transaction.{name} must be a hex quantity", errors=[_field(name)])
        fields[name] = int(text, 16)
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


def _word_address(address: str) -> str:
    return address[2:].lower().rjust(64, "0")


def _field(name: str) -> dict[str, str]:
    return {"field": name, "message": "invalid", "type": "value_error"}


def _bad_amount(field: str, reason: str) -> ApiError:
    return bad_request(
        INVALID_AMOUNT, f"{field} {reason}", errors=[{"field": field, "message": reason, "type": "value_error"}]
    )


def _reason(exc: BaseException) -> str:
    return exc.message if isinstance(exc, ApiError) else type(exc).__name__
