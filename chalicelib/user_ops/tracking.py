"""Following a submitted user operation to its end, and settling its gas-tank charge once.

The tracker (SQS `userop-tracker`, function `track_user_op`) asks the bundler for the receipt. A receipt settles
the operation `success` (or `failed` when its execution reverted) with the actual cost (`actualGasCost`); no
receipt by `validUntil` (plus a grace minute) settles it `failed` ("expired"); otherwise it looks again later.

Settling is one transaction, conditional on the operation still being `on_process`: the operation's final
state, the usage record's actual amounts and refund, the refund credited back to the payer's tank, the account
becoming `deployed` when the operation deployed it, and the `userOp.success`/`userOp.failed` event (outbox). A
message delivered twice, or a settle racing another, moves no money twice.
"""

from __future__ import annotations

from typing import Any

from chalicelib.gas_tanks import charges
from chalicelib.gas_tanks import store as tanks
from chalicelib.platform import aws
from chalicelib.platform.chain import RpcError, rpc_call
from chalicelib.platform.clock import epoch, iso_now
from chalicelib.platform.errors import ApiError
from chalicelib.platform.logging import logger
from chalicelib.platform.networks import registry
from chalicelib.platform.pagination import sequence_key
from chalicelib.smart_accounts import service as smart_accounts
from chalicelib.smart_accounts import store as accounts_store
from chalicelib.user_ops import store

GRACE_S = 60  # a bundler may include an operation a little after validUntil by its own clock
MAX_DELAY_S = 60
EXPIRED = "expired: not included before validUntil"


def check(body: dict[str, Any]) -> None:
    user_op_id, attempt = str(body["userOpId"]), int(body.get("attempt", 1))
    item = store.get(user_op_id)
    if item is None or item["status"] != "on_process":
        return  # settled already, or the submit never committed
    network = registry().by_chain_id(int(item["chainId"]))
    receipt = None
    if network is not None:
        try:
            receipt = rpc_call(network, "eth_getUserOperationReceipt", [item["userOpHash"]], bundler=True)
        except (RpcError, ApiError) as exc:
            logger.warning("user operation receipt unavailable", extra={"userOpId": user_op_id, "reason": str(exc)})
    if isinstance(receipt, dict):
        settle(user_op_id, receipt=receipt)
    elif epoch() > int(item["validUntilEpoch"]) + GRACE_S:
        settle(user_op_id, failed_reason=EXPIRED)
    else:
        aws.send_message("userop-tracker", {**body, "attempt": attempt + 1}, delay_s=min(MAX_DELAY_S, 2 * attempt))


def settle(user_op_id: str, receipt: dict[str, Any] | None = None, failed_reason: str | None = None) -> bool:
    """Final state and money, once; False when the operation was settled already."""
    from chalicelib.user_ops.service import view
    from chalicelib.webhooks import outbox

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
            aws.Changes(set=changes),
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
        outbox.emit_event(
            str(item["appId"]),
            event,
            f"{event}:{user_op_id}",
            view(settled).model_dump(mode="json", exclude={"clientGasTankUsageHistory"}),
            also=writes,
        )
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
        from chalicelib.evm.abi import decode

        try:
            return "execution reverted: " + str(decode(["string"], bytes.fromhex(reason[10:]))[0])[:300]
        except ValueError:
            pass
    return f"execution reverted{': ' + reason[:300] if reason and reason != '0x' else ''}"
