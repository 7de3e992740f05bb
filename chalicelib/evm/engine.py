"""The transaction engine's tracker: every recorded transaction followed to its end, re-priced while it is stuck,
the nonces under it filled, and replaced at an integrator's request (speed-up, cancel).

One record per nonce (tracking.py): the first send's, plus the replacements signed at its nonce (`attempts`),
each hash an alias of the record. A tracker step (one SQS message of the record's one chain of follow-ups):

1. reads, in one JSON-RPC batch, the receipt of every hash of the record, the newest one as the node holds it,
   the latest block, the market's fees and the account's mined nonce;
2. settles on a receipt of ANY of the hashes: `mined` (`cancelled` when the mined one is a cancel) or `failed`,
   with `minedHash`; only one transaction can be mined at a nonce, so a payment is made at most once;
3. a `pending` record the node does not hold: `dropped` on proof that its nonce was used by another transaction,
   else the newest signature is broadcast again;
4. re-prices a `pending` record whose newest signature is older than `tx_bump_after_s` and priced below what
   the chain asks now (or that the node refused when broadcast again), unless an earlier nonce of the sender is
   unmined (that one holds it up): fees raised by at least fees.BUMP_PERCENT up to the network's ceiling
   (fees.bumped) and within the sender's funds, signed again at its nonce by the owner's signer, recorded,
   broadcast. At the ceiling it stays `pending`, logged once;
5. fills the gaps under a `pending` record older than `nonce_gap_fill_s`: a nonce between the account's mined
   nonce and the record's that nobody owns (given back by a send that died, or a lease past its time) is signed
   as a 0-value send to the sender itself (`kind: "gap_fill"`), unless a send took it first;
6. logs a record pending longer than `tx_stuck_alert_s` once at warning.

Owners (the domains whose transactions these are) register the kinds they send and the signer of a record
(`register`); a record of a kind nobody registered is tracked, not re-priced. Replacements count once at the
cosigner: the same payment at the same nonce (chalicelib/policies, docs/policies.md).
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from chalicelib.evm import fees, nonces, pipeline, rpc, tracking
from chalicelib.evm.fees import Fees, Market
from chalicelib.evm.pipeline import Sent
from chalicelib.evm.rpc import NO_ANSWER, RpcError, quantity, rpc_call
from chalicelib.evm.signer import Signer
from chalicelib.evm.tracking import FIRST_CHECK_S, ORPHAN_CHECK_S, QUEUE, UNSETTLED, EvmTransaction
from chalicelib.evm.transactions import SignedTx, UnsignedTx, assemble, receipt
from chalicelib.platform import aws, clock, deadline, followups
from chalicelib.platform.errors import UPSTREAM_UNAVAILABLE, ApiError
from chalicelib.platform.hooks import Hooks
from chalicelib.platform.logging import log_failure, logger
from chalicelib.platform.networks import Network, resolve
from chalicelib.platform.settings import load_settings

__all__ = ["OWNERS", "QUEUE", "Owner", "cancel", "check", "on_message", "register", "speed_up"]

GAP_FILL = "gap_fill"
TRANSACTION_FINAL = "TRANSACTION_FINAL"
REPLACEMENT_UNDERPRICED = "REPLACEMENT_UNDERPRICED"
FEE_ABOVE_CEILING = "FEE_ABOVE_CEILING"
GAP_FILLS_PER_CHECK = 4  # each costs a signature; the next step fills more
RECORD_ATTEMPTS = 5  # a replacement recorded on a record that tracker steps keep moving
REPORT_DELAYS_S = (2, 4, 8, 15, 30, 60, 120, 300, 900)  # an owner waiting on a settled record (confirmations)


@dataclass(frozen=True)
class Owner:
    """A domain's transactions: the kinds it records, and the signer of one of its records (the same key that
    signed it first; a replacement is what that key's cosigner allows as one)."""

    kinds: frozenset[str]
    signer: Callable[[EvmTransaction], Signer]
    fills_gaps: bool = True  # False for owners whose nonces are reserved per payment (a gap is its holder's)
    # Told of each settled record (mined, failed, dropped, cancelled) on its chain of follow-ups until it answers
    # True (done with it): e.g. custody waits for confirmations and settles the withdrawal the transaction pays.
    on_settled: Callable[[EvmTransaction], bool] | None = None


OWNERS: Hooks[Owner] = Hooks("transaction owner")  # by the kind of transaction


def register(owner: Owner) -> None:
    """Called by `wiring.wire()` for each owner: its kinds of transaction are its."""
    for kind in owner.kinds:
        OWNERS.register(kind, owner)


def _signer(tx: EvmTransaction) -> Signer | None:
    owner = OWNERS.get(tx.kind)
    return None if owner is None else owner.signer(tx)


# --- speed-up and cancel --------------------------------------------------------------------------------------


def speed_up(tx: EvmTransaction, signer: Signer, offered: Fees | None, effect: dict[str, str] | None) -> Sent:
    """Replace the `pending` record's newest signature with the same transaction at higher fees (`offered`, or the
    next bump); the replacement as sent. ApiError: 409 TRANSACTION_FINAL, 409 REPLACEMENT_UNDERPRICED, 422
    FEE_ABOVE_CEILING. `effect`: the Idempotency-Key's, written with the replacement's record."""
    return _requested(tx, signer, offered, "speed_up", cancel=tx.cancelling, effect=effect)


def cancel(tx: EvmTransaction, signer: Signer, effect: dict[str, str] | None) -> Sent:
    """Replace the `pending` record's newest signature with a 0-value send to the sender at its nonce, at the next
    bump's fees; the replacement as sent (the record is `cancelled` once that is mined)."""
    return _requested(tx, signer, None, "cancel", cancel=True, effect=effect)


def _requested(
    tx: EvmTransaction,
    signer: Signer,
    offered: Fees | None,
    reason: str,
    *,
    cancel: bool,
    effect: dict[str, str] | None,
) -> Sent:
    if tx.status != "pending":
        raise ApiError(409, TRANSACTION_FINAL, f"The transaction is {tx.status}: it can no longer be replaced")
    network = resolve(None, str(tx.chainId))
    current = _fees_of(tx.unsigned())
    ceiling = fees.ceiling(network, _first_cap(tx))
    if offered is not None and not fees.high_enough(current, offered):
        kind = "gasPrice" if current.gas_price is not None else "maxFeePerGas and maxPriorityFeePerGas"
        raise ApiError(
            409,
            REPLACEMENT_UNDERPRICED,
            f"A replacement must offer {kind} at least {fees.BUMP_PERCENT}% above the current transaction's",
        )
    if offered is not None and offered.cap > ceiling:
        raise ApiError(422, FEE_ABOVE_CEILING, f"At most {ceiling} wei per gas on {network.name}")
    market, balance = _market(network, tx.sender)
    if offered is None:
        offered = fees.bumped(current, market, ceiling)
        if offered is None:
            raise ApiError(422, FEE_ABOVE_CEILING, f"The fees are at {network.name}'s ceiling of {ceiling} wei per gas")
    if _cost(_replacement_of(tx, offered, cancel)) > balance:
        raise ApiError(
            422, fees.INSUFFICIENT_FUNDS, f"Not enough {network.nativeSymbol} for the value plus gas at these fees"
        )
    left = deadline.remaining_s()
    signer.admit(None if left is None else left - pipeline.GIVE_BACK_S - pipeline.BROADCAST_NEEDS_S)
    replaced = _replace(tx, network, signer, offered, reason, cancel=cancel, effect=effect, answer_refusal=True)
    if replaced is None:
        raise ApiError(409, TRANSACTION_FINAL, "The transaction changed meanwhile (mined or replaced); read it again")
    return replaced[1]


def _replace(
    tx: EvmTransaction,
    network: Network,
    signer: Signer,
    offered: Fees,
    reason: str,
    *,
    cancel: bool,
    effect: dict[str, str] | None = None,
    answer_refusal: bool = False,
) -> tuple[EvmTransaction, Sent] | None:
    """Sign the record's transaction (or, for a cancel, the no-op) at its nonce with `offered` fees, record it, then
    broadcast it: the record as replaced and the replacement as sent; None when the record moved before the
    replacement was recorded (then it is never broadcast). Signed but not recorded (a crash between the two) leaves
    nothing to undo: only a recorded signature is ever broadcast. `answer_refusal`: a node's refusal of the broadcast
    is raised (422 BROADCAST_REJECTED; the replacement stays recorded, the earlier signatures stay on their way);
    otherwise it is logged and the next tracker step re-prices or settles."""
    unsigned = _replacement_of(tx, offered, cancel)
    with deadline.holding_back(pipeline.GIVE_BACK_S):
        signed = assemble(unsigned, tx.sender, signer.sign_transaction(unsigned))
        replaced = _record_replacement(tx, signed, offered, reason, cancel, effect)
    if replaced is None:
        return None
    logger.info(
        "transaction replaced",
        extra={"hash": tx.hash, "replacement": signed.hash, "reason": reason, "nonce": tx.nonce, "fees": offered.cap},
    )
    confirmed = True
    try:
        rpc_call(network, "eth_sendRawTransaction", ["0x" + signed.raw.hex()])
    except RpcError as exc:
        if not pipeline.ALREADY_KNOWN.search(str(exc)):  # the tracker broadcasts it again, or re-prices it
            logger.warning("replacement refused", extra={"hash": signed.hash, "reason": str(exc)[:200]})
            if answer_refusal:
                raise ApiError(
                    422,
                    pipeline.BROADCAST_REJECTED,
                    f"The node refused the replacement: {str(exc)[:200]}; the transaction stays pending",
                ) from None
    except NO_ANSWER:
        confirmed = False
        logger.warning("replacement unconfirmed", extra={"hash": signed.hash})
    return replaced, Sent(network.name, signed, receipt(signed), confirmed)


def _record_replacement(
    tx: EvmTransaction, signed: SignedTx, offered: Fees, reason: str, cancel: bool, effect: dict[str, str] | None
) -> EvmTransaction | None:
    """Record `signed` on the record as read, or, when a tracker step moved the record meanwhile (it counts every
    check), on the record as it now is if it still replaces it: still `pending`, the same kind of payload, and
    `offered` still high enough over its newest signature. None otherwise."""
    for _ in range(RECORD_ATTEMPTS):
        replaced = tracking.replace(tx, signed, reason, cancel, effect)
        if replaced is not None:
            return replaced
        fresh = tracking.read(tx.hash)
        if fresh is None or fresh.status != "pending" or (fresh.cancelling and not cancel):
            return None
        if fresh.latest_hash != tx.latest_hash and not fees.high_enough(_fees_of(fresh.unsigned()), offered):
            return None
        tx = fresh
    return None


def _replacement_of(tx: EvmTransaction, offered: Fees, cancel: bool) -> UnsignedTx:
    """The record's newest transaction (or, for a first cancel, the no-op) at its nonce with `offered` fees."""
    base = tx.unsigned()
    if cancel and not tx.cancelling:
        base = UnsignedTx(tx.chainId, tx.nonce, tx.sender, 0, b"", tracking.CANCEL_GAS)
    # A set-code transaction keeps its authorizations: they are valid at the same nonce.
    return dataclasses.replace(
        base, gas_price=offered.gas_price, max_fee=offered.max_fee, max_priority_fee=offered.max_priority_fee
    )


def _cost(tx: UnsignedTx) -> int:
    """The most the transaction can take from its sender: its value and its gas at its fee cap."""
    return tx.value + tx.gas * (tx.gas_price if tx.gas_price is not None else tx.max_fee or 0)


def _fees_of(tx: UnsignedTx) -> Fees:
    return Fees(gas_price=tx.gas_price, max_fee=tx.max_fee, max_priority_fee=tx.max_priority_fee)


def _first_cap(tx: EvmTransaction) -> int:
    sent = json.loads(tx.receipt)
    return int(sent["gasPrice"] if sent.get("type") == 0 else sent["maxFeePerGas"])


def _market(network: Network, sender: str) -> tuple[Market, int]:
    """What the chain asks now, and the sender's balance, in one round trip."""
    block, tip, price, balance = rpc.rpc_batch(
        network,
        [
            ("eth_getBlockByNumber", ["latest", False]),
            ("eth_maxPriorityFeePerGas", []),
            ("eth_gasPrice", []),
            ("eth_getBalance", [sender, "latest"]),
        ],
    )
    market = _market_of(block, tip, price)
    if market is None or isinstance(balance, RpcError):
        raise ApiError(502, UPSTREAM_UNAVAILABLE, f"The node of {network.name} did not say what the chain asks")
    return market, quantity(balance)


def _market_of(block: Any, tip: Any, price: Any) -> Market | None:
    try:
        gas_price = quantity(price)
        base = block.get("baseFeePerGas") if isinstance(block, dict) else None
        suggested = fees.DEFAULT_PRIORITY_FEE if isinstance(tip, RpcError) else quantity(tip)
        return Market(None if base is None else quantity(base), suggested, gas_price)
    except (TypeError, ValueError):
        return None


# --- the tracker ------------------------------------------------------------------------------------------------


def on_message(body: dict[str, Any]) -> None:
    """The tracker queue's per-record handler (evm/functions.py); every message names its step."""
    check(str(body["hash"]), int(body["step"]))


def check(tx_hash: str, step: int | None = None) -> None:
    """One tracker step: settle the transaction or look again later (exactly one successor).

    `step`: the `checks` count the record must be at; a message for another step is a duplicate delivery
    or a leftover and ends here (None: a direct call, at whatever step the record is)."""
    tx = tracking.read(tx_hash)
    if tx is None or followups.is_stale(step, tx.checks):
        return
    if tx.status not in UNSETTLED:
        _report(tx)
        return
    checks = tx.checks + 1
    if tx.status == "signing":
        if _age_s(tx.createdAt) < ORPHAN_CHECK_S:
            _again(tx, checks)  # its request may still be on its way to the claim: no verdict yet
        elif tracking.drop_unsent(tx, checks) and _owner_waits(tx):
            # Never claimed (a claim since the read fails the drop), so never broadcast: its send ended with an
            # error, and it must not go out now.
            tracking.enqueue(tx.hash, checks, FIRST_CHECK_S)
        return
    network = resolve(None, str(tx.chainId))
    hashes = tx.hashes
    reads: list[tuple[str, list[Any]]] = [("eth_getTransactionReceipt", [h]) for h in hashes]
    reads += [
        ("eth_getTransactionByHash", [tx.latest_hash]),
        ("eth_getBlockByNumber", ["latest", False]),
        ("eth_maxPriorityFeePerGas", []),
        ("eth_gasPrice", []),
        ("eth_getTransactionCount", [tx.sender, "latest"]),
        ("eth_getBalance", [tx.sender, "latest"]),
    ]
    try:
        answers = rpc.rpc_batch(network, reads)
    except NO_ANSWER:
        _again(tx, checks)  # no node answered: no verdict
        return
    receipts, (known, block, tip, price, mined, balance) = answers[: len(hashes)], answers[len(hashes) :]
    if any(isinstance(a, RpcError) for a in (*receipts, known)):
        _again(tx, checks)
        return
    checked = {"checks": checks, **({} if tx.attempts else _node_gas_price(tx, known))}
    for mined_hash, found in zip(hashes, receipts, strict=True):
        if isinstance(found, dict):
            _settle(tx, mined_hash, found, checked)
            return
    refused: str | None = None
    if known is None:
        if _nonce_used_by_another(tx, network):
            dropped = _step_move(tx, "dropped", failedReason="its nonce was used by another transaction", checks=checks)
            if dropped and _owner_waits(tx):
                tracking.enqueue(tx.hash, checks, FIRST_CHECK_S)
            return
        refused = _broadcast_again(network, tx.raw)
    market = _market_of(block, tip, price)
    chain = _quantities(mined, balance)
    values: dict[str, Any] = dict(checked)
    if market is not None and chain is not None:
        tx, values = _reprice(tx, network, market, refused, values, *chain)
    if chain is not None:
        _fill_gaps(tx, network, chain[0])
    if not tx.stuckAlerted and _age_s(tx.createdAt) >= load_settings().tx_stuck_alert_s:
        cap = _fees_of(tx.unsigned())
        logger.warning(
            "transaction stuck",
            extra={
                "hash": tx.hash,
                "walletId": tx.walletId,
                "sender": tx.sender,
                "nonce": tx.nonce,
                "gasPrice": cap.gas_price,
                "maxFeePerGas": cap.max_fee,
                "maxPriorityFeePerGas": cap.max_priority_fee,
                "replacements": len(tx.attempts),
            },
        )
        values["stuckAlerted"] = True
    _again(tx, checks, values)


def _broadcast_again(network: Network, raw: str) -> str | None:
    """Broadcast the newest signature again (e.g. a node restarted and lost its pool); the node's refusal, if any."""
    try:
        rpc_call(network, "eth_sendRawTransaction", [raw])
    except RpcError as exc:
        return None if pipeline.ALREADY_KNOWN.search(str(exc)) else str(exc)
    except NO_ANSWER:
        return None
    return None


def _quantities(mined: Any, balance: Any) -> tuple[int, int] | None:
    """The account's mined nonce and balance as the step read them; None when the node did not answer both."""
    try:
        return quantity(mined), quantity(balance)
    except (TypeError, ValueError):
        return None


def _reprice(
    tx: EvmTransaction,
    network: Network,
    market: Market,
    refused: str | None,
    values: dict[str, Any],
    mined_nonce: int,
    balance: int,
) -> tuple[EvmTransaction, dict[str, Any]]:
    """Sign the record again at higher fees when its newest signature is due and priced out (or refused by the node
    when broadcast again); the record as it now is and what the step still writes. Not while an earlier nonce of the
    sender is unmined (that one holds it up, and is re-priced or filled first), and not beyond the sender's funds.
    A failed attempt waits `tx_bump_after_s` again."""
    current = _fees_of(tx.unsigned())
    priced_out = market.needs(current) or refused is not None
    if not priced_out or _age_s(tx.pricedAt or tx.createdAt) < load_settings().tx_bump_after_s:
        return tx, values
    signer = _signer(tx)
    if signer is None or mined_nonce < tx.nonce:
        return tx, values
    offered = fees.bumped(current, market, fees.ceiling(network, _first_cap(tx)))
    if offered is None:
        if not tx.atCeiling:
            logger.warning(
                "transaction at its fee ceiling: not re-priced",
                extra={"hash": tx.hash, "nonce": tx.nonce, "walletId": tx.walletId, "fees": current.cap},
            )
        return tx, {**values, "atCeiling": True}
    later = {**values, "pricedAt": clock.iso_now()}
    if _cost(_replacement_of(tx, offered, tx.cancelling)) > balance:
        logger.warning(
            "transaction not re-priced: not enough funds for the value plus gas at the next price",
            extra={"hash": tx.hash, "nonce": tx.nonce, "walletId": tx.walletId, "fees": offered.cap},
        )
        return tx, later
    try:
        replaced = _replace(tx, network, signer, offered, "bump", cancel=tx.cancelling)
    except Exception as exc:  # noqa: BLE001 - a refusal or an unavailable signer: a later step tries again
        log_failure("transaction not re-priced", exc)
        return tx, later
    if replaced is None:
        return tx, values  # another step moved the record: this step's count is lost with it
    return replaced[0], values


def _fill_gaps(tx: EvmTransaction, network: Network, mined_nonce: int) -> None:
    """Fill the nonces under `tx` that nobody owns with 0-value sends to the sender (gap fills), once `tx` has
    waited `nonce_gap_fill_s`: the nonce is taken back from `given` under a lease, so a send that takes it first
    wins and no gap fill is signed for it."""
    if mined_nonce >= tx.nonce or _age_s(tx.createdAt) < load_settings().nonce_gap_fill_s:
        return
    owner = OWNERS.get(tx.kind)
    if owner is None or not owner.fills_gaps:
        return
    signer = owner.signer(tx)
    for nonce in nonces.free_below(tx.sender, tx.chainId, mined_nonce, tx.nonce)[:GAP_FILLS_PER_CHECK]:
        allocation = nonces.take_given(tx.sender, tx.chainId, nonce)
        if allocation is None:
            continue  # a send took it
        try:
            sent = pipeline.send(
                network,
                signer,
                pipeline.Call(tx.sender, 0, b""),
                owner=tx.walletId,
                kind=GAP_FILL,
                gas=tracking.CANCEL_GAS,
                allocation=allocation,
            )
        except Exception as exc:  # noqa: BLE001 - its nonce is given back; the next step tries again
            with contextlib.suppress(Exception):
                nonces.release(allocation)
            log_failure("gap not filled", exc)
            continue
        logger.warning(
            "nonce gap filled",
            extra={"sender": tx.sender, "chainId": tx.chainId, "nonce": nonce, "hash": sent.signed.hash},
        )


def _node_gas_price(tx: EvmTransaction, known: Any) -> dict[str, str]:
    """The stored receipt with the node's `gasPrice` for the transaction (for a typed transaction the node
    defines it: what it would charge now, what it charged once mined), when it differs from the stored one."""
    price = known.get("gasPrice") if isinstance(known, dict) else None
    try:
        stored = json.loads(tx.receipt)
        node = str(quantity(price))
    except ValueError:
        return {}
    if not isinstance(stored, dict) or stored.get("type") in (None, 0) or stored.get("gasPrice") == node:
        return {}
    return {"receipt": json.dumps({**stored, "gasPrice": node}, separators=(",", ":"))}


def _report(tx: EvmTransaction) -> None:
    """A settled record's step: its owner is told until it is done with it, on the record's one chain."""
    owner = OWNERS.get(tx.kind)
    if owner is None or owner.on_settled is None or tx.ownerDone:
        return
    done = owner.on_settled(tx)
    checks = tx.checks + 1
    if done:
        with contextlib.suppress(aws.ItemBusyError):
            tracking.move(tx, tx.status, ownerDone=True, checks=checks)
        return
    # The owner may have moved the record (a reorg: back to `pending` with a step of its own, or re-mined
    # elsewhere): the step goes on from the record as it now is, unless another step took it.
    current = tx if tracking.move(tx, tx.status, checks=checks, reports=tx.reports + 1) else None
    if current is None:
        fresh = tracking.read(tx.hash)
        if fresh is None or fresh.status in UNSETTLED or fresh.checks != tx.checks:
            return
        if not tracking.move(fresh, fresh.status, checks=checks, reports=fresh.reports + 1):
            return
    tracking.enqueue(tx.hash, checks, followups.stepped(REPORT_DELAYS_S, tx.reports))


def _owner_waits(tx: EvmTransaction) -> bool:
    owner = OWNERS.get(tx.kind)
    return owner is not None and owner.on_settled is not None


def _settle(tx: EvmTransaction, mined_hash: str, receipt: dict[str, Any], checked: dict[str, Any]) -> None:
    ok = receipt.get("status") == "0x1"
    cancelled = any(a.hash == mined_hash and a.cancel for a in tx.attempts)
    # A cancel mined took the nonce whatever its status (a delegated wallet's self-send can run out of gas in its
    # delegate's code): the payment never happened either way.
    to = "cancelled" if cancelled else ("mined" if ok else "failed")
    settled = _step_move(
        tx,
        to,
        minedHash=mined_hash,
        blockNumber=quantity(receipt["blockNumber"]),
        blockHash=receipt["blockHash"],
        gasUsed=str(quantity(receipt["gasUsed"])),
        effectiveGasPrice=str(quantity(receipt.get("effectiveGasPrice") or "0x0")),
        **({} if ok else {"failedReason": "reverted on chain"}),
        **checked,
    )
    if settled:
        logger.info("transaction settled", extra={"hash": tx.hash, "minedHash": mined_hash, "status": to})
        if _owner_waits(tx):
            tracking.enqueue(tx.hash, checked["checks"], FIRST_CHECK_S)


def _age_s(since: str) -> float:
    return (clock.now() - clock.parse_iso(since)).total_seconds()


def _nonce_used_by_another(tx: EvmTransaction, network: Network) -> bool:
    """Proof that this transaction can never be mined: the account's mined nonce moved past it, and (asked
    after that read) none of its hashes has a receipt."""
    try:
        if rpc.transaction_count(network, tx.sender, "latest") <= tx.nonce:
            return False
        found = rpc.rpc_batch(network, [("eth_getTransactionReceipt", [h]) for h in tx.hashes])
    except (RpcError, *NO_ANSWER):
        return False  # no proof
    return all(r is None for r in found)


def _again(tx: EvmTransaction, checks: int, values: dict[str, Any] | None = None) -> None:
    """Count this check (with `values` learnt by it) and send the chain's one successor (a lost race means
    another step moved on)."""
    if _step_move(tx, tx.status, **(values or {"checks": checks})):
        _enqueue_next(tx.hash, checks)


def _step_move(tx: EvmTransaction, to: str, **changes: Any) -> bool:
    """A step's move of the record as it read it. When that lost to a writer that is no step (a speed-up or cancel
    recording a replacement, which leaves `checks` alone), it is made on the record as it now is: the step's chain
    goes on. False when another step moved the record (its chain goes on from there)."""
    for _ in range(RECORD_ATTEMPTS):
        if tracking.move(tx, to, **changes):
            return True
        fresh = tracking.read(tx.hash)
        if fresh is None or fresh.checks != tx.checks or fresh.status != tx.status:
            return False
        tx = fresh
    return False


def _enqueue_next(tx_hash: str, checks: int) -> None:
    """Doubling delays, at most the time after which a re-price or a gap fill may be due."""
    settings = load_settings()
    cap_s = max(FIRST_CHECK_S, min(settings.tx_bump_after_s, settings.nonce_gap_fill_s))
    tracking.enqueue(tx_hash, checks, followups.doubling(FIRST_CHECK_S, checks, cap_s))
