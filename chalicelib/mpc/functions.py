"""The Lambda functions of the MPC parties and the aux-pool refill schedule."""

from __future__ import annotations

from typing import Any

from chalice import Blueprint, Rate

from chalicelib.platform.settings import load_settings

bp = Blueprint(__name__)

# The refill job stops starting new sets when less than this is left of its 900 s.
REFILL_SET_BUDGET_S = 240.0


@bp.lambda_function(name="cosigner")
def cosigner(event: dict[str, Any], context: Any) -> dict[str, Any]:
    from chalicelib.mpc import parties

    return parties.cosigner(event)


@bp.lambda_function(name="user_party")
def user_party(event: dict[str, Any], context: Any) -> dict[str, Any]:
    from chalicelib.mpc import parties

    return parties.user_party(event)


@bp.schedule(Rate(15, unit=Rate.MINUTES))
def refill_aux_pool(event: Any) -> None:
    from chalicelib.mpc import aux_pool

    def time_left_s() -> float:
        return float(event.context.get_remaining_time_in_millis()) / 1000

    from chalicelib.platform.consumers import scheduled

    scheduled(
        "refill_aux_pool",
        event,
        lambda: aux_pool.refill(load_settings().aux_pool_target, time_left_s, REFILL_SET_BUDGET_S),
    )
