"""The deposit use cases behind the routes: invoices, deposits and the watcher's state, as wire models."""

from __future__ import annotations

from chalicelib.custody import accounts, cursor
from chalicelib.custody.deposits import invoices
from chalicelib.custody.deposits import lifecycle as deposits
from chalicelib.custody.deposits.models import (
    CreateInvoiceRequest,
    Deposit,
    DepositListQuery,
    DepositPage,
    Invoice,
    InvoiceListQuery,
    InvoicePage,
    WatcherStatus,
)
from chalicelib.custody.tokens import custody_network
from chalicelib.platform.errors import bad_request
from chalicelib.platform.networks import registry
from chalicelib.platform.pagination import pagination
from chalicelib.tenancy.models import App


def create_invoice(app: App, request: CreateInvoiceRequest) -> Invoice:
    invoice = invoices.create(
        app,
        request.accountId,
        request.network,
        request.tokenCode,
        request.amount,
        request.reference,
        request.expiresInSeconds,
        request.addressType,
    )
    return Invoice.model_validate(invoices.public(invoice))


def invoice(app: App, invoice_id: str) -> Invoice:
    return Invoice.model_validate(invoices.public(invoices.of_app(app.appId, invoice_id)))


def invoice_page(app: App, query: InvoiceListQuery) -> InvoicePage:
    if query.accountId is not None:
        accounts.of_app(app.appId, query.accountId)
    if query.reference is not None:  # the way back to an invoice whose creation's answer was lost
        found = invoices.by_reference(app.appId, query.reference)
        matching = [
            i
            for i in ([found] if found else [])
            if (query.accountId is None or i.accountId == query.accountId)
            and (query.status is None or i.status == query.status)
        ]
        start = (query.page - 1) * query.limit
        return InvoicePage(
            data=[Invoice.model_validate(invoices.public(i)) for i in matching[start : start + query.limit]],
            pagination=pagination(len(matching), query),
        )
    records, total = invoices.page(app.appId, query.accountId, query.status, query)
    return InvoicePage(
        data=[Invoice.model_validate(invoices.public(i)) for i in records], pagination=pagination(total, query)
    )


def deposit(app: App, deposit_id: str) -> Deposit:
    record = deposits.of_app(app.appId, deposit_id)
    return Deposit.model_validate(deposits.public(record, _head(int(record["chainId"]))))


def deposit_page(app: App, query: DepositListQuery) -> DepositPage:
    if query.accountId is not None:
        accounts.of_app(app.appId, query.accountId)
    if query.invoiceId is not None:
        invoices.of_app(app.appId, query.invoiceId)
    records, total = deposits.page(app.appId, query.accountId, query.invoiceId, query.status, query)
    heads: dict[int, int | None] = {}
    data = []
    for record in records:
        chain_id = int(record["chainId"])
        if chain_id not in heads:
            heads[chain_id] = _head(chain_id)
        data.append(Deposit.model_validate(deposits.public(record, heads[chain_id])))
    return DepositPage(data=data, pagination=pagination(total, query))


def watcher_status(network_name: str) -> WatcherStatus:
    network = custody_network(network_name)
    if not network.custody:
        raise bad_request(
            "NETWORK_NOT_CUSTODIAL",
            f"{network.name} has no custody tokens",
            errors=[{"field": "network", "message": "no custody tokens configured", "type": "network"}],
        )
    return WatcherStatus.model_validate(cursor.status(network))


def _head(chain_id: int) -> int | None:
    """The head the watcher last saw (confirmations of pending deposits are counted from it)."""
    network = registry().any_by_chain_id(chain_id)
    known = cursor.read(chain_id) if network else None
    return int(known["head"]) if known and "head" in known else None
