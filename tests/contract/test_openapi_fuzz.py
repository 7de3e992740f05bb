"""Contract fuzzing: schemathesis over every operation of the service's own /openapi.json.

Valid and invalid requests (schemathesis' positive and negative modes) go through the real router, guards and
services (AWS is moto, the MPC wallet is real, the one network's RPC URL refuses connections). Every request
carries valid credentials for its family, so the fuzzing reaches past authentication: Family W gets the client
secret and the right kind of token, Family S an HMAC signature over the exact bytes sent. Each answer must be
the envelope, match the status codes and schemas the document declares, and never be a 5xx other than the
declared 502/503 with an error code. An operation added later is fuzzed without new test code.
"""

from __future__ import annotations

import io
import json
import os
from collections.abc import Iterator
from typing import Any
from urllib.parse import urlsplit

import pytest
import requests
import schemathesis
from eth_utils import to_checksum_address
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from moto import mock_aws
from requests.adapters import BaseAdapter
from requests.auth import AuthBase
from requests.structures import CaseInsensitiveDict
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_schema_conformance,
    status_code_conformance,
)
from urllib3 import HTTPResponse

from chalicelib.auth import users
from chalicelib.auth.guards import WalletFamilyGuard
from chalicelib.auth.service import wallet_token_for
from chalicelib.auth.tokens import TokenKind
from chalicelib.platform import networks
from chalicelib.platform import settings as service_settings
from chalicelib.platform.router import ROUTES
from chalicelib.tenancy import service as tenancy
from devtools import aux_cache, bootstrap
from scripts.dompet_sign import signed_headers
from tests.conftest import reset_caches

BASE_URL = "http://dompet.test"
EXAMPLES = int(os.environ.get("DOMPET_FUZZ_EXAMPLES", "25"))  # per operation; raise it locally to dig deeper
STATUSES: dict[str, set[int]] = {}  # per operation, every status the fuzzing saw
UPSTREAM_CODES = {502, 503}  # declared: a chain or bundler unavailable, or the request's time budget spent


class ChaliceAdapter(BaseAdapter):
    """Serves `requests` from the Chalice app in process (the gateway `chalice local` runs), byte for byte."""

    def __init__(self, http: Any) -> None:
        super().__init__()
        self.http = http

    def send(self, request: requests.PreparedRequest, **_: Any) -> requests.Response:  # type: ignore[override]
        url = urlsplit(str(request.url))
        body = request.body or b""
        answer = self.http.request(
            str(request.method),
            url.path + (f"?{url.query}" if url.query else ""),
            headers=dict(request.headers),
            body=body.encode() if isinstance(body, str) else body,
        )
        response = requests.Response()
        response.status_code = answer.status_code
        response.headers = CaseInsensitiveDict(answer.headers)
        # schemathesis reads the headers of the underlying urllib3 response
        response.raw = HTTPResponse(
            body=io.BytesIO(b""), headers=answer.headers, status=answer.status_code, version=11, preload_content=False
        )
        response._content = answer.body
        response.url = str(request.url)
        response.request = request
        response.reason = "OK" if answer.status_code < 400 else "Error"
        return response

    def close(self) -> None:
        pass


class Credentials(AuthBase):
    """Signs each request as its operation's family expects, over the final bytes of the request."""

    def __init__(self, tenant: Any, access_token: str, wallet_token: str) -> None:
        self.tenant, self.access_token, self.wallet_token = tenant, access_token, wallet_token

    def __call__(self, request: requests.PreparedRequest) -> requests.PreparedRequest:
        spec = _route_of(str(request.method), urlsplit(str(request.url)).path)
        guard = spec.guard if spec else None
        if guard is None:
            return request
        if "clientSecret" in guard.scheme:
            request.headers["x-client-secret"] = self.tenant.clientSecret
        if isinstance(guard, WalletFamilyGuard):
            token = self.wallet_token if TokenKind.WALLET in guard.kinds else self.access_token
            request.headers["Authorization"] = f"Bearer {token}"
        if "appSignature" in guard.scheme:
            body = request.body or b""
            body = body.encode() if isinstance(body, str) else body
            headers = signed_headers(
                self.tenant.appId, self.tenant.appSecret, str(request.method), str(request.url), body
            )
            headers.pop("Content-Type", None)  # the fuzzer's own Content-Type stays (it may be wrong on purpose)
            request.headers.update(headers)
        return request


def _route_of(method: str, path: str) -> Any:
    for spec in ROUTES:
        template = spec.path.strip("/").split("/")
        parts = path.strip("/").split("/")
        same_shape = spec.method == method.upper() and len(template) == len(parts)
        if same_shape and all(t.startswith("{") or t == p for t, p in zip(template, parts, strict=True)):
            return spec
    return None


@pytest.fixture(scope="module")
def service(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    """One bootstrapped moto, a tenant, a user without a wallet and one with a real MPC wallet."""
    from chalice.test import Client

    registry = tmp_path_factory.mktemp("fuzz") / "networks.json"
    registry.write_text(
        json.dumps(
            {
                "networks": [
                    {
                        "name": "fuzznet",
                        "chainId": 1337,
                        "rpcUrls": ["http://127.0.0.1:9"],  # the discard port: connections are refused at once
                        "nativeSymbol": "ETH",
                        "tokens": {"usdt": "0x" + "11" * 20},
                        # Smart accounts and gas tanks, so their operations reach their services too.
                        "usdtDecimals": 6,
                        "entryPoint": "0x0000000071727De22E5E9d8BAf0edAc6f37da032",
                        "accountFactory": "0x91E60e0613810449d098b0b5Ec8b51A0FE8c8985",
                        "paymaster": "0x" + "22" * 20,
                        "bundlerUrls": ["http://127.0.0.1:9"],
                        "poolAddress": "0x" + "33" * 20,
                        "nativeToGasTankRate": "2000",
                    }
                ]
            }
        )
    )
    with pytest.MonkeyPatch.context() as patch, mock_aws():
        patch.setenv("DOMPET_NETWORKS_FILE", str(registry))
        reset_caches()
        service_settings.load_settings.cache_clear()
        networks.registry.cache_clear()
        bootstrap.create_resources("test", "us-east-1")
        bootstrap.initialise()
        tenant = tenancy.create_tenant("Fuzz")
        from app import app

        with Client(app) as client:
            http = client.http
            access = _login(http, tenant, "without-wallet")["accessToken"]
            aux_cache.fill_pool(1)
            created = _post(http, tenant, "/api/v1/account/create", {}, _login(http, tenant, "with-wallet"))
            assert created.status_code == 200, created.body
            user = users.get(tenant.clientId, "with-wallet")
            assert user is not None and user.has_wallet
            yield {
                "http": http,
                "auth": Credentials(tenant, access, wallet_token_for(user).token),
            }
        service_settings.load_settings.cache_clear()
        networks.registry.cache_clear()
    reset_caches()


def _login(http: Any, tenant: Any, sub_id: str) -> dict[str, Any]:
    answer = http.post(
        "/api/v1/auth/login",
        headers={"x-client-secret": tenant.clientSecret, "Content-Type": "application/json"},
        body=json.dumps({"subId": sub_id}),
    )
    assert answer.status_code == 200, answer.body
    return dict(json.loads(answer.body)["data"])


def _post(http: Any, tenant: Any, path: str, body: dict[str, Any], tokens: dict[str, Any]) -> Any:
    headers = {
        "x-client-secret": tenant.clientSecret,
        "Authorization": f"Bearer {tokens.get('accessToken') or tokens['walletToken']}",
        "Content-Type": "application/json",
    }
    return http.post(path, headers=headers, body=json.dumps(body))


def _served_document() -> dict[str, Any]:
    """The document /openapi.json serves (built from the registered routes, no AWS call)."""
    from app import app
    from chalicelib.system.routes import _openapi_json

    app.load_all()  # the routes' modules, whose blueprints the document is built from

    return dict(json.loads(_openapi_json()))


# The document states each uint256 and address field's pattern and length (so the negative mode breaks them) and its
# format; valid values of the formats are drawn here, out-of-bounds ones by the bounds test below.
UINT256_MAX = 2**256 - 1
schemathesis.openapi.format("uint256", st.integers(0, UINT256_MAX).map(str))
schemathesis.openapi.format("address", st.binary(min_size=20, max_size=20).map(to_checksum_address))

DOCUMENT = _served_document()
schema = schemathesis.openapi.from_dict(DOCUMENT)
schema.config.generation.update(
    modes=[schemathesis.GenerationMode.POSITIVE, schemathesis.GenerationMode.NEGATIVE],
    max_examples=EXAMPLES,
    deterministic=True,  # the same cases on every run: a CI failure reproduces locally
    database="none",
)


def no_undeclared_server_error(ctx: Any, response: schemathesis.Response, case: schemathesis.Case) -> bool:
    """No 5xx for any input, except a declared upstream/deadline failure that names its cause."""
    if response.status_code >= 500:
        code = _envelope(response).get("data", {}).get("code")
        assert response.status_code in UPSTREAM_CODES and code, (
            f"{case.method} {case.path} answered {response.status_code} ({code}): {response.content[:300]!r}"
        )
    return True


def the_envelope(ctx: Any, response: schemathesis.Response, case: schemathesis.Case) -> bool:
    """Every answer but the bare documents is `{status, message, data}` with status equal to the HTTP status."""
    if case.path in ("/.well-known/jwks.json", "/openapi.json", "/docs"):
        return True
    body = _envelope(response)
    assert set(body) >= {"status", "message"} and body["status"] == response.status_code, body
    assert isinstance(body["message"], str)
    if response.status_code >= 400:
        assert isinstance(body.get("data", {}).get("code"), str), body
    return True


def the_code_is_listed(ctx: Any, response: schemathesis.Response, case: schemathesis.Case) -> bool:
    """An error's `data.code` is one the document lists for that operation and status (`x-error-codes`); a status
    the operation does not declare (405 for a method it does not have) is status_code_conformance's to judge."""
    if response.status_code < 400 or case.path in ("/.well-known/jwks.json", "/openapi.json", "/docs"):
        return True
    declared = case.operation.definition.raw.get("responses", {}).get(str(response.status_code))
    if declared is None or case.method.lower() != case.operation.method.lower():
        return True
    code = _envelope(response).get("data", {}).get("code")
    listed = declared.get("x-error-codes", [])
    assert code in listed, f"{case.method} {case.path} answered {response.status_code} {code}, not in {listed}"
    return True


def _envelope(response: schemathesis.Response) -> dict[str, Any]:
    body = json.loads(response.content)
    assert isinstance(body, dict), body
    return body


@schema.parametrize()
@settings(deadline=None, suppress_health_check=list(HealthCheck), print_blob=True)
def test_every_operation_honours_its_contract(case: schemathesis.Case, service: dict[str, Any]) -> None:
    if case.method.upper() == "OPTIONS":
        return  # a CORS preflight: answered by API Gateway (and chalice local's stand-in), not by the service
    session = requests.Session()
    session.mount(BASE_URL, ChaliceAdapter(service["http"]))
    response = case.call(base_url=BASE_URL, session=session, auth=service["auth"])
    STATUSES.setdefault(f"{case.operation.method.upper()} {case.operation.path}", set()).add(response.status_code)
    case.validate_response(
        response,
        checks=[
            no_undeclared_server_error,
            the_envelope,
            the_code_is_listed,
            status_code_conformance,
            content_type_conformance,
            response_schema_conformance,
        ],
    )


# Formats whose bound the schema cannot state (above 2**256-1 with 78 digits; a wrong EIP-55 checksum), with the
# codes a body field of that format answers.
BOUNDED_FORMATS = {"uint256": {"INVALID_AMOUNT", "INVALID_TOKEN_ID"}, "address": {"INVALID_ADDRESS"}}


def _bounded_fields(document: dict[str, Any]) -> list[tuple[str, str, str, str]]:
    """(path, method, field, format) of every JSON body field of a bounded format in the served document."""
    found = []
    for path, methods in document["paths"].items():
        for method, operation in methods.items():
            body = operation.get("requestBody", {}).get("content", {}).get("application/json", {}).get("schema", {})
            if "$ref" not in body:
                continue
            model = document["components"]["schemas"][body["$ref"].rsplit("/", 1)[-1]]
            for field, prop in model.get("properties", {}).items():
                if prop.get("format") in BOUNDED_FORMATS:
                    found.append((path, method.upper(), field, prop["format"]))
    return found


BOUNDED_FIELDS = _bounded_fields(DOCUMENT)


def _miscased(raw: bytes) -> st.SearchStrategy[str]:
    """The address with one letter's case flipped, when that leaves it in mixed case: a wrong checksum (an address
    all in lower or upper case carries none)."""
    good = to_checksum_address(raw)
    letters = [i for i, c in enumerate(good) if i >= 2 and c.isalpha()]
    flipped = [good[:i] + good[i].swapcase() + good[i + 1 :] for i in letters]
    mixed = [a for a in flipped if a[2:] not in (a[2:].lower(), a[2:].upper())]
    return st.sampled_from(mixed) if mixed else st.nothing()


OUT_OF_BOUNDS: dict[str, st.SearchStrategy[str]] = {
    # Matches the stated pattern and length: only the bound refuses it.
    "uint256": st.integers(UINT256_MAX + 1, 10**78 - 1).map(str),
    "address": st.binary(min_size=20, max_size=20).flatmap(_miscased),
}


def test_the_document_states_the_bounded_formats() -> None:
    assert {(p, f) for p, _, f, _ in BOUNDED_FIELDS} >= {
        ("/api/v1/userOp/sendCoin/estimate", "amount"),
        ("/api/v1/userOp/sendCoin/hash", "to"),
        ("/api/v1/userOp/sendERC721/hash", "tokenId"),
        ("/api/v1/userOp/signTransaction/estimate", "value"),
    }
    prop = DOCUMENT["components"]["schemas"]["SendErc1155"]["properties"]
    assert prop["amount"]["pattern"] == "^[0-9]{1,78}$" and prop["amount"]["maxLength"] == 78
    assert prop["tokenAddress"]["pattern"] == "^0x[0-9a-fA-F]{40}$" and prop["tokenAddress"]["maxLength"] == 42


@pytest.mark.parametrize(("path", "method", "field", "fmt"), BOUNDED_FIELDS)
@settings(
    deadline=None, max_examples=EXAMPLES, derandomize=True, database=None, suppress_health_check=list(HealthCheck)
)
@given(data=st.data())
def test_out_of_bounds_numbers_and_addresses_are_400_with_their_code(
    service: dict[str, Any], path: str, method: str, field: str, fmt: str, data: st.DataObject
) -> None:
    """A valid body with one field of a bounded format out of its bound: 400 with that format's code, naming the
    field; never a 500 from the ABI encoder, never accepted."""
    case = data.draw(schema[path][method].as_strategy(schemathesis.GenerationMode.POSITIVE))
    spec = _route_of(method, path)
    try:  # generated from the document, the rest of the body must also be what the route accepts
        spec.body.model_validate_json(json.dumps(case.body), strict=True)
    except ValueError:
        assume(False)
    case.body = {**case.body, field: data.draw(OUT_OF_BOUNDS[fmt])}
    session = requests.Session()
    session.mount(BASE_URL, ChaliceAdapter(service["http"]))
    response = case.call(base_url=BASE_URL, session=session, auth=service["auth"])
    body = _envelope(response)
    assert response.status_code == 400 and body["status"] == 400, (case.body, body)
    assert body["data"]["code"] in BOUNDED_FORMATS[fmt], body
    assert [e["field"] for e in body["data"]["errors"]] == [field], body


def test_the_credentials_got_every_operation_past_authentication() -> None:
    """Runs after the fuzzing (file order): a hook that signed wrongly would leave an operation at 401 only."""
    if not STATUSES:
        pytest.skip("the fuzzing did not run (deselected)")
    stuck = sorted(operation for operation, statuses in STATUSES.items() if statuses <= {401})
    assert not stuck, f"only ever 401: {stuck}"
