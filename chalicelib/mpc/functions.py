"""The Lambda functions of the MPC parties and the aux-pool refill schedule.

An entry point. The MPC extension itself is loaded by the parties and the signing service when they first run a
protocol, not when the API function loads its routes."""

from __future__ import annotations

from typing import Any

from chalicelib.mpc import aux_pool, parties, presignatures, service
from chalicelib.platform import deadline
from chalicelib.platform.consumers import scheduled, sqs_batch
from chalicelib.platform.settings import load_settings

# The refill job stops starting new sets when less than this is left of its 900 s.
REFILL_SET_BUDGET_S = 240.0
# A presignature refill starts another run only with this much of its budget left (one run ≈ 1-2 s).
PRESIGN_RUN_BUDGET_S = 10.0


def cosigner(event: dict[str, Any], context: Any) -> dict[str, Any]:
    return parties.cosigner(event)


def user_party(event: dict[str, Any], context: Any) -> dict[str, Any]:
    return parties.user_party(event)


def refill_presignatures(event: Any) -> Any:
    def refill(body: dict[str, Any]) -> None:
        def time_left_s() -> float:
            left = deadline.remaining_s()
            return float("inf") if left is None else left

        wallet_id = str(body["walletId"])
        at_least = body.get("atLeast")
        at_least = at_least if isinstance(at_least, int) else 0  # a new wallet's first stock (bounded by the refill)
        service.refill_presignatures(wallet_id, time_left_s, PRESIGN_RUN_BUDGET_S, at_least=at_least)
        if not body.get("followUp"):
            presignatures.request_follow_up(wallet_id)

    return sqs_batch("refill_presignatures", event, refill)


def refill_aux_pool(event: Any) -> None:
    def time_left_s() -> float:
        return float(event.context.get_remaining_time_in_millis()) / 1000

    scheduled(
        "refill_aux_pool",
        event,
        lambda: aux_pool.refill(load_settings().aux_pool_target, time_left_s, REFILL_SET_BUDGET_S),
    )
