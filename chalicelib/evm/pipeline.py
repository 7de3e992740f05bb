"""Sending one EVM transaction: build → sign → record → claim → broadcast → track.

1. build: fees, gas, balance and the pending nonce in one RPC round trip (fees.py); funds for value plus
   gas at the fee cap are checked before anything is signed; a nonce is leased (nonces.py) unless given;
2. sign: through the caller's `Signer`; the signature must recover to the signer's address;
3. record: the transaction record (`signing`) in one DynamoDB transaction with the end of the nonce's
   lease and the Idempotency-Key's effect (tracking.py), which starts its one tracker chain;
4. claim: `signing` → `pending`, the commitment to broadcast (a record the tracker dropped is never sent);
5. broadcast: a refusal marks the record `failed` and gives the nonce back in one transaction (a reserved nonce
   stays its holder's, who decides when it ends: nonces.py); no node answering is not a failure: the
   transaction is tracked and re-broadcast (`Sent.confirmed` is False).
   A refusal for the nonce (the chain or the node's pool has another transaction at it: the key is also used
   elsewhere, e.g. an imported one) of a nonce the pipeline chose itself is followed by one more run of
   build → broadcast: the chain's nonce read again, a new signature, one more broadcast.

Refusals before the signature are ApiErrors with 4xx codes; nothing is signed or recorded then. Before the
nonce is taken the signer is asked to `admit` the send in the time left (503 SIGNER_BUSY with a Retry-After when
it cannot sign in time: nothing is taken then). Signing, recording and claiming end GIVE_BACK_S before the
request's budget does, so a send that runs out of time still gives its nonce back (or drops its record) on the
way out instead of leaving it to a lease or an orphan check.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from chalicelib.evm import digests, fees, nonces, rpc, tracking
from chalicelib.evm.rpc import NO_ANSWER, RpcError, quantity, rpc_call
from chalicelib.evm.signer import Signer
from chalicelib.evm.tracking import EvmTransaction
from chalicelib.evm.transactions import SignedAuthorization, SignedTx, UnsignedTx, assemble, receipt
from chalicelib.platform import deadline
from chalicelib.platform.errors import ApiError
from chalicelib.platform.logging import log_failure, logger
from chalicelib.platform.networks import Network
from chalicelib.platform.unit_of_work import Plan

INSUFFICIENT_FUNDS = fees.INSUFFICIENT_FUNDS
BROADCAST_REJECTED = "BROADCAST_REJECTED"
AUTHORIZATION_NONCE_MISMATCH = "AUTHORIZATION_NONCE_MISMATCH"
# The sender's own authorization, signed after the estimate: EIP-7702's 25 000 gas for the tuple, and room for the
# delegate's code, which a call to the sender itself then runs (a cold read of the delegate and its entry).
OWN_AUTHORIZATION_GAS = 25_000
DELEGATED_CALL_GAS = 25_000
BROADCAST_NEEDS_S = 1.0  # time a claim and a broadcast need; with less left the send stops before claiming
GIVE_BACK_S = 2.0  # kept from signing, recording and claiming: a send that runs out of time gives its nonce back
ALREADY_KNOWN = re.compile(r"already known|known transaction|already imported", re.IGNORECASE)
# The node has another transaction at this nonce, mined or in its pool (geth, anvil, erigon, besu, nethermind).
# Checked only after ALREADY_KNOWN and a look-up by hash: it is then not our transaction.
NONCE_TAKEN = re.compile(
    r"nonce too low|nonce_too_low|oldnonce|replacement (transaction )?underpriced|replacement_underpriced"
    r"|replacementnotallowed",
    re.IGNORECASE,
)


def refused_for_nonce(reason: str | None) -> bool:
    """Whether a node's refusal (as a record's `failedReason` keeps it) says another transaction has the nonce."""
    return bool(reason and NONCE_TAKEN.search(reason))


class NonceTakenError(ApiError):
    """The broadcast was refused because another transaction has its nonce (answered as BROADCAST_REJECTED)."""

    def __init__(self, reason: str) -> None:
        super().__init__(422, BROADCAST_REJECTED, f"The node refused the transaction: {reason}")


@dataclass(frozen=True)
class Call:
    to: str
    value: int
    data: bytes
    # Signed authorizations the call carries (a set-code, type-4 transaction): another account's, or the sender's
    # own at its nonce + 1 (the sender's nonce is raised before the list is applied).
    authorizations: tuple[SignedAuthorization, ...] = ()


@dataclass(frozen=True)
class Sent:
    """A recorded, claimed transaction. `confirmed`: a node accepted the broadcast; False when no node
    answered (it may or may not be out there: the tracker re-broadcasts it, never a new signature)."""

    network: str
    signed: SignedTx
    receipt: dict[str, Any]
    confirmed: bool


def send(
    network: Network,
    signer: Signer,
    call: Call,
    *,
    owner: str,
    kind: str,
    gas: int | None = None,
    gas_price: int | None = None,
    nonce: int | None = None,
    allocation: nonces.Allocation | None = None,
    also: Callable[[SignedTx], Plan] | None = None,
    ref: str | None = None,
    authorize: Callable[[int], SignedAuthorization] | None = None,
) -> Sent:
    """Send `call` from `signer` on `network`, recorded under `owner` (the list of transactions it belongs to).
    `ref`: what the owner's transaction is for (e.g. the withdrawal it pays), kept on the record for the owner's
    signer of its replacements (engine.Owner).
    `allocation`: a nonce the caller leased itself (it keeps the nonce across its own retries). `also`: the
    caller's part of the record's unit of work for the signed transaction (a Plan: its items, lists, event and
    `replan_on`; e.g. the custody withdrawal it pays), so a signed transaction is recorded (and then broadcast)
    only together with it. `authorize`: the sender's own authorization for a set-code transaction, signed once the
    nonce is taken; it is called with the nonce the authorization must name (the transaction's + 1).

    When the pipeline chose the nonce (neither `nonce` nor `allocation` given) and the node refuses the broadcast
    for it, the transaction is built, signed and broadcast once more at the chain's nonce read again; the refused
    one stays `failed`. A caller's own nonce is the caller's to change, and its `also` writes went with the first
    transaction's record."""
    try:
        return _send_once(network, signer, call, owner, kind, gas, gas_price, nonce, allocation, also, ref, authorize)
    except NonceTakenError as refused:
        if nonce is not None or allocation is not None or also is not None:
            raise
        logger.warning(
            "broadcast refused for its nonce; signing again at the chain's nonce",
            extra={"network": network.name, "sender": signer.address, "reason": refused.message[:200]},
        )
    return _send_once(network, signer, call, owner, kind, gas, gas_price, nonce, allocation, also, ref, authorize)


def _send_once(
    network: Network,
    signer: Signer,
    call: Call,
    owner: str,
    kind: str,
    gas: int | None,
    gas_price: int | None,
    nonce: int | None,
    allocation: nonces.Allocation | None,
    also: Callable[[SignedTx], Plan] | None,
    ref: str | None = None,
    authorize: Callable[[int], SignedAuthorization] | None = None,
) -> Sent:
    sender = signer.address
    caller_owns_nonce = allocation is not None  # then the caller gives it back, or keeps it for its own retry
    if allocation is not None:
        nonce = allocation.nonce
    estimate: dict[str, Any] = {"to": call.to, "value": hex(call.value), "data": "0x" + call.data.hex()}
    if call.authorizations:
        estimate["authorizationList"] = [entry.rpc() for entry in call.authorizations]
    quoted = fees.quote(network, sender, estimate, gas=gas, gas_price=gas_price, with_nonce=nonce is None)
    own_authorities = _own_authorizations(call, sender)
    _check_own_nonces(own_authorities, nonce if nonce is not None else int(quoted.pending_nonce or 0))
    gas_limit = quoted.gas
    if authorize is not None and gas is None:
        gas_limit += OWN_AUTHORIZATION_GAS + (DELEGATED_CALL_GAS if call.to.lower() == sender.lower() else 0)
    if quoted.balance < call.value + gas_limit * quoted.fees.cap:
        raise ApiError(
            422, INSUFFICIENT_FUNDS, f"Not enough {network.nativeSymbol} for the value plus gas on {network.name}"
        )
    left = deadline.remaining_s()
    signer.admit(None if left is None else left - GIVE_BACK_S - BROADCAST_NEEDS_S)  # before a nonce is taken
    state = tracking.read_send_state(owner, sender, network.chainId, with_nonce=nonce is None)
    if nonce is None:
        span = 2 if authorize is not None or own_authorities else 1  # its own authorization takes the next nonce
        allocation = nonces.allocate(sender, network.chainId, int(quoted.pending_nonce or 0), state.nonce_item, span)
        nonce = allocation.nonce
    try:
        with deadline.holding_back(GIVE_BACK_S):
            _check_own_nonces(own_authorities, nonce)  # the nonce taken may be above the one read
            own = () if authorize is None else (authorize(nonce + 1),)
            tx = UnsignedTx(
                chain_id=network.chainId,
                nonce=nonce,
                to=call.to,
                value=call.value,
                data=call.data,
                gas=gas_limit,
                gas_price=quoted.fees.gas_price,
                max_fee=quoted.fees.max_fee,
                max_priority_fee=quoted.fees.max_priority_fee,
                authorization_list=(*call.authorizations, *own),
            )
            signed = assemble(tx, sender, signer.sign_transaction(tx))
        body = receipt(signed)
    except BaseException:
        _release(None if caller_owns_nonce else allocation)
        raise
    recorded = _record(
        owner,
        network,
        signed,
        kind,
        body,
        allocation,
        state.list_count,
        also(signed) if also else None,
        caller_owns_nonce,
        ref,
    )
    give_back = allocation is not None and not allocation.reserved
    return _broadcast(network, _claim(recorded), signed, body, give_back=give_back)


def _own_authorizations(call: Call, sender: str) -> list[SignedAuthorization]:
    """The call's authorizations the sender signed itself."""
    return [entry for entry in call.authorizations if digests.authority(entry) == sender]


def _check_own_nonces(own: list[SignedAuthorization], nonce: int) -> None:
    """The sender's own authorization is applied after its nonce was raised for the transaction: at any other nonce
    the chain skips it, and the transaction would be sent for nothing."""
    for entry in own:
        if entry.nonce != nonce + 1:
            raise ApiError(
                422,
                AUTHORIZATION_NONCE_MISMATCH,
                f"The sender's own authorization names nonce {entry.nonce}; sent at nonce {nonce}, the transaction "
                f"applies it only at {nonce + 1}",
            )


def _release(allocation: nonces.Allocation | None) -> None:
    if allocation is None:
        return
    try:
        with deadline.finishing():  # also after a signing run that overran the request's time
            nonces.release(allocation)
    except Exception as exc:  # noqa: BLE001 - the lease runs out and the next allocation gives it back
        log_failure("nonce not given back; its lease will expire", exc)


def _record(
    owner: str,
    network: Network,
    signed: SignedTx,
    kind: str,
    body: dict[str, Any],
    allocation: nonces.Allocation | None,
    list_count: int,
    also: Plan | None,
    caller_owns_nonce: bool = False,
    ref: str | None = None,
) -> EvmTransaction:
    try:
        with deadline.holding_back(GIVE_BACK_S):
            return tracking.record(owner, network, signed, kind, body, allocation, list_count, also, ref)
    except tracking.SendExpiredError:
        raise  # the lease was recovered: the nonce is back already, nothing to undo
    except BaseException:
        # Did the record commit? If it did, the lease is gone and release() does nothing; the record then
        # needs a tracker in case its own message was not sent (a duplicate message ends at its step check).
        _release(None if caller_owns_nonce else allocation)
        try:
            with deadline.finishing():
                tracking.enqueue(signed.hash, 0, tracking.ORPHAN_CHECK_S)
        except Exception as exc:  # noqa: BLE001 - logged; the original error is what the caller sees
            log_failure("orphan check not queued", exc)
        raise


def _claim(tx: EvmTransaction) -> EvmTransaction:
    try:
        with deadline.holding_back(GIVE_BACK_S):
            deadline.require("broadcast", need_s=BROADCAST_NEEDS_S)
            claimed = tracking.claim(tx)
    except BaseException:
        try:  # not broadcast and never will be by this send: drop it now and give the nonce back
            with deadline.finishing():
                tracking.abandon(tx.hash)
        except Exception as exc:  # noqa: BLE001 - the tracker drops it after ORPHAN_CHECK_S
            log_failure("record not abandoned", exc)
        raise
    if claimed is None:
        raise tracking.SendExpiredError()
    return claimed


def _broadcast(
    network: Network, tx: EvmTransaction, signed: SignedTx, body: dict[str, Any], *, give_back: bool
) -> Sent:
    try:
        rpc_call(network, "eth_sendRawTransaction", ["0x" + signed.raw.hex()])
    except RpcError as exc:
        # Known already (another URL or the tracker delivered it, maybe it is even mined: "nonce too low"):
        # that is success. Only a refusal of a transaction the node does not have is a failure.
        known = True if ALREADY_KNOWN.search(str(exc)) else _known(network, signed.hash)
        if known is None:  # refused, and then no answer whether it has it: the tracker finds out
            return _unconfirmed(network, signed, body, "refused, then unknown")
        if not known:
            tracking.mark_refused(tx, str(exc), give_back)
            if refused_for_nonce(str(exc)):
                raise NonceTakenError(str(exc)[:200]) from None
            raise ApiError(422, BROADCAST_REJECTED, f"The node refused the transaction: {str(exc)[:200]}") from None
    except NO_ANSWER as exc:
        # No node answered (or the budget ran out): it may or may not be out there. It stays pending and
        # the tracker re-broadcasts it, then settles it; never sign anew.
        return _unconfirmed(network, signed, body, exc.code)
    if signed.tx.type != 0:
        # For a typed transaction the node, not the transaction, defines `gasPrice` (what it would charge
        # now); take its word so the answer is what ethers shows for this hash. The stored receipt gets the
        # node's figure at the tracker's first check, in the write that check makes anyway.
        body = {**body, "gasPrice": _node_gas_price(network, signed.hash) or body["gasPrice"]}
    logger.info("transaction sent", extra={"hash": signed.hash, "network": network.name, "nonce": signed.tx.nonce})
    return Sent(network.name, signed, body, confirmed=True)


def _unconfirmed(network: Network, signed: SignedTx, body: dict[str, Any], why: str) -> Sent:
    logger.warning("broadcast unconfirmed", extra={"hash": signed.hash, "reason": why})
    return Sent(network.name, signed, body, confirmed=False)


def _known(network: Network, tx_hash: str) -> bool | None:
    """Whether the node has our transaction, pending or mined; None when it cannot say (then the nonce is
    not given back: it may be in use; the tracker settles the record)."""
    try:
        receipt, seen = rpc.rpc_batch(
            network, [("eth_getTransactionReceipt", [tx_hash]), ("eth_getTransactionByHash", [tx_hash])]
        )
    except NO_ANSWER:
        return None
    if isinstance(receipt, RpcError) or isinstance(seen, RpcError):
        return None
    return receipt is not None or seen is not None


def _node_gas_price(network: Network, tx_hash: str) -> str | None:
    try:
        seen = rpc_call(network, "eth_getTransactionByHash", [tx_hash])
        return str(quantity(seen["gasPrice"])) if isinstance(seen, dict) and seen.get("gasPrice") else None
    except (RpcError, *NO_ANSWER, ValueError):
        return None  # the send succeeded; the fee cap stands in
