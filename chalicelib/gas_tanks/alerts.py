"""Gas-tank alerts: signed webhook events that tell an app its tanks need money, before they run dry.

* `gasTank.low_balance`: a tank's balance fell below its threshold (`lowBalanceThreshold` on the tank item, set by
  `PUT /api/v1/client/gasTank/settings` or `PUT /api/v1/smart-account/{ownerId}/gasTank/settings`; default none).
  Once per crossing: the event and the tank's `lowAlerted` mark are one transaction, conditional on the mark being
  off, and only a credited top-up that lifts the balance to the threshold or above turns the mark off again (a
  refund of an operation's unspent reservation does not: no alert at every operation below the threshold). Looked
  at once an operation has settled (the balance after its actual charge), off the request path.
* `gasTank.topped_up`: a top-up was credited; written in the crediting transaction itself (gas_tanks/service.py,
  confirmations.py).
* `gasTank.sponsorship_denied`: a sponsored operation was refused by the app's sponsorship policy; at most one per
  owner and rule per clock hour (the event's id names the hour: the outbox writes an id once).

Each goes to the app whose operation or top-up it concerns, signed and delivered like every event (docs/webhooks.md).
"""

from __future__ import annotations

from typing import Any

from chalicelib.gas_tanks import store
from chalicelib.gas_tanks.models import TABLE, Tank
from chalicelib.platform import aws, unit_of_work
from chalicelib.platform.amounts import MAX_NUMBER
from chalicelib.platform.clock import epoch, iso_at, iso_now
from chalicelib.platform.logging import log_failure
from chalicelib.platform.pagination import PageQuery
from chalicelib.platform.unit_of_work import Event, Plan

LOW_BALANCE = "gasTank.low_balance"
TOPPED_UP = "gasTank.topped_up"
SPONSORSHIP_DENIED = "gasTank.sponsorship_denied"
SPEND_PAGES = 10  # the last 24 h of spend is summed from at most this many pages of 100 usage records


def set_threshold(tank_id: str, threshold: int | None) -> None:
    """The tank's threshold (None: no alerts); a new setting arms the alert again."""
    changes = (
        aws.Changes(set={"lowBalanceThreshold": str(threshold), "lowAlerted": False, "updatedAt": iso_now()})
        if threshold is not None
        else aws.Changes(set={"lowAlerted": False, "updatedAt": iso_now()}, remove=["lowBalanceThreshold"])
    )
    aws.write(aws.update("tank", TABLE, store.tank_key(tank_id), changes, aws.EXISTS))


def threshold_of(tank: Tank) -> int | None:
    """The tank's threshold as compared with its balance, a DynamoDB number: one set above what a number holds
    (only possible before settings were bounded) is above every balance, and compares as the largest number."""
    return None if tank.lowBalanceThreshold is None else min(int(tank.lowBalanceThreshold), MAX_NUMBER)


def after_spend(tank_id: str, app_id: str) -> None:
    """The tank's balance after a settled operation: below its threshold and armed, the alert (once)."""
    try:
        tank = store.get_tank(tank_id)
        threshold = threshold_of(tank) if tank else None
        if tank is None or threshold is None or tank.balance >= threshold or tank.lowAlerted:
            return
        crossing = tank.lowCrossings + 1
        mark = aws.update(
            "tank",
            TABLE,
            store.tank_key(tank_id),
            aws.Changes(set={"lowAlerted": True, "lowCrossings": crossing}),
            # As read: still armed, still this threshold and crossing count, and still below it (a top-up since the
            # read makes this look a no-op; a concurrent alert moved the count).
            aws.Condition(
                "(attribute_not_exists(lowAlerted) OR lowAlerted = :off) AND lowBalanceThreshold = :t"
                " AND (attribute_not_exists(lowCrossings) OR lowCrossings = :n) AND balance < :below",
                values={":off": False, ":t": tank.lowBalanceThreshold, ":n": tank.lowCrossings, ":below": threshold},
            ),
        )
        data = {**_tank_data(tank), "threshold": tank.lowBalanceThreshold, "spentLast24h": str(spent_last_day(tank_id))}
        event = Event(app_id, LOW_BALANCE, f"{LOW_BALANCE}:{tank_id}:{crossing}", data)
        unit_of_work.commit(Plan(items=[mark], event=event))
    except aws.TransactionCancelledError:
        return  # alerted meanwhile by another settle, or the threshold changed
    except ArithmeticError:
        raise  # a number DynamoDB cannot hold (a decimal error) is a defect to see, not an alert lost
    except Exception as exc:  # noqa: BLE001 - the operation is settled; an alert lost is logged, not retried
        log_failure("gas tank alert not written", exc, tankId=tank_id)


def after_top_up(tank_id: str) -> None:
    """A credited top-up lifted the balance to the threshold or above: the alert is armed again."""
    try:
        tank = store.get_tank(tank_id)
        threshold = threshold_of(tank) if tank else None
        if tank is None or threshold is None or tank.balance < threshold or not tank.lowAlerted:
            return
        aws.write(
            aws.update(
                "tank",
                TABLE,
                store.tank_key(tank_id),
                aws.Changes(set={"lowAlerted": False}),
                aws.Condition("lowAlerted = :on AND balance >= :t", values={":on": True, ":t": threshold}),
            )
        )
    except aws.ConditionFailedError:
        return
    except ArithmeticError:
        raise  # a number DynamoDB cannot hold (a decimal error) is a defect to see, not an alert lost
    except Exception as exc:  # noqa: BLE001 - the top-up is credited; the next one arms it again
        log_failure("gas tank alert not re-armed", exc, tankId=tank_id)


def topped_up(app_id: str, tank: Tank | str, record: dict[str, Any], credited: int) -> Event:
    """The event of a credited top-up, for the crediting transaction."""
    tank_id = tank if isinstance(tank, str) else tank.id
    data = {
        "gasTankId": tank_id,
        "topUpId": record["id"],
        "txHash": record["txHash"],
        "network": record["network"],
        "chainId": record["chainId"],
        "amount": str(record["amount"]),
        "creditedInGasTank": str(credited),
    }
    return Event(app_id, TOPPED_UP, f"{TOPPED_UP}:{record['id']}", data)


def sponsorship_denied(app_id: str, owner_id: str, user_op_id: str, rule: str, reason: str) -> None:
    """At most one event per owner and rule per clock hour."""
    hour = epoch() // 3600
    data = {
        "appId": app_id,
        "ownerId": owner_id,
        "userOpId": user_op_id,
        "rule": rule,
        "reason": reason,
        "hour": iso_at(hour * 3600),
    }
    event = Event(app_id, SPONSORSHIP_DENIED, f"{SPONSORSHIP_DENIED}:{owner_id}:{rule}:{hour}", data)
    try:
        unit_of_work.commit(Plan(event=event))
    except Exception as exc:  # noqa: BLE001 - the refusal stands; its event is lost, logged
        log_failure("sponsorship refusal event not written", exc, userOpId=user_op_id)


def spent_last_day(tank_id: str) -> int:
    """What the tank's usage records charged in the last 24 h (settled amounts, else initial deductions)."""
    since = iso_at(epoch() - 86_400)
    total = 0
    for page in range(1, SPEND_PAGES + 1):
        entries, _ = store.usage(tank_id).page(PageQuery(page=page, limit=100))
        for entry in entries:
            if str(entry.get("createdAt", "")) < since:
                return total
            total += int(str(entry.get("amountInGasTank") or 0))
        if len(entries) < 100:
            break
    return total


def _tank_data(tank: Tank) -> dict[str, Any]:
    return {
        "gasTankId": tank.id,
        "kind": "organization" if tank.kind == "client" else "owner",
        "holder": tank.holder,
        "balance": str(tank.balance),
        "decimals": tank.decimals,
    }
