"""Withdrawals: amounts paid out of an account's off-chain balance to an address, on chain.

Request (`create`): the app's custody policy (operator_policy.py: the signing-policy engine's document of the operator's
limits and allowlist) judges the payment after the app's total of the token today; then, in ONE transaction, the
amount moves from `activeBalance` to `heldBalance` (conditional: never below zero), that daily total grows
(conditional on the value judged), the withdrawal and its journal entry are written and `withdraw.created` goes to
the outbox. Then the withdrawal is queued for the
worker (sending.py). A failed condition changes nothing.

States: `pending` (held, queued) → `sending` (a worker holds it under a lease) → `sent` (its transaction is
recorded and broadcast; `txHash`) → `success` (mined with the network's confirmations: the held amount leaves the
ledger, `withdraw.success`) | `failed` (definitively not paid: the hold goes back to `activeBalance`,
`withdraw.failed` with a `reason`). A send that provably never reached the chain goes back to `pending`. A
`failed` withdrawal kept for review (`released` false: its amount still held) moves once more, by an operator's
decision that the chain allows: to `success` or to a release (review.py). The record and its declared moves:
records.py. A withdrawal not ended is in the table's `due` index; `requeue_stale` sweeps it.
"""

from __future__ import annotations

import uuid
from typing import Any

from chalicelib.bitcoin import addresses as bitcoin_addresses
from chalicelib.bitcoin import rpc as bitcoin_rpc
from chalicelib.custody import accounts, ledger, pool_keys, utxos
from chalicelib.custody.accounts import NETWORK_NOT_ON_ACCOUNT
from chalicelib.custody.store import TABLE, busy, canonical_address, get, status_page
from chalicelib.custody.tokens import TokenOnNetwork, accepted
from chalicelib.custody.withdrawals import bitcoin_spends, operator_policy
from chalicelib.custody.withdrawals.records import UNFINISHED, Withdrawal
from chalicelib.platform import aws, clock, followups, unit_of_work
from chalicelib.platform.addresses import checksum_address
from chalicelib.platform.amounts import format_units, parse_amount
from chalicelib.platform.errors import ApiError, bad_request, not_found
from chalicelib.platform.networks import BitcoinNetwork
from chalicelib.platform.pagination import AppendOnlyList, PageQuery, records_page
from chalicelib.platform.transitions import create as create_record
from chalicelib.platform.unit_of_work import Event, Plan
from chalicelib.policies.document import PolicyDocument
from chalicelib.policies.facts import TransactionFacts
from chalicelib.tenancy.models import App

QUEUE = "custody-withdrawals"
# The worker's state checks make a duplicate message harmless: no step token.
FOLLOW_UPS = followups.FollowUp(QUEUE)
WITHDRAWAL_NOT_FOUND = "WITHDRAWAL_NOT_FOUND"
WITHDRAWAL_LIMIT_EXCEEDED = "WITHDRAWAL_LIMIT_EXCEEDED"
DAILY_LIMIT_EXCEEDED = "DAILY_LIMIT_EXCEEDED"
DESTINATION_NOT_ALLOWED = "DESTINATION_NOT_ALLOWED"
# The items whose failed condition means a balance or the day's total moved meanwhile: built again.
BALANCE_ITEMS = frozenset({"balance", "balance-daily"})


def app_list(app_id: str) -> AppendOnlyList:
    return AppendOnlyList(TABLE, f"WITHDRAWALS#{app_id}")


def account_list(app_id: str, account_id: str) -> AppendOnlyList:
    return AppendOnlyList(TABLE, f"WITHDRAWALS#{app_id}#{account_id}")


def key(withdrawal_id: str) -> dict[str, str]:
    return {"pk": f"WITHDRAWAL#{withdrawal_id}", "sk": "WITHDRAWAL"}


def create(
    app: App, account_id: str, network: str, token_code: str, to: str, amount: str, reference: str | None
) -> Withdrawal:
    account = accounts.of_app(app.appId, account_id)
    pair = accepted(network, token_code)
    bitcoin = pair.network if isinstance(pair.network, BitcoinNetwork) else None
    destination = _bitcoin_destination(bitcoin, to) if bitcoin else checksum_address(to, "to")
    base = parse_amount(amount, pair.token.decimals)
    if bitcoin and base < bitcoin_spends.DUST_SATS:
        raise bad_request(
            "INVALID_AMOUNT",
            f"Below the smallest amount a Bitcoin output may pay ({bitcoin_spends.DUST_SATS} sat)",
            errors=[{"field": "amount", "message": "below the dust threshold", "type": "amount"}],
        )
    on_network = [w for w in account["wallets"] if w["network"] == pair.network.name]
    if not on_network:
        raise _not_on_account(pair)
    wallet = on_network[0]  # on Bitcoin the native SegWit address: where the change goes
    if any(canonical_address(destination) == canonical_address(str(w["address"])) for w in on_network):
        raise bad_request(
            "INVALID_ADDRESS",
            "`to` is the account's own deposit address",
            errors=[{"field": "to", "message": "the account's own address", "type": "address"}],
        )
    policy = operator_policy.document(app.appId, app.organizationId, pair.network)
    paid = operator_policy.payment(pair, destination, base)
    withdrawal_id = str(uuid.uuid4())
    now = clock.iso_now()
    record = Withdrawal(
        **key(withdrawal_id),
        id=withdrawal_id,
        appId=app.appId,
        accountId=account_id,
        userId=str(account["subId"]),
        keyId=str(account["mpcSubId"]),
        keyAddress=str(account["ownerAddress"]),
        walletId=str(wallet["walletId"]),
        fromAddress=str(wallet["address"]),
        network=pair.network.name,
        chainId=pair.network.chainId,
        tokenCode=pair.token.tokenCode,
        tokenAddress=pair.token.tokenAddress,
        to=destination,
        amountInDecimals=str(base),
        fee="0",
        status="pending",
        attempts=0,
        createdAt=now,
        updatedAt=now,
        reference=reference or None,
    )
    if bitcoin:
        key_item = pool_keys.made(pool_keys.scope(account["poolType"], app.appId, app.organizationId), "bitcoin")
        if key_item is None:  # the account's addresses are of this key: it exists whenever they do
            raise _not_on_account(pair)
        child = pool_keys.bitcoin_key(key_item, account_id, bitcoin.chainId)
        fee_rate = bitcoin_rpc.fee_rate(bitcoin)
        record = record.model_copy(
            update={
                "keyId": key_item.key_id,
                "keyAddress": key_item.address,
                "childKey": child.hex(),
                "feeRate": fee_rate,
            }
        )

    made: dict[str, Withdrawal] = {}  # the record as the committed plan wrote it

    def plan() -> Plan:
        held, reserved = record, []
        daily = _daily(app.appId, pair, policy, paid)  # the policy's refusals come before the balance's
        if bitcoin:  # the outputs it spends, reserved in this very write (two withdrawals never take one)
            spending = bitcoin_spends.choose(
                bitcoin,
                utxos.available(pair.network.chainId, account_id),
                bytes.fromhex(str(record.childKey)),
                destination,
                base,
                int(record.feeRate or 1),
            )
            inputs = [{k: o[k] for k in ("txid", "vout", "value", "address", "addressType")} for o in spending.inputs]
            held = record.model_copy(
                update={"inputs": inputs, "change": str(spending.change), "fee": str(spending.fee)}
            )
            reserved = [utxos.reserve_item(f"utxo-{n}", o, withdrawal_id) for n, o in enumerate(spending.inputs)]
        balance, entry = ledger.post(
            account_id,
            pair,
            ledger.Movement(active=-held.debit, held=held.debit),
            "hold",
            "withdrawal requested",
            ("withdrawal", withdrawal_id),
        )
        made["record"] = held
        items = [create_record(held), balance, daily, *reserved]
        if reference:
            items.append(
                aws.put(
                    "reference",
                    TABLE,
                    {"pk": f"WREF#{app.appId}#{reference}", "sk": "REF", "withdrawalId": withdrawal_id},
                )
            )
        lists = [
            entry,
            (app_list(app.appId), {"withdrawalId": withdrawal_id, "createdAt": now}),
            (account_list(app.appId, account_id), {"withdrawalId": withdrawal_id, "createdAt": now}),
        ]
        event = Event(app.appId, "withdraw.created", f"withdraw.created:{withdrawal_id}", event_data(held, pair))
        replan = BALANCE_ITEMS | {f"utxo-{n}" for n in range(len(reserved))}
        return Plan(items, lists, event, effect={"withdrawalId": withdrawal_id}, replan_on=frozenset(replan))

    try:
        # concurrent withdrawals of one account re-plan on the balance (or the outputs) they raced for
        unit_of_work.commit(plan, attempts=30, on_busy=busy)
    except aws.TransactionCancelledError as exc:
        if exc.condition_failed("reference"):
            raise ApiError(409, "DUPLICATE_REFERENCE", "A withdrawal of this app already has this reference") from None
        raise
    enqueue(withdrawal_id)
    return made["record"]


def _not_on_account(pair: TokenOnNetwork) -> ApiError:
    return bad_request(
        NETWORK_NOT_ON_ACCOUNT,
        f"The account has no address on {pair.network.name}",
        errors=[{"field": "network", "message": "the account has no deposit address here", "type": "network"}],
    )


def _bitcoin_destination(network: BitcoinNetwork, to: str) -> str:
    """`to` if it is a standard address of the network's chain (a bech32 address written in capitals, as QR codes
    do, in lower case); 400 INVALID_ADDRESS otherwise."""
    if to.isupper() and to.startswith(("BC1", "TB1", "BCRT1")):
        to = to.lower()
    try:
        bitcoin_addresses.script_of(to, network.chain)
    except bitcoin_addresses.InvalidAddressError as exc:
        raise bad_request(
            "INVALID_ADDRESS",
            f"`to` is not a Bitcoin address of {network.name}",
            errors=[{"field": "to", "message": str(exc), "type": "address"}],
        ) from None
    return to


def _daily(app_id: str, pair: TokenOnNetwork, policy: PolicyDocument, paid: TransactionFacts) -> aws.TxItem:
    """The app's custody policy judges the payment after the app's withdrawn total of the token today, and that
    total grows by the amount. A string number (uint256 does not fit DynamoDB's 38 digits) updated by a conditional
    put on the value read; a concurrent request that moved it makes the plan be built again (BALANCE_ITEMS)."""
    day = operator_policy.day_key(app_id, pair)
    item = get(day["pk"], day["sk"])
    used = int(item["used"]) if item else 0
    decision = operator_policy.judge(policy, paid, used)
    if not decision.allowed:
        code, message = _REFUSALS[operator_policy.rule_of(decision)]
        raise ApiError(422, code, message.format(symbol=pair.token.symbol), rule=decision.rule)
    condition = (
        aws.Condition("used = :u", values={":u": str(used)}) if item else aws.Condition("attribute_not_exists(pk)")
    )
    amount = sum(t.amount for t in paid.transfers)
    return aws.put("balance-daily", TABLE, {**day, "used": str(used + amount), "updatedAt": clock.iso_now()}, condition)


# A custody document refuses with these rules only (operator_policy.document).
_REFUSALS = {
    operator_policy.ALLOWLIST: (DESTINATION_NOT_ALLOWED, "The destination is not on the app's withdrawal allowlist"),
    operator_policy.PER_WITHDRAWAL: (WITHDRAWAL_LIMIT_EXCEEDED, "Above the per-withdrawal limit of {symbol}"),
    operator_policy.PER_DAY: (DAILY_LIMIT_EXCEEDED, "Above the app's daily {symbol} limit"),
}


def enqueue(withdrawal_id: str, delay_s: int = 0) -> None:
    """Committed already: a send that fails is left to the sweep of stale withdrawals (requeue_stale)."""
    FOLLOW_UPS.send_committed({"withdrawalId": withdrawal_id}, delay_s, withdrawalId=withdrawal_id)


def event_data(record: Withdrawal, pair: TokenOnNetwork, **extra: Any) -> dict[str, Any]:
    """The withdrawal events' `data` (not shown in the reference API; docs/custody.md). `debit`: what left the
    off-chain balance (`activeBalance` at `withdraw.created`, held until `withdraw.success`); a failed withdrawal
    has `release` instead when its amount went back to `activeBalance` (none when it is held for review). `extra`
    overrides `status`, `txHash`, `reason` as the event's move leaves them, and adds fields of the move."""
    amount = record.amount
    status = extra.pop("status", record.status)
    transaction = extra.pop("transaction", None)
    released = extra.get("released")
    money = {
        "tokenCode": pair.token.tokenCode,
        "amount": pair.human(record.debit),
        "referenceType": "withdrawal",
        "referenceId": record.id,
    }
    data: dict[str, Any] = {
        "appId": record.appId,
        "userId": record.userId,
        "withdrawal": {
            "id": record.id,
            "accountId": record.accountId,
            "status": status,
            "network": pair.network.name,
            "chainId": pair.network.chainId,
            "tokenCode": pair.token.tokenCode,
            "amount": pair.human(amount),
            "amountInDecimals": str(amount),
            "fee": pair.human(int(record.fee)),
            "from": record.fromAddress,
            "to": record.to,
            "reference": record.reference,
            "txHash": extra.pop("txHash", record.txHash),
            "reason": extra.pop("reason", record.failedReason),
            "createdAt": record.createdAt,
            **extra,
        },
        "token": pair.event_token(),
    }
    if transaction is not None:
        data["transaction"] = transaction
    if status == "failed":
        if released:
            data["release"] = money
    else:
        data["debit"] = money
    return data


def read(withdrawal_id: str) -> Withdrawal | None:
    item = get(**key(withdrawal_id))
    return Withdrawal.from_item(item) if item is not None else None


def of_app(app_id: str, withdrawal_id: str) -> Withdrawal:
    try:
        uuid.UUID(withdrawal_id)
    except ValueError:
        raise not_found(WITHDRAWAL_NOT_FOUND, "No such withdrawal") from None
    record = read(withdrawal_id)
    if record is None or record.appId != app_id:
        raise not_found(WITHDRAWAL_NOT_FOUND, "No such withdrawal")
    return record


def page(app_id: str, account_id: str | None, status: str | None, query: PageQuery) -> tuple[list[Withdrawal], int]:
    if status is not None:
        items, total = status_page("WITHDRAWAL", app_id, account_id, status, query)
    else:
        entries = account_list(app_id, account_id) if account_id else app_list(app_id)
        items, total = records_page(entries, query, "withdrawalId", key)
    return [Withdrawal.from_item(i) for i in items], total


def public(record: Withdrawal) -> dict[str, Any]:
    pair = accepted(record.network, record.tokenCode)
    amount = record.amount
    return {
        "id": record.id,
        "accountId": record.accountId,
        "status": record.status,
        "network": record.network,
        "chainId": record.chainId,
        "tokenCode": record.tokenCode,
        "amount": format_units(amount, pair.token.decimals),
        "amountInDecimals": str(amount),
        "fee": format_units(int(record.fee), pair.token.decimals),
        "from": record.fromAddress,
        "to": record.to,
        "reference": record.reference,
        "txHash": record.txHash,
        "failedReason": record.failedReason,
        "createdAt": record.createdAt,
        "updatedAt": record.updatedAt,
        "sentAt": record.sentAt,
        "completedAt": record.completedAt,
        "failedAt": record.failedAt,
    }


def requeue_stale(limit: int = 5000) -> int:
    """The schedule's safety net: unfinished withdrawals that have not moved for STALE_S (their message was lost,
    dead-lettered, or its worker died) are queued again, each leased for STALE_S; the worker's state checks make
    a duplicate message harmless."""
    return UNFINISHED.sweep(lambda item: enqueue(str(item["id"])), limit)
