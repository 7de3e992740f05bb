"""Following a submitted user operation to its end, and settling its gas-tank charge once.

The tracker (SQS `userop-tracker`, function `track_user_op`) asks the bundler for the receipt. A receipt settles
the operation `success` (or `failed` when its execution reverted) with the actual cost (`actualGasCost`).
Without one, once `validUntil` (plus a grace minute) has passed, the chain is the judge (inclusion.py): the
EntryPoint's `UserOperationEvent` settles it as the receipt would (a bundler may forget an operation it
included); a chain past `validUntil` without it settles it `failed` ("expired") with a full refund; otherwise
it looks again later, however long the chain takes. What one check concludes is `decide` (the reads go through
chain.ChainReader); the moves of the operation are its table (models.UserOpRecord.machine).

Settling is one transaction, conditional on the operation still being `on_process`: the operation's final
state, the usage record's actual amounts and refund, the refund credited back to the payer's tank, the account
becoming `deployed` when the operation deployed it, and the `userOp.success`/`userOp.failed` event (outbox). A
message delivered twice, or a settle racing another, moves no money twice.

An operation in flight stays in the table's `due` index (platform/followups.py) with the time by which the tracker
should have looked at it again; the tracker moves that time on while it keeps coming back, and the schedule
`requeue_user_ops` queues a check for an operation whose tracker went quiet (a message lost, dead-lettered, or
never sent after the submit's commit).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from chalicelib.evm.abi import decode
from chalicelib.gas_tanks import alerts, charges, sponsorship
from chalicelib.gas_tanks import store as tanks
from chalicelib.platform import aws, clock, followups, unit_of_work
from chalicelib.platform.clock import epoch, iso_now
from chalicelib.platform.logging import logger
from chalicelib.platform.networks import Network, registry
from chalicelib.platform.transitions import ABSENT, moved, transition
from chalicelib.platform.unit_of_work import Event, Plan
from chalicelib.smart_accounts import service as smart_accounts
from chalicelib.user_ops import store
from chalicelib.user_ops.chain import NETWORK, ChainReader, ChainUnavailableError
from chalicelib.user_ops.inclusion import Receipt
from chalicelib.user_ops.models import UserOpRecord
from chalicelib.user_ops.views import view

TRACKER = "userop-tracker"
FIRST_CHECK_S = 2
GRACE_S = 60  # a bundler may include an operation a little after validUntil by its own clock
MAX_DELAY_S = 60
QUIET_S = 300  # no check due for this long (beyond the queue's visibility timeout): the tracker went quiet
EXPIRED = "expired: not included before validUntil"
SETTLE_ATTEMPTS = 24  # a sponsored operation's settle races the app's concurrent sponsored submits on its windows
# One chain of checks per operation; the step token is the operation's due time as the chain set it.
FOLLOW_UPS = followups.FollowUp(TRACKER, step_field="due")
IN_FLIGHT = followups.Requeue(store.TABLE, "on_process", QUIET_S)


@dataclass(frozen=True)
class Decision:
    """What a look at an operation in flight concludes: settle it (with the receipt, or failed for a reason), or
    neither (look again later)."""

    receipt: Receipt | None = None
    failed_reason: str | None = None

    @property
    def settles(self) -> bool:
        return self.receipt is not None or self.failed_reason is not None


LOOK_AGAIN = Decision()


def enqueue(user_op_id: str, due_at: str, attempt: int = 1, delay_s: int = FIRST_CHECK_S) -> None:
    """Queue a check. `due_at` is the operation's due time as this chain of checks set it: a check that finds
    another one stops (the sweep started a new chain), so an operation has one chain of checks at a time."""
    FOLLOW_UPS.send({"userOpId": user_op_id, "attempt": attempt, "due": due_at}, delay_s)


def check(body: dict[str, Any], chain: ChainReader = NETWORK) -> None:
    user_op_id, attempt = str(body["userOpId"]), int(body.get("attempt", 1))
    op = store.get(user_op_id)
    if op is None or op.status != "on_process":
        return  # settled already
    if FOLLOW_UPS.stale(body, op.dueAt):
        return  # a later chain of checks took over (the sweep's, for a message that was only late)
    decision = decide(op, registry().by_chain_id(op.chainId), chain, epoch())
    if decision.settles:
        settle(user_op_id, receipt=decision.receipt, failed_reason=decision.failed_reason)
    else:
        _again(op, attempt)


def decide(op: UserOpRecord, network: Network | None, chain: ChainReader, now: int) -> Decision:
    """One check of an operation in flight at `now` (Unix seconds): the bundler's receipt settles it; past its
    validUntil and the grace, the chain's verdict does; otherwise (or when nothing could be read) look again."""
    if network is None:
        return LOOK_AGAIN  # its network left the configuration: nothing can be read, keep it
    try:
        receipt = chain.receipt(network, op)
    except ChainUnavailableError as exc:
        logger.warning("user operation receipt unavailable", extra={"userOpId": op.id, "reason": str(exc)})
        receipt = None
    if receipt is not None:
        return Decision(receipt=receipt)
    if now <= op.validUntilEpoch + GRACE_S:
        return LOOK_AGAIN
    try:
        verdict = chain.verdict(network, op)
    except ChainUnavailableError as exc:
        logger.warning(
            "user operation not judged: the chain could not be read", extra={"userOpId": op.id, "reason": str(exc)}
        )
        return LOOK_AGAIN
    if verdict.receipt is not None:
        return Decision(receipt=verdict.receipt)
    if verdict.excluded:
        return Decision(failed_reason=EXPIRED)
    return LOOK_AGAIN


def decide_refused(op: UserOpRecord, network: Network | None, chain: ChainReader, reason: str) -> Decision:
    """The bundler refused the operation at submit: it fails for `reason`, unless the chain holds it already; a
    chain that cannot say leaves it to the tracker (LOOK_AGAIN)."""
    try:
        receipt = chain.included(network, op) if network is not None else None
    except ChainUnavailableError as exc:
        logger.warning(
            "user operation refused; the chain could not be read", extra={"userOpId": op.id, "reason": str(exc)}
        )
        return LOOK_AGAIN
    return Decision(receipt=receipt) if receipt is not None else Decision(failed_reason=reason)


def refused(user_op_id: str, reason: str, chain: ChainReader = NETWORK) -> None:
    """The bundler refused the operation at submit (the first one that answered; none failed before it)."""
    op = store.get(user_op_id)
    if op is None or op.status != "on_process":
        return
    decision = decide_refused(op, registry().by_chain_id(op.chainId), chain, reason)
    if decision.settles:
        settle(user_op_id, receipt=decision.receipt, failed_reason=decision.failed_reason)


def requeue_quiet(limit: int = 100) -> int:
    """The schedule's safety net: queue a check of each operation in flight whose tracker went quiet."""
    return IN_FLIGHT.sweep(lambda item: enqueue(str(item["id"]), str(item["dueAt"]), 1, 0), limit)


def _again(op: UserOpRecord, attempt: int) -> None:
    """Look again later; the operation's due time moves on first when it would pass before that check."""
    delay = min(MAX_DELAY_S, 2 * attempt)
    due_at = op.dueAt or ""
    if due_at < clock.iso_in(delay + QUIET_S / 2):
        later: dict[str, Any] = IN_FLIGHT.due(delay)
        try:
            aws.write(transition(op, "on_process", expect={"dueAt": op.dueAt or ABSENT}, **later))
        except aws.ConditionFailedError:
            return  # settled, or another chain of checks took over, meanwhile
        due_at = str(later["dueAt"])
    enqueue(op.id, due_at, attempt + 1, delay)


def settle(user_op_id: str, receipt: Receipt | None = None, failed_reason: str | None = None) -> bool:
    """Final state and money, once; False when the operation was settled already."""
    op = store.get(user_op_id)
    if op is None or op.status != "on_process":
        return False
    assert op.payerTankId is not None and op.usageSeq is not None
    deducted, deducted_native = int(op.deducted or 0), int(op.deductedNative or 0)
    network = registry().by_chain_id(op.chainId)
    now = iso_now()
    actual_native = receipt.actual_gas_cost if receipt else 0
    cost = charges.charge(network, actual_native) if (network and receipt) else charges.Charge(0, 0, 0, 0)
    charged = min(cost.total, deducted)  # the reservation covers the worst case; never charge beyond it
    refund = deducted - charged
    success = bool(receipt and receipt.success)
    changes: dict[str, Any] = {"updatedAt": now}
    if receipt is not None:
        changes["txHash"] = receipt.tx_hash
    if success:
        status = "success"
        changes["successAt"] = now
    else:
        status = "failed"
        changes.update(failedAt=now, failedReason=failed_reason or _revert_reason(receipt))
    usage_changes = {
        "amountInNative": str(actual_native),
        "amountInGasTank": str(charged),
        "clientFeeInGasTank": str(cost.client_fee if charged == cost.total else 0),
        "serviceFeeInGasTank": str(cost.service_fee if charged == cost.total else 0),
        "refundedAmountInNative": str(max(0, deducted_native - actual_native)),
        "refundedAmountInGasTank": str(refund),
        "refundedAt": now,
    }
    writes = [
        transition(op, status, **changes),
        tanks.usage_settled(op.payerTankId, op.usageSeq, usage_changes),
    ]
    if refund:
        writes.append(tanks.credit(op.payerTankId, refund, now))
    if receipt is not None and op.deploys:
        writes.append(smart_accounts.deployed(op.accountId, now))
    event = "userOp.success" if success else "userOp.failed"
    data = view(moved(op, status, **changes)).model_dump(mode="json", exclude={"clientGasTankUsageHistory"})
    counted_in = (op.model_extra or {}).get("sponsoredIn")

    def plan() -> Plan:
        # A sponsored operation's caps count what it was charged: its refund leaves the windows it was counted in.
        back = (
            sponsorship.taken_back(op.appId, op.ownerId, counted_in, refund, uncounted=charged == 0)
            if counted_in and refund
            else []
        )
        return Plan(
            items=[*writes, *back],
            event=Event(op.appId, event, f"{event}:{user_op_id}", data),
            replan_on=sponsorship.WINDOWS,
        )

    try:
        unit_of_work.commit(plan, attempts=SETTLE_ATTEMPTS)
    except aws.TransactionCancelledError as exc:
        if exc.condition_failed(UserOpRecord.machine.name):
            return False
        raise
    logger.info("user operation settled", extra={"userOpId": user_op_id, "status": status, "refund": refund})
    alerts.after_spend(op.payerTankId, op.appId)
    return True


def _revert_reason(receipt: Receipt | None) -> str:
    """The bundler's revert data for a failed execution, decoded when it is Error(string)."""
    reason = receipt.reason if receipt else ""
    if reason.startswith("0x08c379a0"):
        try:
            return "execution reverted: " + str(decode(["string"], bytes.fromhex(reason[10:]))[0])[:300]
        except ValueError:
            pass
    return f"execution reverted{': ' + reason[:300] if reason and reason != '0x' else ''}"
