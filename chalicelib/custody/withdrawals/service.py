"""The withdrawal use cases behind the routes: requests, reads and the app's allowlist, as wire models."""

from __future__ import annotations

from chalicelib.custody import accounts
from chalicelib.custody.withdrawals import lifecycle as withdrawals
from chalicelib.custody.withdrawals import operator_policy
from chalicelib.custody.withdrawals.models import (
    Allowlist,
    CreateWithdrawalRequest,
    Withdrawal,
    WithdrawalListQuery,
    WithdrawalPage,
)
from chalicelib.platform.pagination import pagination
from chalicelib.tenancy.models import App


def create_withdrawal(app: App, request: CreateWithdrawalRequest) -> Withdrawal:
    record = withdrawals.create(
        app, request.accountId, request.network, request.tokenCode, request.to, request.amount, request.reference
    )
    return Withdrawal.model_validate(withdrawals.public(record))


def withdrawal(app: App, withdrawal_id: str) -> Withdrawal:
    return Withdrawal.model_validate(withdrawals.public(withdrawals.of_app(app.appId, withdrawal_id)))


def withdrawal_page(app: App, query: WithdrawalListQuery) -> WithdrawalPage:
    if query.accountId is not None:
        accounts.of_app(app.appId, query.accountId)
    records, total = withdrawals.page(app.appId, query.accountId, query.status, query)
    return WithdrawalPage(
        data=[Withdrawal.model_validate(withdrawals.public(r)) for r in records], pagination=pagination(total, query)
    )


def allowlist(app: App) -> Allowlist:
    return Allowlist.model_validate(operator_policy.allowlist(app.appId, app.organizationId))
