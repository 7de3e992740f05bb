"""Following a submitted user operation to its end, and settling its gas-tank charge once.

The tracker (SQS `userop-tracker`, function `track_user_op`) asks the bundler for the receipt. A receipt settles
the operation `success` (or `failed` when its execution reverted) with the actual cost (`actualGasCost`).
Without one, once `validUntil` (plus a grace minute) has passed, the chain is the judge (inclusion.py): the
EntryPoint's `UserOperationEvent` settles it as the receipt would (a bundler may forget an operation it
included); a chain past `validUntil` without it settles it `failed` ("expired") with a full refund; otherwise
it looks again later, however long the chain takes.

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

from typing import Any

from chalicelib.evm.abi import decode
from chalicelib.evm.logs import LogsUnavailableError
from chalicelib.gas_tanks import charges
from chalicelib.gas_tanks import store as tanks
from chalicelib.platform import aws, clock, followups, unit_of_work
from chalicelib.platform.chain import RpcError, rpc_call
from chalicelib.platform.clock import epoch, iso_now
from chalicelib.platform.errors import ApiError
from chalicelib.platform.logging import logger
from chalicelib.platform.networks import Network, registry
from chalicelib.platform.pagination import sequence_key
from chalicelib.platform.unit_of_work import Event, Plan
from chalicelib.smart_accounts import service as smart_accounts
from chalicelib.smart_accounts import store as accounts_store
from chalicelib.user_ops import inclusion, store
from chalicelib.user_ops.views import view

TRACKER = "userop-tracker"
FIRST_CHECK_S = 2
GRACE_S = 60  # a bundler may include an operation a little after validUntil by its own clock
MAX_DELAY_S = 60
QUIET_S = 300  # no check due for this long (beyond the queue's visibility timeout): the tracker went quiet
EXPIRED = "expired: not included before validUntil"
CHAIN_UNAVAILABLE = (RpcError, ApiError, LogsUnavailableError, ValueError)  # the node could not say: no verdict
# One chain of checks per operation; the step token is the operation's due time as the chain set it.
FOLLOW_UPS = followups.FollowUp(TRACKER, step_field="due")
IN_FLIGHT = followups.Requeue(store.TABLE, "on_process", QUIET_S)


def enqueue(user_op_id: str, due_at: str, attempt: int = 1, delay_s: int = FIRST_CHECK_S) -> None:
    """Queue a check. `due_at` is the operation's due time as this chain of checks set it: a check that finds
    another one stops (the sweep started a new chain), so an operation has one chain of checks at a time."""
    FOLLOW_UPS.send({"userOpId": user_op_id, "attempt": attempt, "due": due_at}, delay_s)


def check(body: dict[str, Any]) -> None:
    user_op_id, attempt = str(body["userOpId"]), int(body.get("attempt", 1))
    item = store.get(user_op_id)
    if item is None or item["status"] != "on_process":
        return  # settled already
    if FOLLOW_UPS.stale(body, item.get("dueAt")):
        return  # a later chain of checks took over (the sweep's, for a message that was only late)
    network = registry().by_chain_id(int(item["chainId"]))
    receipt = _bundler_receipt(network, item) if network is not None else None
    if receipt is not None:
        settle(user_op_id, receipt=receipt)
    elif network is None or epoch() <= int(item["validUntilEpoch"]) + GRACE_S or not _judged(network, item):
        _again(item, attempt)


def refused(user_op_id: str, reason: str) -> None:
    """The bundler refused the operation at submit (the first one that answered; none failed before it): it
    fails with a full refund, unless the chain holds it already. A node that cannot say leaves it to the tracker."""
    item = store.get(user_op_id)
    if item is None or item["status"] != "on_process":
        return
    network = registry().by_chain_id(int(item["chainId"]))
    try:
        receipt = inclusion.included(network, item) if network is not None else None
    except CHAIN_UNAVAILABLE as exc:
        logger.warning(
            "user operation refused; the chain could not be read", extra={"userOpId": user_op_id, "reason": str(exc)}
        )
        return
    if receipt is not None:
        settle(user_op_id, receipt=receipt)
    else:
        settle(user_op_id, failed_reason=reason)


def requeue_quiet(limit: int = 100) -> int:
    """The schedule's safety net: queue a check of each operation in flight whose tracker went quiet."""
    return IN_FLIGHT.sweep(lambda item: enqueue(str(item["id"]), str(item["dueAt"]), 1, 0), limit)


def _bundler_receipt(network: Network, item: dict[str, Any]) -> dict[str, Any] | None:
    try:
        receipt = rpc_call(network, "eth_getUserOperationReceipt", [item["userOpHash"]], bundler=True)
    except (RpcError, ApiError) as exc:
        logger.warning("user operation receipt unavailable", extra={"userOpId": item["id"], "reason": str(exc)})
        return None
    return receipt if isinstance(receipt, dict) else None


def _judged(network: Network, item: dict[str, Any]) -> bool:
    """Settle the operation from the chain if the chain has decided it; False while it has not."""
    try:
        verdict = inclusion.verdict(network, item)
    except CHAIN_UNAVAILABLE as exc:
        logger.warning(
            "user operation not judged: the chain could not be read", extra={"userOpId": item["id"], "reason": str(exc)}
        )
        return False
    if verdict.receipt is not None:
        settle(str(item["id"]), receipt=verdict.receipt)
    elif verdict.excluded:
        settle(str(item["id"]), failed_reason=EXPIRED)
    else:
        return False
    return True


def _again(item: dict[str, Any], attempt: int) -> None:
    """Look again later; the operation's due time moves on first when it would pass before that check."""
    delay = min(MAX_DELAY_S, 2 * attempt)
    due_at = str(item.get("dueAt") or "")
    if due_at < clock.iso_in(delay + QUIET_S / 2):
        moved = IN_FLIGHT.move_on("user-op", store.key(str(item["id"])), item.get("dueAt"), delay)
        if moved is None:
            return  # settled, or another chain of checks took over, meanwhile
        due_at = str(moved["dueAt"])
    enqueue(str(item["id"]), due_at, attempt + 1, delay)


def settle(user_op_id: str, receipt: dict[str, Any] | None = None, failed_reason: str | None = None) -> bool:
    """Final state and money, once; False when the operation was settled already."""
    item = store.get(user_op_id)
    if item is None or item["status"] != "on_process":
        return False
    network = registry().by_chain_id(int(item["chainId"]))
    now = iso_now()
    deducted, deducted_native = int(item["deducted"]), int(item["deductedNative"])
    actual_native = int(str(receipt["actualGasCost"]), 16) if receipt else 0
    cost = charges.charge(network, actual_native) if (network and receipt) else charges.Charge(0, 0, 0, 0)
    charged = min(cost.total, deducted)  # the reservation covers the worst case; never charge beyond it
    refund = deducted - charged
    success = bool(receipt and receipt.get("success"))
    changes: dict[str, Any] = {"updatedAt": now}
    if receipt is not None:
        changes["txHash"] = (receipt.get("receipt") or {}).get("transactionHash")
    if success:
        changes.update(status="success", successAt=now)
    else:
        reason = failed_reason or _revert_reason(receipt)
        changes.update(status="failed", failedAt=now, failedReason=reason)
    usage_changes = {
        "amountInNative": str(actual_native),
        "amountInGasTank": str(charged),
        "clientFeeInGasTank": str(cost.client_fee if charged == cost.total else 0),
        "serviceFeeInGasTank": str(cost.service_fee if charged == cost.total else 0),
        "refundedAmountInNative": str(max(0, deducted_native - actual_native)),
        "refundedAmountInGasTank": str(refund),
        "refundedAt": now,
    }
    tank_id = str(item["payerTankId"])
    writes = [
        aws.update(
            "user-op",
            store.TABLE,
            store.key(user_op_id),
            aws.Changes(set=changes, remove=list(followups.ENDED)),
            aws.Condition("#s = :on", {"#s": "status"}, {":on": "on_process"}),
        ),
        aws.update(
            "usage",
            tanks.TABLE,
            {"pk": tanks.usage(tank_id).list_key, "sk": sequence_key(int(item["usageSeq"]))},
            aws.Changes(set=usage_changes),
            aws.EXISTS,
        ),
    ]
    if refund:
        writes.append(
            aws.update(
                "tank",
                tanks.TABLE,
                tanks.tank_key(tank_id),
                aws.Changes(add={"balance": refund}, set={"updatedAt": now}),
                aws.EXISTS,
            )
        )
    if receipt is not None and item.get("deploys"):
        writes.append(_deployed(item, now))
    settled = {**item, **changes}
    event = "userOp.success" if success else "userOp.failed"
    try:
        data = view(settled).model_dump(mode="json", exclude={"clientGasTankUsageHistory"})
        unit_of_work.commit(Plan(items=writes, event=Event(str(item["appId"]), event, f"{event}:{user_op_id}", data)))
    except aws.TransactionCancelledError as exc:
        if exc.condition_failed("user-op"):
            return False
        raise
    logger.info("user operation settled", extra={"userOpId": user_op_id, "status": changes["status"], "refund": refund})
    return True


def _deployed(item: dict[str, Any], now: str) -> aws.TxItem:
    found = accounts_store.account_by_id(str(item["accountId"]))
    assert found is not None
    account, _ = found
    return aws.update(
        "account",
        accounts_store.TABLE,
        accounts_store.account_key(str(account["ownerId"]), int(account["chainId"])),
        aws.Changes(set={"status": smart_accounts.DEPLOYED, "updatedAt": now}),
        aws.EXISTS,
    )


def _revert_reason(receipt: dict[str, Any] | None) -> str:
    """The bundler's revert data for a failed execution, decoded when it is Error(string)."""
    reason = str((receipt or {}).get("reason") or "")
    if reason.startswith("0x08c379a0"):
        try:
            return "execution reverted: " + str(decode(["string"], bytes.fromhex(reason[10:]))[0])[:300]
        except ValueError:
            pass
    return f"execution reverted{': ' + reason[:300] if reason and reason != '0x' else ''}"
