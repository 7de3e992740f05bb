"""The OpenAPI document (/openapi.json) is one integrators and the SDK generators can rely on: valid OpenAPI 3.1,
stable operationIds, a summary, a description and examples on every operation (examples the models accept), the
`data.code` values of every error status (and every code a route's code can raise among them), the Family S
recipe, the API version and the webhook `apiVersion`."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from openapi_spec_validator import validate
from pydantic import BaseModel

from chalicelib.auth import signing
from chalicelib.auth.guards import ACCESS_TOKEN_REQUIRED, WALLET_TOKEN_REQUIRED
from chalicelib.platform import examples, outbox
from chalicelib.platform.envelope import to_jsonable
from chalicelib.platform.router import ROUTES, RouteSpec
from tests.contract.error_codes import RaiseSite, Scanner


def _served() -> dict[str, Any]:
    from app import app
    from chalicelib.system.routes import _openapi_json

    app.load_all()  # the routes' modules, whose blueprints the document is built from

    return dict(json.loads(_openapi_json()))


DOCUMENT = _served()
OPERATIONS = [
    (path, method, operation) for path, methods in DOCUMENT["paths"].items() for method, operation in methods.items()
]

# Generated SDKs (sdk/) name their functions after these: an operationId never changes. A new route adds its own.
STABLE_OPERATION_IDS = {
    "deleteWebhooksSettings",
    "getAuthSession",
    "getAuthWhoami",
    "getClientGasTank",
    "getClientGasTankTopUpHistory",
    "getCustodyAccounts",
    "getCustodyAccountsByAccountId",
    "getCustodyAccountsByAccountIdBalances",
    "getCustodyAccountsByAccountIdEntries",
    "getCustodyDeposits",
    "getCustodyDepositsByDepositId",
    "getCustodyGasWallets",
    "getCustodyInvoices",
    "getCustodyInvoicesByInvoiceId",
    "getCustodyNetworksByNetworkWatcher",
    "getCustodyTokens",
    "getCustodyWithdrawalAllowlist",
    "getCustodyWithdrawals",
    "getCustodyWithdrawalsByWithdrawalId",
    "getDocs",
    "getGasTankOrganizationUsageHistory",
    "getHealth",
    "getHealthDetails",
    "getJwks",
    "getNetworks",
    "getOpenapi",
    "getPolicies",
    "getSmartAccountByOwnerId",
    "getSmartAccountByOwnerIdTopUpHistory",
    "getSmartAccountByOwnerIdUsageHistory",
    "getUserOp",
    "getUserOpById",
    "getUserOpOwnerByOwnerId",
    "getWalletSignatures",
    "getWalletTransactions",
    "getWalletTransactionsByHash",
    "getWebhooksDeliveries",
    "getWebhooksPublicKey",
    "getWebhooksSettings",
    "postAccountCreate",
    "postAccountImport",
    "postAccountRecover",
    "postAuthLogin",
    "postAuthRefresh",
    "postClientGasTankTopUp",
    "postCustodyAccounts",
    "postCustodyInvoices",
    "postCustodyWithdrawals",
    "postPoliciesEvaluate",
    "postSmartAccount",
    "postSmartAccountTopUp",
    "postUserOpActivateHash",
    "postUserOpSendCoinEstimate",
    "postUserOpSendCoinHash",
    "postUserOpSendERC1155Estimate",
    "postUserOpSendERC1155Hash",
    "postUserOpSendERC721Estimate",
    "postUserOpSendERC721Hash",
    "postUserOpSendTokenEstimate",
    "postUserOpSendTokenHash",
    "postUserOpSignTransactionEstimate",
    "postUserOpSignTransactionHash",
    "postUserOpSubmit",
    "postWalletBalanceCoin",
    "postWalletBalanceToken",
    "postWalletSendCoin",
    "postWalletSendToken",
    "postWalletSendTransaction",
    "postWalletSignMessage",
    "postWalletSignTypedData",
    "postWalletTransferErc721",
    "postWalletTransactionsByHashSpeedUp",
    "postWalletTransactionsByHashCancel",
    "postWebhooksDeliveriesByIdRetry",
    "postWebhooksTest",
    "putPolicies",
    "putPoliciesKey",
    "putWebhooksSettings",
}


def test_the_document_is_valid_openapi_3_1() -> None:
    validate(DOCUMENT)
    assert DOCUMENT["openapi"] == "3.1.0"


def test_operation_ids_are_stable_unique_and_camel_case() -> None:
    ids = [operation["operationId"] for _, _, operation in OPERATIONS]
    assert len(ids) == len(set(ids)), sorted(i for i in ids if ids.count(i) > 1)
    assert all(re.fullmatch(r"[a-z]+(?:[A-Z0-9][a-z0-9]*)*", i) for i in ids), ids
    missing = STABLE_OPERATION_IDS - set(ids)
    assert not missing, f"operationIds the SDKs use disappeared: {sorted(missing)}"


def test_every_operation_has_a_summary_a_description_and_examples() -> None:
    for path, method, operation in OPERATIONS:
        where = f"{method.upper()} {path}"
        assert operation.get("summary") and operation.get("description"), where
        assert operation["description"] != operation["summary"], f"{where}: the description repeats the summary"
        assert operation.get("tags"), where
        if "requestBody" in operation:
            assert operation["requestBody"]["content"]["application/json"].get("example") is not None, where
        ok = operation["responses"]["200"]
        content = next(iter(ok.get("content", {}).values()), {})
        assert "example" in content or "examples" in content, where
        if "application/json" in ok.get("content", {}) and path.startswith("/api/"):
            example = content["example"]
            assert example["status"] == 200 and isinstance(example["message"], str), where


def _route(path: str, method: str) -> RouteSpec:
    return next(r for r in ROUTES if r.path == path and r.method == method.upper())


API_OPERATIONS = [(p, m, o) for p, m, o in OPERATIONS if any(r.path == p and r.method == m.upper() for r in ROUTES)]


@pytest.mark.parametrize(
    ("path", "method", "operation"), API_OPERATIONS, ids=[o["operationId"] for *_, o in API_OPERATIONS]
)
def test_the_examples_are_what_the_service_reads_and_answers(path: str, method: str, operation: dict[str, Any]) -> None:
    """A request example passes the route's own strict parsing; a response example is a valid answer of the
    response model, field for field (nothing the model would not send, nothing it needs missing)."""
    spec = _route(path, method)
    if spec.body is not None:
        example = operation["requestBody"]["content"]["application/json"]["example"]
        spec.body.model_validate_json(json.dumps(example), strict=True)
    ok = operation["responses"]["200"]["content"]["application/json"]["example"]
    if spec.response is not None:
        data = ok["data"]
        _is_an_answer_of(spec.response, data)


def _is_an_answer_of(model: type[BaseModel], data: Any) -> None:
    parsed = model.model_validate(data)
    again = to_jsonable(parsed)  # what the envelope sends
    assert again == data, f"{model.__name__}: the example is not what the model answers:\n{data}\n{again}"


def test_every_error_status_lists_its_codes_with_an_example_each() -> None:
    for path, method, operation in OPERATIONS:
        for status, response in operation["responses"].items():
            if int(status) < 400:
                continue
            codes = response.get("x-error-codes")
            assert codes, f"{method.upper()} {path} {status}: no data.code listed"
            examples = response["content"]["application/json"]["examples"]
            assert list(examples) == codes
            assert all(
                e["value"]["status"] == int(status) and e["value"]["data"]["code"] == c
                for c, e in zip(codes, examples.values(), strict=True)
            )


def _documented(path: str, method: str) -> set[tuple[int, str]]:
    responses = DOCUMENT["paths"][path][method.lower()]["responses"]
    return {(int(s), c) for s, r in responses.items() for c in r.get("x-error-codes", [])}


def _computed_sites() -> dict[str, dict[int, set[str]]]:
    """Raise sites whose code is computed, with the codes they can give (read from the tables they use)."""
    from chalicelib.custody.withdrawals import lifecycle as withdrawals
    from chalicelib.evm import typed_data
    from chalicelib.platform import egress
    from chalicelib.policies import service as policies

    refusals: dict[int, set[str]] = {}
    for code, status in policies._REFUSALS.items():
        refusals.setdefault(status, set()).add(code)
    typed = {400: {typed_data.INVALID_TYPED_DATA, typed_data.TYPED_DATA_TOO_LARGE}}
    return {
        "chalicelib.custody.withdrawals.lifecycle._daily": {422: {code for code, _ in withdrawals._REFUSALS.values()}},
        "chalicelib.policies.service._ask": refusals,
        "chalicelib.policies.service.set_policy": {400: {policies.INVALID_POLICY, policies.POLICY_TOO_LARGE}},
        "chalicelib.policies.service._payload": typed,
        "chalicelib.wallets.signatures.sign_typed_data": typed,
        "chalicelib.webhooks.service.set_url": {
            400: {egress.INVALID_URL, egress.NOT_HTTPS, egress.FORBIDDEN_ADDRESS, egress.UNRESOLVABLE}
        },
    }


SCANNER = Scanner()

# Pairs the scan reaches that the route cannot answer, each with the reason (keep this short).
NOT_ANSWERED: dict[tuple[str, str], dict[tuple[int, str], str]] = {
    ("GET", "/api/v1/health/details"): {
        (502, "UPSTREAM_UNAVAILABLE"): "each network's check catches its RPC failure (system.routes._network_status)",
    },
    ("POST", "/api/v1/userOp/activate/hash"): {
        (400, "INVALID_ADDRESS"): "the v0.8 hash reads the service's own typed data (packing.user_op_typed_data)",
    },
    **{
        route: {
            (422, "AUTHORIZATION_NONCE_MISMATCH"): "only send-transaction takes the caller's authorizationList; "
            "delegate signs the wallet's own at the nonce + 1 itself"
        }
        for route in (
            ("POST", "/api/v1/wallet/send-coin"),
            ("POST", "/api/v1/wallet/send-token"),
            ("POST", "/api/v1/wallet/transfer-erc721"),
            ("POST", "/api/v1/wallet/delegate"),
        )
    },
    **{
        route: {(503, "SIGNER_BUSY"): "a cosigner action takes no run slot; policies.service answers its own 503"}
        for route in (
            ("GET", "/api/v1/policies"),
            ("PUT", "/api/v1/policies"),
            ("PUT", "/api/v1/policies/key"),
            ("POST", "/api/v1/policies/evaluate"),
        )
    },
}


def _answerable(spec: RouteSpec) -> tuple[set[tuple[int, str]], list[RaiseSite]]:
    from app import app

    app.load_all()
    handler = app.routes[spec.path][spec.method].view_function.__wrapped__  # type: ignore[attr-defined]
    _, sites = SCANNER.reach([handler, spec.guard] if spec.guard else [handler])
    computed = _computed_sites()
    # The guard's token-kind check answers only the refusal of the kinds it does not allow (its `errors`).
    kind_refusals = {(403, ACCESS_TOKEN_REQUIRED), (403, WALLET_TOKEN_REQUIRED)}
    allowed = {(403, code) for code in spec.guard.errors.get(403, ())} if spec.guard else set()
    pairs: set[tuple[int, str]] = set()
    unknown: list[RaiseSite] = []
    for site in sites:
        if site.code is not None and site.status:
            pairs.add((site.status, site.code))
        elif site.where in computed:
            pairs |= {(status, code) for status, codes in computed[site.where].items() for code in codes}
        else:
            unknown.append(site)
    not_answered = set(NOT_ANSWERED.get((spec.method, spec.path), {}))
    return pairs - (kind_refusals - allowed) - not_answered, unknown


@pytest.mark.parametrize("spec", ROUTES, ids=[f"{r.method} {r.path}" for r in ROUTES])
def test_every_code_a_route_can_raise_is_in_its_document(spec: RouteSpec) -> None:
    """Read from the code (tests/contract/error_codes.py): every (status, code) raised by a function the handler or
    its guard can reach is listed under that status. Add it to the route's `errors=`, or to the guard's."""
    pairs, unknown = _answerable(spec)
    assert not unknown, f"raise sites with a computed code: add them to _computed_sites: {unknown}"
    missing = sorted(pairs - _documented(spec.path, spec.method))
    assert not missing, f"{spec.method} {spec.path} can answer codes its document does not list: {missing}"


def test_the_scan_sees_what_it_should() -> None:
    """The scan finds codes raised deep below a handler (a guard's, a service's, a shared layer's)."""
    send = _route("/api/v1/wallet/send-coin", "POST")
    pairs, _ = _answerable(send)
    assert {
        (401, "TOKEN_EXPIRED"),
        (404, "WALLET_NOT_FOUND"),
        (422, "INSUFFICIENT_FUNDS"),
        (503, "NONCE_BUSY"),
        (503, "SIGNER_BUSY"),
    } <= pairs


def test_every_listed_code_exists() -> None:
    """A listed code is one the code base defines (a `NAME = "NAME"` constant), so a typo cannot hide a code."""
    import sys

    known = {
        value
        for name, module in list(sys.modules.items())
        if name.startswith("chalicelib")
        for key, value in vars(module).items()
        if isinstance(value, str) and key.isupper() and re.fullmatch(r"[A-Z][A-Z0-9_]+", value)
    }
    listed = {c for p, m, _ in OPERATIONS for _, c in _documented(p, m)}
    assert listed - known == set()


def test_the_signing_recipe_and_its_worked_example_are_in_the_security_scheme() -> None:
    description = DOCUMENT["components"]["securitySchemes"]["appSignature"]["description"]
    assert "HMAC-SHA256" in description and 'X-TIMESTAMP + "." + METHOD + "." + path_with_query + "." + raw_body' in (
        description
    )
    message, signature = re.search(
        r"signs the message `([^`]+)` and sends\s+`X-SIGNATURE: ([0-9a-f]{64})`", description
    ).groups()  # type: ignore[union-attr]
    timestamp, method, rest = message.split(".", 2)
    path, body = rest.split(".", 1)
    assert signing.sign("das_example-secret-do-not-use", timestamp, method, path, body.encode()) == signature


def test_the_document_states_the_api_and_webhook_versions() -> None:
    from chalicelib.system.routes import VERSION

    assert DOCUMENT["info"]["version"] == VERSION
    assert DOCUMENT["info"]["x-webhook-api-version"] == outbox.API_VERSION
    assert f"`{outbox.API_VERSION}`" in DOCUMENT["info"]["description"]
    event = DOCUMENT["components"]["schemas"]["WebhookEvent"]
    assert event["properties"]["apiVersion"]["const"] == outbox.API_VERSION
    assert (
        DOCUMENT["webhooks"]["event"]["post"]["requestBody"]["content"]["application/json"]["example"]["apiVersion"]
        == outbox.API_VERSION
    )


def test_the_operation_examples_are_the_models_own() -> None:
    """Unless the route gives its own, an example is its model's, made from the model's field examples
    (platform/examples.py): a request as a client sends it, an answer as the model sends it."""
    for path, method, operation in API_OPERATIONS:
        spec = _route(path, method)
        if spec.body is not None and spec.request_example is None:
            sent = operation["requestBody"]["content"]["application/json"]["example"]
            assert sent == examples.example(spec.body, request=True), f"{method.upper()} {path}"
        if spec.response is not None and spec.response_example is None:
            answered = operation["responses"]["200"]["content"]["application/json"]["example"]["data"]
            assert answered == examples.example(spec.response), f"{method.upper()} {path}"
