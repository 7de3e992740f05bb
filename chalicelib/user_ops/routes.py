"""User-operation routes (Family S): estimates and hashes for each kind, activation, submit, views, lists."""

from __future__ import annotations

from typing import Any

from chalice import Blueprint

from chalicelib.auth import guards
from chalicelib.gas_tanks import service as gas_tanks
from chalicelib.gas_tanks.models import SponsorshipCheck, UsagePage
from chalicelib.platform.pagination import page_query
from chalicelib.platform.path_ids import PathId
from chalicelib.platform.router import Call, Reply, route
from chalicelib.smart_accounts.routes import OWNER_ID
from chalicelib.user_ops import build, service
from chalicelib.user_ops.models import (
    Activate,
    Batch,
    Estimate,
    HashResult,
    SendCoin,
    SendErc721,
    SendErc1155,
    SendToken,
    SignTransaction,
    SponsorshipCheckRequest,
    Submit,
    UserOperation,
    UserOperationPage,
)

bp = Blueprint(__name__)
ListQuery = page_query(10)
TAG = "User operations"
USER_OP_ID = PathId(service.USER_OP_NOT_FOUND, "No user operation with this id in this app")
# What building an operation may answer (estimates and hashes of every kind, activation).
BUILD_ERRORS = {
    404: ("ACCOUNT_NOT_FOUND",),
    422: ("BUNDLER_REFUSED", "NETWORK_WITHOUT_GAS_TANKS"),
    502: ("UPSTREAM_UNAVAILABLE",),
}


def _call_for(body: Any) -> service.MakeCall:
    """How the operation's call is made from the body, given the account (the sender of token transfers)."""
    if isinstance(body, SendCoin):
        return lambda _: build.coin(body.to, int(body.amount))
    if isinstance(body, SendToken):
        return lambda _: build.token(body.tokenAddress, body.to, int(body.amount))
    if isinstance(body, SendErc721):
        return lambda a: build.erc721(body.tokenAddress, a.aaAddress, body.to, int(body.tokenId))
    if isinstance(body, SendErc1155):
        return lambda a: build.erc1155(
            body.tokenAddress,
            a.aaAddress,
            body.to,
            int(body.tokenId),
            int(body.amount),
            bytes.fromhex(body.data[2:]),
        )
    if isinstance(body, SignTransaction):
        return lambda _: build.transaction(body.to, int(body.value), bytes.fromhex(body.callData[2:]))
    if isinstance(body, Batch):
        return lambda _: build.batch(
            [build.Target(c.to, int(c.value), bytes.fromhex(c.callData[2:])) for c in body.calls]
        )
    return lambda _: build.activation()


KINDS: dict[str, tuple[type[Any], str]] = {
    "sendCoin": (SendCoin, "a coin transfer"),
    "sendToken": (SendToken, "an ERC-20 transfer"),
    "sendERC721": (SendErc721, "an ERC-721 transfer"),
    "sendERC1155": (SendErc1155, "an ERC-1155 transfer"),
    "signTransaction": (SignTransaction, "an arbitrary call"),
    "batch": (Batch, "a batch of calls (executeBatch: in order, all or none)"),
}


def _register(kind: str, body: type[Any], what: str) -> None:
    def estimate(call: Call) -> Reply:
        return Reply(service.estimate(call.principal, call.body.accountId, _call_for(call.body)))

    def hash_operation(call: Call) -> Reply:
        return Reply(service.hash_operation(call.principal, call.body.accountId, _call_for(call.body)))

    # Chalice names each view after its function: one name per route.
    estimate.__name__ = estimate.__qualname__ = f"estimate_{kind}"
    hash_operation.__name__ = hash_operation.__qualname__ = f"hash_{kind}"
    route(
        bp,
        f"/api/v1/userOp/{kind}/estimate",
        "POST",
        summary=f"Estimate {what}: the maximum cost in wei and in gas-tank units (fees included); records nothing",
        tag=TAG,
        guard=guards.signed_request,
        body=body,
        response=Estimate,
        errors=BUILD_ERRORS,
        description=f"Family S. The maximum cost of {what} from the smart account, in wei (`requiredNative`) and in "
        f"gas-tank base units (`requiredGasTankBalance`, fees included). Nothing is recorded.",
    )(estimate)
    route(
        bp,
        f"/api/v1/userOp/{kind}/hash",
        "POST",
        summary=f"Build {what} (state `created`) and return the hash the owner signs",
        tag=TAG,
        guard=guards.signed_request,
        body=body,
        response=HashResult,
        errors=BUILD_ERRORS,
        description=f"Family S. Builds {what} (state `created`, valid until `validUntil`) and returns its ERC-4337 "
        f"hash: have the owner sign it and send it to `POST /api/v1/userOp/submit`.",
    )(hash_operation)


for _kind, (_body, _what) in KINDS.items():
    _register(_kind, _body, _what)


@route(
    bp,
    "/api/v1/userOp/activate/hash",
    "POST",
    summary="Build an operation that only deploys the account (empty call); submit it like any other",
    tag=TAG,
    guard=guards.signed_request,
    body=Activate,
    response=HashResult,
    errors={
        404: ("ACCOUNT_NOT_FOUND",),
        422: ("BUNDLER_REFUSED", "NETWORK_WITHOUT_GAS_TANKS"),
        502: ("UPSTREAM_UNAVAILABLE",),
    },
    description="Family S. Deploys the counterfactual account without doing anything else (any first operation "
    "deploys it too); an `eip7702` account's delegates the wallet. Sign the hash and submit it like any other "
    "operation.",
)
def hash_activation(call: Call) -> Reply:
    return Reply(service.hash_operation(call.principal, call.body.accountId, _call_for(call.body)))


@route(
    bp,
    "/api/v1/userOp/submit",
    "POST",
    summary="Submit a signed operation: charge the payer's gas tank and send it to the bundler",
    tag=TAG,
    guard=guards.signed_request,
    body=Submit,
    response=UserOperation,
    errors={
        400: ("AUTHORIZATION_REQUIRED", "HASH_MISMATCH", "INVALID_AUTHORIZATION", "INVALID_USER_OP_SIGNATURE"),
        403: ("SPONSORSHIP_DENIED",),
        404: ("USER_OP_NOT_FOUND",),
        409: ("USER_OP_ALREADY_SUBMITTED",),
        422: (
            "AUTHORIZATION_NONCE_MISMATCH",
            "INSUFFICIENT_GAS_TANK_BALANCE",
            "NETWORK_WITHOUT_GAS_TANKS",
            "USER_OP_EXPIRED",
        ),
        502: ("UPSTREAM_UNAVAILABLE",),
        503: ("LIST_BUSY",),
    },
    description="Family S. Checks the owner's signature and the hash, charges the paying tank its maximum cost (the "
    "organization's when `isSponsored`, else the owner's), and sends the operation to the bundler: "
    "status `on_process`, then `success` or `failed` (events `userOp.success` / `userOp.failed`); the "
    "unused part of the charge is refunded. A sponsored operation is first judged by the app's gas sponsorship "
    "policy (`PUT /api/v1/client/gasTank/policy`), atomically with its debit: refused, it is `403 "
    "SPONSORSHIP_DENIED` with `data.rule`, and nothing is charged or sent. An `eip7702` account's operation "
    "(`bundlerVersion` `0.8`) is signed over its hash itself (sign-typed-data of the hash call's `typedData`), and "
    "one that `delegates` the wallet needs `eip7702Auth`: the wallet's authorization of the network's "
    "Simple7702Account at its current nonce (POST /api/v1/wallet/sign-authorization).",
)
def submit(call: Call) -> Reply:
    body = call.body
    return Reply(
        service.submit(call.principal, body.userOpId, body.hash, body.signature, body.isSponsored, body.eip7702Auth)
    )


@route(
    bp,
    "/api/v1/userOp/sponsorship/check",
    "POST",
    summary="Would the app's gas sponsorship policy pay for this operation, and what is left of each cap",
    tag=TAG,
    guard=guards.signed_request,
    body=SponsorshipCheckRequest,
    response=SponsorshipCheck,
    errors={
        **BUILD_ERRORS,
        400: ("INVALID_ADDRESS", "INVALID_AMOUNT"),
        404: (*BUILD_ERRORS[404], "USER_OP_NOT_FOUND"),
        503: ("LIST_BUSY",),
    },
    description="Family S. Either `{userOpId}` (an operation that was hashed) or the `signTransaction/estimate` "
    "body (`accountId`, `to`, `value`, `callData`). Judges it by the app's sponsorship policy now, as a sponsored "
    "submit would, and answers the rule that would refuse it and what is left of each cap (null where the policy "
    "sets none). Counts, charges and sends nothing.",
)
def sponsorship_check(call: Call) -> Reply:
    return Reply(service.sponsorship_check(call.principal, call.body))


@route(
    bp,
    "/api/v1/userOp",
    "GET",
    summary="Submitted operations of all owners of the app, newest first, each with its usage record",
    tag=TAG,
    guard=guards.signed_request,
    query=ListQuery,
    response=UserOperationPage,
    description="Family S. Operations submitted for every owner of the app, each with the usage record of its gas "
    "tank charge (`clientGasTankUsageHistory`). Query `page` (from 1) and `limit`; the answer is `{data, "
    "pagination}` with `total`, `totalPages`, `hasNext`, `hasPrev`.",
)
def list_all(call: Call) -> Reply:
    return Reply(service.page_for_app(call.principal, call.query))


@route(
    bp,
    "/api/v1/userOp/owner/{ownerId}",
    "GET",
    summary="Submitted operations of one owner (record id or address), newest first",
    tag=TAG,
    guard=guards.signed_request,
    query=ListQuery,
    response=UserOperationPage,
    errors={404: ("OWNER_NOT_FOUND",)},
    ids={"ownerId": OWNER_ID},
    description="Family S. Operations submitted for one owner; `ownerId` is the owner record id or the owner "
    "address. Query `page` (from 1) and `limit`; the answer is `{data, pagination}` with `total`, "
    "`totalPages`, `hasNext`, `hasPrev`.",
)
def list_owner(call: Call) -> Reply:
    return Reply(service.page_for_owner(call.principal, call.path_params["ownerId"], call.query))


@route(
    bp,
    "/api/v1/userOp/{id}",
    "GET",
    summary="One user operation",
    tag=TAG,
    guard=guards.signed_request,
    response=UserOperation,
    errors={404: ("USER_OP_NOT_FOUND",)},
    ids={"id": USER_OP_ID},
    description="Family S. One user operation of the app by its `userOpId`, in any state (`created`, `on_process`, "
    "`success`, `failed`).",
)
def get_one(call: Call) -> Reply:
    return Reply(service.get(call.principal, call.path_params["id"]))


@route(
    bp,
    "/api/v1/smart-account/{ownerId}/usage/history",
    "GET",
    summary="What user operations charged an owner's gas tank, newest first",
    tag="Gas tanks",
    guard=guards.signed_request,
    query=ListQuery,
    response=UsagePage,
    errors={404: ("OWNER_NOT_FOUND",)},
    ids={"ownerId": OWNER_ID},
    description="Family S. One record per user operation paid by the owner's gas tank: what was deducted at submit "
    "and what was refunded. Query `page` (from 1) and `limit`; the answer is `{data, pagination}` with "
    "`total`, `totalPages`, `hasNext`, `hasPrev`.",
)
def owner_usage_history(call: Call) -> Reply:
    return Reply(gas_tanks.owner_usage(call.principal, call.path_params["ownerId"], call.query))
