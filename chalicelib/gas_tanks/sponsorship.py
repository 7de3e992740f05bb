"""Gas sponsorship policies: which user operations an app's organization tank pays for (`isSponsored: true`).

An app's policy (`PUT /api/v1/client/gasTank/policy`, models.SponsorshipPolicy) is one item of table `gas-tanks`,
`SPONSORPOLICY#<appId>` / `POLICY`. Without one, or with an empty document, every sponsored operation of the app is
paid while the tank holds its cost, as before.

Caps are counted in tank units (USDT at 18 decimals, the tank's own unit) from the charges the usage history shows:
an operation counts its initial deduction when it is submitted, and once settled only what it was charged (the
refund is taken back from the bucket it was counted in). The windows are rolling (platform/windows.py): a day is
the last 24 h in hourly buckets, a month the last 30 days in daily buckets (a bucket straddling the edge counts in
full, so a window is up to one bucket longer, never shorter). Two items hold them, each with a `version` that every
write moves:

* `SPONSORED#<appId>#OWNER#<ownerId>` / `WINDOW`: the owner's operations (`hours`, `days`);
* `SPONSORED#<appId>` / `WINDOW`: the app's (`hours`).

`standing` reads the policy and both windows (one consistent BatchGetItem), `judge` judges the operation, and
`counted` are the windows with the operation added, conditional on the versions read, for the submit's own
transaction (the debit, the usage record, the operation's move). Operations are counted while the app has a policy
(an app without one writes no window: nothing to serialize its submits on), so caps count from when the app's
first policy was set. An operation that cost nothing (refused by the bundler, expired) leaves the count too.

A concurrent submit that moved a window makes the transaction fail on that item; the submit then reads again and
decides again (unit_of_work `replan_on`), so concurrent submits never pass a cap together. Nothing is written for a
refused operation, nor by `remaining` (the check endpoint).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from chalicelib.gas_tanks.models import TABLE, SponsorshipPolicy
from chalicelib.platform import aws, windows
from chalicelib.platform.clock import epoch, iso_now

DAY = windows.Span(3_600, 86_400)
MONTH = windows.Span(86_400, 30 * 86_400)
OWNER_WINDOW = "owner-window"  # transaction item names: a lost race on either is re-planned
APP_WINDOW = "app-window"
WINDOWS = frozenset({OWNER_WINDOW, APP_WINDOW})


@dataclass(frozen=True)
class Operation:
    """What a policy judges of one user operation: who, where, what it calls, and its cost in tank units."""

    app_id: str
    owner_id: str
    network: str
    # The account's calls, (to, data) each: one for `execute`, several for `executeBatch`; none for a deployment
    # (or an EIP-7702 delegation) alone.
    calls: tuple[tuple[str, bytes], ...]
    cost: int


@dataclass(frozen=True)
class Refusal:
    rule: str
    reason: str


@dataclass(frozen=True)
class Standing:
    """The policy and the windows as read (their versions: 0 when the item does not exist yet)."""

    policy: SponsorshipPolicy | None
    owner_hours: dict[int, tuple[int, int]]
    owner_days: dict[int, tuple[int, int]]
    owner_version: int
    app_hours: dict[int, tuple[int, int]]
    app_version: int
    now: int


def policy_key(app_id: str) -> dict[str, str]:
    return {"pk": f"SPONSORPOLICY#{app_id}", "sk": "POLICY"}


def owner_window_key(app_id: str, owner_id: str) -> dict[str, str]:
    return {"pk": f"SPONSORED#{app_id}#OWNER#{owner_id}", "sk": "WINDOW"}


def app_window_key(app_id: str) -> dict[str, str]:
    return {"pk": f"SPONSORED#{app_id}", "sk": "WINDOW"}


def get_policy(app_id: str) -> tuple[SponsorshipPolicy | None, str | None]:
    """The app's policy and when it was set (None, None: none set)."""
    item = aws.table(TABLE).get_item(Key=policy_key(app_id), ConsistentRead=True).get("Item")
    if item is None:
        return None, None
    return SponsorshipPolicy.model_validate_json(str(item["document"])), str(item["updatedAt"])


def set_policy(app_id: str, policy: SponsorshipPolicy) -> str:
    """Store the app's policy (replacing any); returns when."""
    now = iso_now()
    document = policy.model_dump_json(exclude_none=True)
    aws.write(
        aws.put("policy", TABLE, {**policy_key(app_id), "appId": app_id, "document": document, "updatedAt": now}, None)
    )
    return now


def standing(app_id: str, owner_id: str) -> Standing:
    """The policy and both windows, in one consistent read."""
    keys = [policy_key(app_id), owner_window_key(app_id, owner_id), app_window_key(app_id)]
    found = {(str(i["pk"]), str(i["sk"])): i for i in aws.batch_get(TABLE, keys)}

    def item(key: Mapping[str, str]) -> Mapping[str, Any] | None:
        return found.get((key["pk"], key["sk"]))

    policy_item = item(keys[0])
    owner, app = item(keys[1]) or {}, item(keys[2]) or {}
    return Standing(
        policy=SponsorshipPolicy.model_validate_json(str(policy_item["document"])) if policy_item else None,
        owner_hours=windows.read(owner.get("hours")),
        owner_days=windows.read(owner.get("days")),
        owner_version=int(owner.get("version", 0)),
        app_hours=windows.read(app.get("hours")),
        app_version=int(app.get("version", 0)),
        now=epoch(),
    )


def judge(op: Operation, seen: Standing) -> Refusal | None:
    """The first rule of the policy the operation breaks (None: sponsored), in the order they are listed in
    docs/smart-accounts.md."""
    policy = seen.policy
    if policy is None:
        return None
    at = datetime.fromtimestamp(seen.now, UTC)
    if policy.activeFrom is not None and at < policy.activeFrom:
        return Refusal("activeFrom", f"Sponsorship starts at {policy.activeFrom.isoformat()}")
    if policy.activeUntil is not None and at >= policy.activeUntil:
        return Refusal("activeUntil", f"Sponsorship ended at {policy.activeUntil.isoformat()}")
    if policy.networks is not None and op.network not in policy.networks:
        return Refusal("networks", f"Operations on {op.network} are not sponsored")
    if policy.contracts is not None and not _allowed_call(policy, op):
        return Refusal("contracts", "A call of the operation is not one the policy sponsors")
    most = policy.perOperation.max if policy.perOperation is not None else None
    if most is not None and op.cost > int(most):
        return Refusal("perOperation.max", f"The operation may cost {op.cost}, above {most}")
    caps = policy.perOwner
    if caps is not None:
        count, day = DAY.total(seen.owner_hours, seen.now)
        _, month = MONTH.total(seen.owner_days, seen.now)
        if caps.maxCountPerDay is not None and count + 1 > caps.maxCountPerDay:
            return Refusal("perOwner.maxCountPerDay", f"The owner had {count} sponsored operations in 24 h")
        if caps.maxPerDay is not None and day + op.cost > int(caps.maxPerDay):
            return Refusal("perOwner.maxPerDay", f"The owner's 24 h total would exceed {caps.maxPerDay}")
        if caps.maxPerMonth is not None and month + op.cost > int(caps.maxPerMonth):
            return Refusal("perOwner.maxPerMonth", f"The owner's 30-day total would exceed {caps.maxPerMonth}")
    if policy.total is not None and policy.total.maxPerDay is not None:
        _, spent = DAY.total(seen.app_hours, seen.now)
        if spent + op.cost > int(policy.total.maxPerDay):
            return Refusal("total.maxPerDay", f"The app's 24 h sponsored total would exceed {policy.total.maxPerDay}")
    return None


def remaining(op: Operation, seen: Standing) -> dict[str, Any]:
    """How much of each cap is left before this operation (None where the policy sets none)."""
    policy = seen.policy or SponsorshipPolicy()
    count, day = DAY.total(seen.owner_hours, seen.now)
    _, month = MONTH.total(seen.owner_days, seen.now)
    _, app_day = DAY.total(seen.app_hours, seen.now)
    caps = policy.perOwner

    def left(cap: str | None, used: int) -> str | None:
        return None if cap is None else str(max(0, int(cap) - used))

    return {
        "perOwner": {
            "perDay": left(caps.maxPerDay if caps else None, day),
            "countPerDay": None if caps is None or caps.maxCountPerDay is None else max(0, caps.maxCountPerDay - count),
            "perMonth": left(caps.maxPerMonth if caps else None, month),
        },
        "perOperation": policy.perOperation.max if policy.perOperation else None,
        "total": {"perDay": left(policy.total.maxPerDay if policy.total else None, app_day)},
    }


def counted(op: Operation, seen: Standing) -> tuple[list[aws.TxItem], dict[str, int]]:
    """Both windows with the operation added (conditional on the versions read), and where it was counted (for
    `taken_back` once it settles); nothing for an app without a policy (no item every submit of it would write)."""
    if seen.policy is None:
        return [], {}
    hours = DAY.added(seen.owner_hours, seen.now, op.cost)
    days = MONTH.added(seen.owner_days, seen.now, op.cost)
    owner = {
        **owner_window_key(op.app_id, op.owner_id),
        "hours": windows.stored(hours),
        "days": windows.stored(days),
        "version": seen.owner_version + 1,
    }
    app = {
        **app_window_key(op.app_id),
        "hours": windows.stored(DAY.added(seen.app_hours, seen.now, op.cost)),
        "version": seen.app_version + 1,
    }
    items = [
        aws.put(OWNER_WINDOW, TABLE, owner, _seen(seen.owner_version)),
        aws.put(APP_WINDOW, TABLE, app, _seen(seen.app_version)),
    ]
    return items, {"hour": DAY.bucket(seen.now), "day": MONTH.bucket(seen.now)}


def taken_back(app_id: str, owner_id: str, where: Mapping[str, Any], refund: int, uncounted: bool) -> list[aws.TxItem]:
    """The windows it was counted in (`where`) without an operation's `refund` (it was counted at its initial
    deduction), and without the operation itself when `uncounted` (it cost nothing: refused by the bundler, or
    expired), conditional on the versions read: items the settling transaction re-plans on."""
    hour, day = int(where["hour"]), int(where["day"])  # as stored with the operation (DynamoDB numbers)
    n = 1 if uncounted else 0
    owner_key, app_key = owner_window_key(app_id, owner_id), app_window_key(app_id)
    found = {(str(i["pk"]), str(i["sk"])): i for i in aws.batch_get(TABLE, [owner_key, app_key])}
    owner, app = found.get((owner_key["pk"], owner_key["sk"])), found.get((app_key["pk"], app_key["sk"]))
    items: list[aws.TxItem] = []
    if owner is not None:
        changed = {
            **owner,
            "hours": windows.stored(windows.taken_back(windows.read(owner.get("hours")), hour, refund, n)),
            "days": windows.stored(windows.taken_back(windows.read(owner.get("days")), day, refund, n)),
            "version": int(owner["version"]) + 1,
        }
        items.append(aws.put(OWNER_WINDOW, TABLE, changed, _seen(int(owner["version"]))))
    if app is not None:
        changed = {
            **app,
            "hours": windows.stored(windows.taken_back(windows.read(app.get("hours")), hour, refund, n)),
            "version": int(app["version"]) + 1,
        }
        items.append(aws.put(APP_WINDOW, TABLE, changed, _seen(int(app["version"]))))
    return items


def _seen(version: int) -> aws.Condition:
    if version == 0:
        return aws.NEW_ITEM
    return aws.Condition("#v = :v", names={"#v": "version"}, values={":v": version})


def _allowed_call(policy: SponsorshipPolicy, op: Operation) -> bool:
    """Every call of the operation is to a listed contract (and a listed function of it); a batch is sponsored only
    whole, and an operation that calls nothing is no listed call."""
    return bool(op.calls) and all(_listed(policy, to, data) for to, data in op.calls)


def _listed(policy: SponsorshipPolicy, to: str, data: bytes) -> bool:
    selector = "0x" + data[:4].hex() if len(data) >= 4 else None
    for contract in policy.contracts or []:
        if contract.address.lower() != to.lower():
            continue
        if not contract.selectors or (selector is not None and selector in {s.lower() for s in contract.selectors}):
            return True
    return False
