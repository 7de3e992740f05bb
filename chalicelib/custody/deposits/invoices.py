"""Invoices: an expected payment of one token on one network to an account's deposit address.

An account has one address per network, so a transfer is matched to an invoice by (account, network, token):
at most one invoice is open per triple (`OPEN#...`, 409 INVOICE_ALREADY_PENDING for a second). `reference` is
unique per app (409 DUPLICATE_REFERENCE), for good.

States: `pending` → `paid` | `failed` | `expired`, all final, declared by `Invoice.machine` (docs/custody.md):
* the first transfer seen (by block time) no later than `expiresAt + bufferInSeconds` is the invoice's payment
  (`matchedDeposit`); when it is confirmed the invoice is `paid` (amount equal) or `failed` (amount differs:
  the money is credited to the account as a wallet deposit, never lost);
* a transfer seen while the invoice already has its payment, or after the deadline, is a wallet deposit that
  names the invoice (`invoiceId`, `late`);
* the expiry sweep expires a pending invoice past its deadline unless a payment seen in time is confirming
  (seen before the deadline, confirmed after it: still paid); if that payment leaves the chain, the invoice
  is free again and expires at the next sweep after its deadline.
"""

from __future__ import annotations

import datetime as dt
import uuid
from collections.abc import Mapping
from typing import Any, ClassVar

from chalicelib.custody import accounts, cursor, events
from chalicelib.custody.accounts import NETWORK_NOT_ON_ACCOUNT
from chalicelib.custody.store import TABLE, busy, get, status_keys, status_page
from chalicelib.custody.tokens import TokenOnNetwork, accepted
from chalicelib.platform import aws, clock, transitions, unit_of_work
from chalicelib.platform.amounts import format_units, parse_amount
from chalicelib.platform.errors import bad_request, conflict, not_found
from chalicelib.platform.logging import logger
from chalicelib.platform.networks import registry
from chalicelib.platform.pagination import AppendOnlyList, PageQuery, records_page
from chalicelib.platform.settings import load_settings
from chalicelib.platform.transitions import ABSENT, Machine, Move, Stateful, transition
from chalicelib.platform.unit_of_work import Event, Plan
from chalicelib.tenancy.models import App

INVOICE_NOT_FOUND = "INVOICE_NOT_FOUND"
INVOICE_ALREADY_PENDING = "INVOICE_ALREADY_PENDING"
DUPLICATE_REFERENCE = "DUPLICATE_REFERENCE"
ADDRESS_TYPE_NOT_OFFERED = "ADDRESS_TYPE_NOT_OFFERED"  # e.g. `legacy` on an EVM network
EXPIRING = "EXPIRING"  # pk of the pending invoices by deadline, for the expiry sweep


class Invoice(Stateful):
    """An invoice as stored (`INVOICE#<id>` / `INVOICE`). Its status moves only along `machine`."""

    machine: ClassVar[Machine] = Machine(
        name="invoice",
        table=TABLE,
        states=frozenset({"pending", "paid", "failed", "expired"}),
        initial=frozenset({"pending"}),
        final=frozenset({"paid", "failed", "expired"}),
        moves=(Move("pending", "paid"), Move("pending", "failed"), Move("pending", "expired")),
        stamp=None,  # each move sets its own time (paidAt, failedAt, expiredAt)
    )

    id: str
    appId: str
    accountId: str
    userId: str
    network: str
    chainId: int
    tokenCode: str
    amountInDecimals: str
    reference: str
    walletId: str
    depositAddress: str
    addressType: str = ""  # native-segwit or legacy on Bitcoin; "" on EVM
    expiresAt: str
    bufferInSeconds: int
    deadline: str  # expiresAt + bufferInSeconds
    startBlock: int  # transfers up to this block were sent before the invoice existed
    status: str
    createdAt: str
    matchedDeposit: str | None = None  # the payment seen in time (set and removed by lifecycle.py)
    paidAt: str | None = None
    failedAt: str | None = None
    failedReason: str | None = None
    receivedAmountInDecimals: str | None = None
    expiredAt: str | None = None
    transactionHash: str | None = None

    def status_index(self) -> aws.Changes:
        return aws.Changes(set=status_keys("INVOICE", self.appId, self.accountId, self.status, self.createdAt, self.id))


def key(invoice_id: str) -> dict[str, str]:
    return {"pk": f"INVOICE#{invoice_id}", "sk": "INVOICE"}


def find(invoice_id: str) -> Invoice | None:
    item = get(**key(invoice_id))
    return Invoice.from_item(item) if item is not None else None


def app_list(app_id: str) -> AppendOnlyList:
    return AppendOnlyList(TABLE, f"INVOICES#{app_id}")


def account_list(app_id: str, account_id: str) -> AppendOnlyList:
    return AppendOnlyList(TABLE, f"INVOICES#{app_id}#{account_id}")


def open_key(account_id: str, pair: TokenOnNetwork) -> dict[str, str]:
    return {"pk": f"OPEN#{account_id}#{pair.key}", "sk": "OPEN"}


def create(
    app: App,
    account_id: str,
    network: str,
    token_code: str,
    amount: str,
    reference: str,
    expires_in_s: int | None,
    address_type: str | None = None,
) -> Invoice:
    """An invoice paid to the account's address on the network: of `address_type` where the network has several
    (Bitcoin: native SegWit unless `legacy` is asked)."""
    account = accounts.of_app(app.appId, account_id)
    pair = accepted(network, token_code)
    base = parse_amount(amount, pair.token.decimals)
    on_network = [w for w in account["wallets"] if w["network"] == pair.network.name]
    if not on_network:
        raise bad_request(
            NETWORK_NOT_ON_ACCOUNT,
            f"The account was created before {pair.network.name} offered custody and has no address there",
            errors=[{"field": "network", "message": "the account has no deposit address here", "type": "network"}],
        )
    typed = [w for w in on_network if address_type is None or w["addressType"] == address_type]
    if not typed:
        raise bad_request(
            ADDRESS_TYPE_NOT_OFFERED,
            f"{pair.network.name} has no {address_type} deposit addresses",
            errors=[{"field": "addressType", "message": "not an address type of this network", "type": "address_type"}],
        )
    settings = load_settings()
    now = clock.now()
    expires_at = now + dt.timedelta(seconds=expires_in_s or settings.invoice_expires_s)
    buffer_s = settings.invoice_buffer_s
    invoice_id = str(uuid.uuid4())
    wallet = events.wallet_object(account, pair, typed[0]["address"])
    created_at = clock.iso(now)
    invoice = Invoice(
        **key(invoice_id),
        id=invoice_id,
        appId=app.appId,
        accountId=account_id,
        userId=account["subId"],
        network=pair.network.name,
        chainId=pair.network.chainId,
        tokenCode=pair.token.tokenCode,
        amountInDecimals=str(base),
        reference=reference,
        walletId=wallet["walletId"],
        depositAddress=wallet["address"],
        addressType=typed[0]["addressType"],
        expiresAt=clock.iso(expires_at),
        bufferInSeconds=buffer_s,
        deadline=clock.iso(expires_at + dt.timedelta(seconds=buffer_s)),
        # Transfers in blocks up to the head the watcher knew when the invoice was made were sent before it:
        # they are never its payment. (A head the watcher had not seen yet may let a payment sent just before
        # count.)
        startBlock=_known_head(pair.network.chainId),
        status="pending",
        createdAt=created_at,
    )
    items = [
        transitions.create(invoice),
        aws.put("reference", TABLE, {"pk": f"REF#{app.appId}#{reference}", "sk": "REF", "invoiceId": invoice_id}),
        # One open invoice per (account, network, token): a closed one's marker may be taken over.
        aws.put(
            "open",
            TABLE,
            {**open_key(account_id, pair), "invoiceId": invoice_id, "open": True},
            aws.Condition("attribute_not_exists(pk) OR #o = :closed", {"#o": "open"}, {":closed": False}),
        ),
        aws.put("expiring", TABLE, {"pk": EXPIRING, "sk": f"{invoice.deadline}#{invoice_id}", "invoiceId": invoice_id}),
    ]
    entry = {"invoiceId": invoice_id, "createdAt": created_at}
    plan = Plan(
        items,
        [(app_list(app.appId), entry), (account_list(app.appId, account_id), entry)],
        effect={"invoiceId": invoice_id},  # a lost answer is never a second invoice
    )
    try:
        unit_of_work.commit(plan, on_busy=busy)
    except aws.TransactionCancelledError as exc:
        if exc.condition_failed("reference"):
            raise conflict(DUPLICATE_REFERENCE, "An invoice of this app already has this reference") from None
        if exc.condition_failed("open"):
            raise conflict(
                INVOICE_ALREADY_PENDING,
                f"The account already has a pending {pair.token.tokenCode} invoice on {pair.network.name}",
            ) from None
        raise
    return invoice


def _known_head(chain_id: int) -> int:
    known = cursor.read(chain_id) or {}
    return int(known["head"]) if "head" in known else int(known.get("next", 1)) - 1


def of_app(app_id: str, invoice_id: str) -> Invoice:
    try:
        uuid.UUID(invoice_id)
    except ValueError:
        raise not_found(INVOICE_NOT_FOUND, "No such invoice") from None
    invoice = find(invoice_id)
    if invoice is None or invoice.appId != app_id:
        raise not_found(INVOICE_NOT_FOUND, "No such invoice")
    return invoice


def by_reference(app_id: str, reference: str) -> Invoice | None:
    pointer = get(f"REF#{app_id}#{reference}", "REF")
    return find(str(pointer["invoiceId"])) if pointer else None


def page(app_id: str, account_id: str | None, status: str | None, query: PageQuery) -> tuple[list[Invoice], int]:
    """Newest first: an append-only list (the app's, the account's) or, for one status, the status index."""
    if status is not None:
        found, total = status_page("INVOICE", app_id, account_id, status, query)
    else:
        chosen = account_list(app_id, account_id) if account_id else app_list(app_id)
        found, total = records_page(chosen, query, "invoiceId", key)
    return [Invoice.from_item(i) for i in found], total


def public(invoice: Invoice) -> dict[str, Any]:
    network = registry().any_by_name(invoice.network)
    token = network.custody_token(invoice.tokenCode) if network else None
    decimals = token.decimals if token else 0
    return {
        "id": invoice.id,
        "accountId": invoice.accountId,
        "status": invoice.status,
        "network": invoice.network,
        "chainId": invoice.chainId,
        "tokenCode": invoice.tokenCode,
        "amount": format_units(int(invoice.amountInDecimals), decimals),
        "amountInDecimals": invoice.amountInDecimals,
        "reference": invoice.reference,
        "walletId": invoice.walletId,
        "depositAddress": invoice.depositAddress,
        "addressType": invoice.addressType,
        "expiresAt": invoice.expiresAt,
        "bufferInSeconds": invoice.bufferInSeconds,
        "createdAt": invoice.createdAt,
        "paidAt": invoice.paidAt,
        "failedAt": invoice.failedAt,
        "expiredAt": invoice.expiredAt,
        "transactionHash": invoice.transactionHash,
        "depositId": invoice.matchedDeposit,
        "failedReason": invoice.failedReason,
        "receivedAmountInDecimals": invoice.receivedAmountInDecimals,
    }


def close_items(
    invoice: Invoice, pair: TokenOnNetwork, to: str, *, expect: Mapping[str, object] | None = None, **changes: Any
) -> list[aws.TxItem]:
    """The writes that end a pending invoice (for the caller's transaction): its move to `to` with `changes`
    (the `invoice` item; `expect`: attributes it must still hold as read), its open marker, its place in the
    expiry sweep."""
    return [
        transition(invoice, to, expect=expect, **changes),
        aws.update(
            "open",
            TABLE,
            open_key(invoice.accountId, pair),
            aws.Changes(set={"open": False}),
            aws.Condition("invoiceId = :i", values={":i": invoice.id}),
        ),
        aws.delete("expiring", TABLE, {"pk": EXPIRING, "sk": f"{invoice.deadline}#{invoice.id}"}),
    ]


def match_item(invoice: Invoice, deposit_id: str) -> aws.TxItem:
    """The invoice's payment is `deposit_id` (item "invoice-match"): only while pending without one."""
    return aws.update(
        "invoice-match",
        TABLE,
        invoice.key(),
        aws.Changes(set={"matchedDeposit": deposit_id}),
        aws.Condition(
            "#s = :pending AND attribute_not_exists(matchedDeposit)", {"#s": "status"}, {":pending": "pending"}
        ),
    )


def unmatch_item(invoice_id: str, deposit_id: str) -> aws.TxItem:
    """The payment `deposit_id` left the chain: the invoice is free again (item "invoice-unmatch")."""
    return aws.update(
        "invoice-unmatch",
        TABLE,
        key(invoice_id),
        aws.Changes(remove=["matchedDeposit"]),
        aws.Condition("matchedDeposit = :d", values={":d": deposit_id}),
    )


def expire_due(limit: int = 100, read_at_most: int = 2000) -> int:
    """The expiry sweep: pending invoices past `expiresAt + bufferInSeconds` without a payment confirming, once the
    watcher of their network has scanned past that deadline (a payment mined in time but not scanned yet by a
    lagging watcher still pays the invoice)."""
    from boto3.dynamodb.conditions import Key

    request: dict[str, Any] = {
        "KeyConditionExpression": Key("pk").eq(EXPIRING) & Key("sk").lte(clock.iso_now()),  # `<deadline>#<id>`
        "ConsistentRead": True,
        "Limit": 200,
    }
    scanned: dict[int, float] = {}
    expired = read = 0
    while expired < limit and read < read_at_most:
        answer = aws.table(TABLE).query(**request)
        for marker in answer["Items"]:
            read += 1
            invoice = find(str(marker["invoiceId"]))
            if invoice is None or invoice.status != "pending" or invoice.matchedDeposit:
                continue  # settled, or a payment seen in time is confirming (then it is paid or failed)
            if invoice.chainId not in scanned:
                known = cursor.read(invoice.chainId) or {}
                scanned[invoice.chainId] = float(known.get("scannedTime", 0))
            if scanned[invoice.chainId] < clock.parse_iso(invoice.deadline).timestamp():
                continue  # the watcher has not read the chain up to the deadline yet
            if _expire(invoice):
                expired += 1
            if expired >= limit:
                break
        if "LastEvaluatedKey" not in answer:
            break
        request["ExclusiveStartKey"] = answer["LastEvaluatedKey"]
    return expired


def _expire(invoice: Invoice) -> bool:
    pair = accepted(invoice.network, invoice.tokenCode)
    now = clock.iso_now()
    # A payment seen meanwhile (matchedDeposit) keeps the invoice pending: it is paid or failed at its credit.
    items = close_items(invoice, pair, "expired", expect={"matchedDeposit": ABSENT}, expiredAt=now)
    data = events.invoice_expired(invoice.to_item(), pair, invoice.userId, now)
    event = Event(invoice.appId, "invoice.expired", f"invoice.expired:{invoice.id}", data)
    try:
        unit_of_work.commit(Plan(items, event=event), on_busy=busy)
    except aws.TransactionCancelledError:
        return False  # a payment was seen meanwhile, or another sweep expired it
    logger.info("invoice expired", extra={"invoiceId": invoice.id})
    return True
