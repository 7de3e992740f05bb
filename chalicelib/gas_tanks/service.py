"""Gas-tank top-ups: verified on chain, credited exactly once across the whole service.

Nothing is claimed or stored before the request's signature is proven to be the sender's (verification.prove): a
claim by anyone else is refused and leaves no trace that could block the sender's own. A credit is one DynamoDB
transaction: the tank's balance, the top-up record (the next entry of the tank's top-up list) and the
transaction's service-wide marker, put only if no top-up used the transaction before (or only a failed one did).
It happens only once the transfer has the network's confirmations and its block is still the chain's.
`immediate=false` records the top-up `pending` with the marker taken and the check's entry, and only then queues
the delayed SQS message for `check_top_up` (a check never finds its top-up uncommitted; a lost message is queued
again by the `requeue_top_up_checks` schedule). The check only moves a marker still `pending` for the same
top-up, so a duplicate or re-delivered message credits nothing.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Mapping
from typing import Any

from chalicelib.gas_tanks import alerts, sponsorship, store, verification
from chalicelib.gas_tanks.models import (
    ClientGasTank,
    ClientTopUp,
    GasTankSettings,
    GasTankSettingsState,
    OwnerTopUp,
    SponsorshipPolicy,
    SponsorshipPolicyState,
    Tank,
    TopUpMarker,
    TopUpPage,
    TopUpRecord,
    UsagePage,
    UsageRecord,
)
from chalicelib.platform import aws, followups, unit_of_work
from chalicelib.platform.clock import iso_now
from chalicelib.platform.errors import bad_request, conflict
from chalicelib.platform.logging import logger
from chalicelib.platform.networks import UNKNOWN_NETWORK, Network, registry
from chalicelib.platform.pagination import PageQuery, pagination
from chalicelib.platform.settings import load_settings
from chalicelib.platform.unit_of_work import Event, Plan
from chalicelib.smart_accounts import service as smart_accounts
from chalicelib.smart_accounts.models import GasTank
from chalicelib.tenancy.models import App

NETWORK_WITHOUT_GAS_TANKS = "NETWORK_WITHOUT_GAS_TANKS"
NOT_USDT = "NOT_USDT"
NOT_THE_POOL = "NOT_THE_POOL"
TOPUP_ALREADY_USED = "TOPUP_ALREADY_USED"
QUEUE = "topup-checks"
QUIET_S = 300  # past its due time by this long, a pending top-up's checks went quiet (checks.requeue_quiet)
# One chain of checks per pending top-up; the step token is the record's due time as the chain set it.
CHECKS = followups.FollowUp(QUEUE, step_field="due")
PENDING = followups.Requeue(store.TABLE, "pending", QUIET_S)


class OwnerTanks:
    """The owner tanks smart accounts ask for (smart_accounts/tanks.py; wiring.wire() registers `OWNER_TANKS`)."""

    def open(self, owner_record_id: str, now: str) -> tuple[aws.TxItem, GasTank]:
        tank = store.new_tank("owner", owner_record_id, now)
        return store.opened(tank), _owner_view(tank, owner_record_id)

    def show(self, tank_id: str, owner_record_id: str) -> GasTank:
        tank = store.get_tank(tank_id)
        if tank is None:
            raise RuntimeError("owner without a gas tank")
        return _owner_view(tank, owner_record_id)


OWNER_TANKS = OwnerTanks()


def _owner_view(tank: Tank, owner_record_id: str) -> GasTank:
    return GasTank(
        id=tank.id,
        createdAt=tank.createdAt,
        updatedAt=tank.updatedAt,
        ownerId=owner_record_id,
        balance=str(tank.balance),
        type=tank.type,
        tokenName=tank.tokenName,
        decimals=tank.decimals,
    )


def top_up_owner(app: App, request: OwnerTopUp) -> None:
    owner = smart_accounts.owner_of(app, request.receiverOwnerId)
    network = _check_request(request)
    tank = store.get_tank(owner.tankId)
    if tank is None:
        raise RuntimeError("owner without a gas tank")
    _top_up(app, network, request, tank)


def top_up_client(app: App, request: ClientTopUp) -> None:
    network = _check_request(request)
    _top_up(app, network, request, store.client_tank(app.clientId))


def client_tank(app: App) -> ClientGasTank:
    tank = store.client_tank(app.clientId)
    return ClientGasTank(
        id=tank.id,
        clientId=app.clientId,
        balance=str(tank.balance),
        type=tank.type,
        tokenName=tank.tokenName,
        decimals=tank.decimals,
        createdAt=tank.createdAt,
        updatedAt=tank.updatedAt,
    )


def client_top_ups(app: App, query: PageQuery) -> TopUpPage:
    return _page(store.topups(store.client_tank(app.clientId).id), query)


def owner_top_ups(app: App, owner_id: str, query: PageQuery) -> TopUpPage:
    owner = smart_accounts.owner_of(app, owner_id)
    return _page(store.topups(owner.tankId), query)


def client_usage(app: App, query: PageQuery) -> UsagePage:
    items, total = store.usage(store.client_tank(app.clientId).id).page(query)
    records = [UsageRecord.model_validate({k: v for k, v in i.items() if k in UsageRecord.model_fields}) for i in items]
    return UsagePage(data=records, pagination=pagination(total, query))


def owner_usage(app: App, owner_id: str, query: PageQuery) -> UsagePage:
    owner = smart_accounts.owner_of(app, owner_id)
    items, total = store.usage(owner.tankId).page(query)
    records = [UsageRecord.model_validate({k: v for k, v in i.items() if k in UsageRecord.model_fields}) for i in items]
    return UsagePage(data=records, pagination=pagination(total, query))


def credited_amount(network: Network, amount: int) -> int:
    """Base units of the network's USDT in tank units (USDT at store.DECIMALS): exact, never rounded."""
    assert network.usdtDecimals is not None and network.usdtDecimals <= store.DECIMALS
    return int(amount * 10 ** (store.DECIMALS - network.usdtDecimals))


def _check_request(request: ClientTopUp) -> Network:
    network = registry().by_chain_id(request.chainId)
    if network is None or not network.supports_smart_accounts:
        raise bad_request(
            NETWORK_WITHOUT_GAS_TANKS,
            f"No configured network with gas tanks has chainId {request.chainId}",
            errors=[{"field": "chainId", "message": "not a network with gas tanks", "type": "chain_id"}],
        )
    if request.tokenAddress.lower() != network.usdt.lower():
        raise bad_request(
            NOT_USDT,
            "tokenAddress is not this network's USDT",
            errors=[{"field": "tokenAddress", "message": f"must be {network.usdt}", "type": "token"}],
        )
    assert network.poolAddress is not None
    if request.poolAddress.lower() != network.poolAddress.lower():
        raise bad_request(
            NOT_THE_POOL,
            "poolAddress is not this network's pool",
            errors=[{"field": "poolAddress", "message": f"must be {network.poolAddress}", "type": "pool"}],
        )
    return network


def _top_up(app: App, network: Network, request: ClientTopUp, tank: Tank) -> None:
    tx_hash = request.txHash.lower()
    _refuse_if_used(network.chainId, tx_hash)
    record = _record(app, network, request, tank)
    signed_text = f"{request.chainId}.{request.txHash}"
    if request.immediate:
        proven = verification.prove(network, tx_hash, request.signature, signed_text)
        verification.require_final(network, proven)
        _credit_new(network, tank, {**record, "status": "success", "amount": str(proven.amount)}, proven.amount)
        return
    _prove_sender(network, tx_hash, request.signature, signed_text)
    delay = load_settings().topup_check_delay_s
    pending = {
        **record,
        "signedText": signed_text,
        "signature": request.signature,
        "checkAttempt": 1,
        **PENDING.due(delay),
    }
    _append(tank, pending, lambda seq: [_marker(network.chainId, tx_hash, tank, record, "pending", seq)])
    # Queued once committed, so the check finds the top-up; a send lost here is queued again by the schedule.
    CHECKS.send_committed(check_message(pending), delay, topUpId=record["id"])


def check_message(record: Mapping[str, Any]) -> dict[str, Any]:
    """The check of a pending top-up (its record as stored, or as the index answers it), at its attempt and due
    time: a check whose `due` is no longer the record's belongs to a chain of checks that was taken over."""
    return {
        "chainId": int(record["chainId"]),
        "txHash": str(record["txHash"]),
        "topUpId": str(record["id"]),
        "signedText": str(record["signedText"]),
        "signature": str(record["signature"]),
        "attempt": int(record["checkAttempt"]),
        "due": str(record["dueAt"]),
    }


def _prove_sender(network: Network, tx_hash: str, signature: str, signed_text: str) -> None:
    """Before a delayed top-up is stored: the signature is the sender's, mined (not yet final) or not yet mined."""
    try:
        verification.prove(network, tx_hash, signature, signed_text)
    except verification.TopUpRefusedError as refused:
        if refused.code != verification.TX_NOT_FOUND:
            raise
        verification.prove_unmined_sender(network, tx_hash, signature, signed_text)


def _refuse_if_used(chain_id: int, tx_hash: str) -> None:
    marker = store.get_marker(chain_id, tx_hash)
    if marker is not None and marker.state != "failed":
        raise conflict(TOPUP_ALREADY_USED, "This transaction was already used for a top-up")


def _record(app: App, network: Network, request: ClientTopUp, tank: Tank) -> dict[str, Any]:
    return {
        "id": str(uuid.uuid4()),
        "createdAt": iso_now(),
        "updatedAt": None,
        "clientId": app.clientId,
        "appId": app.appId,  # whose webhook hears of its credit (not on the wire: the record's fields are fixed)
        "gasTankId": tank.id,
        "txHash": request.txHash.lower(),
        "network": network.name,
        "chainId": network.chainId,
        "poolAddress": request.poolAddress,
        "amount": "0",
        "tokenAddress": request.tokenAddress,
        "status": "pending",
    }


def _marker(chain_id: int, tx_hash: str, tank: Tank, record: dict[str, Any], state: str, seq: int) -> aws.TxItem:
    """The transaction's marker, taken for this top-up in `state` (pending or credited): new, or taken again from a
    failed top-up (a put replacing it, not a move of the old one: it names another top-up)."""
    marker = TopUpMarker(
        **store.marker_key(chain_id, tx_hash),
        state=state,
        tankId=tank.id,
        topUpId=record["id"],
        seq=seq,
        createdAt=record["createdAt"],
    )
    assert state in TopUpMarker.machine.initial
    # Once per transaction in the whole service; a top-up that failed leaves the transaction usable again.
    retake = aws.Condition("attribute_not_exists(pk) OR #state = :failed", {"#state": "state"}, {":failed": "failed"})
    return aws.put(TopUpMarker.machine.name, store.TABLE, marker.to_item(), condition=retake)


def _credit_new(network: Network, tank: Tank, record: dict[str, Any], amount: int) -> None:
    credited = credited_amount(network, amount)
    credit = store.credit(tank.id, credited, iso_now())
    _append(
        tank,
        record,
        lambda seq: [_marker(network.chainId, record["txHash"], tank, record, "credited", seq), credit],
        alerts.topped_up(str(record["appId"]), tank.id, record, credited),
    )
    logger.info("top-up credited", extra={"tankId": tank.id, "chainId": network.chainId, "amount": amount})
    alerts.after_top_up(tank.id)


def _append(
    tank: Tank, record: dict[str, Any], also: Callable[[int], list[aws.TxItem]], event: Event | None = None
) -> int:
    try:
        committed = unit_of_work.commit(
            Plan(lists=[(store.topups(tank.id), record)], numbered=lambda seqs: also(seqs[0]), event=event)
        )
        assert committed is not None
        return committed.seqs[0]
    except aws.TransactionCancelledError as exc:
        if exc.condition_failed("marker"):
            raise conflict(TOPUP_ALREADY_USED, "This transaction was already used for a top-up") from None
        raise


def _page(entries: Any, query: PageQuery) -> TopUpPage:
    items, total = entries.page(query)
    records = [TopUpRecord.model_validate({k: v for k, v in i.items() if k in TopUpRecord.model_fields}) for i in items]
    return TopUpPage(data=records, pagination=pagination(total, query))


# --- sponsorship policies and tank settings ------------------------------------------------------------------


def set_sponsorship_policy(app: App, policy: SponsorshipPolicy) -> SponsorshipPolicyState:
    for name in policy.networks or []:
        if registry().by_name(name) is None:
            raise bad_request(
                UNKNOWN_NETWORK,
                f"Unknown network {name[:40]!r}",
                errors=[
                    {"field": "networks", "message": f"{name[:40]!r} is not a configured network", "type": "network"}
                ],
            )
    updated_at = sponsorship.set_policy(app.appId, policy)
    return SponsorshipPolicyState(policy=policy, updatedAt=updated_at)


def sponsorship_policy(app: App) -> SponsorshipPolicyState:
    policy, updated_at = sponsorship.get_policy(app.appId)
    return SponsorshipPolicyState(policy=policy, updatedAt=updated_at)


def set_client_tank_settings(app: App, settings: GasTankSettings) -> GasTankSettingsState:
    tank = store.client_tank(app.clientId)
    return _set_settings(tank.id, settings)


def client_tank_settings(app: App) -> GasTankSettingsState:
    return _settings_of(store.client_tank(app.clientId))


def set_owner_tank_settings(app: App, owner_id: str, settings: GasTankSettings) -> GasTankSettingsState:
    owner = smart_accounts.owner_of(app, owner_id)
    return _set_settings(owner.tankId, settings)


def owner_tank_settings(app: App, owner_id: str) -> GasTankSettingsState:
    owner = smart_accounts.owner_of(app, owner_id)
    tank = store.get_tank(owner.tankId)
    if tank is None:
        raise RuntimeError("owner without a tank")
    return _settings_of(tank)


def _set_settings(tank_id: str, settings: GasTankSettings) -> GasTankSettingsState:
    threshold = settings.lowBalanceThreshold
    alerts.set_threshold(tank_id, None if threshold is None else int(threshold))
    tank = store.get_tank(tank_id)
    assert tank is not None
    return _settings_of(tank)


def _settings_of(tank: Tank) -> GasTankSettingsState:
    return GasTankSettingsState(
        gasTankId=tank.id,
        balance=str(tank.balance),
        lowBalanceThreshold=tank.lowBalanceThreshold,
        lowAlerted=tank.lowAlerted,
    )
