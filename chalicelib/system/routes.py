"""Service routes without authentication: health, the OpenAPI document and its reference page (/docs, Scalar
from the vendored bundle under /docs/assets/)."""

from __future__ import annotations

import json

from chalice import Blueprint, Response
from pydantic import Field

from chalicelib.auth import guards
from chalicelib.evm.rpc import quantity, rpc_call
from chalicelib.platform import aws, clock, lazy_app, openapi, resources
from chalicelib.platform.cache import TtlCache
from chalicelib.platform.errors import NOT_FOUND, ApiError
from chalicelib.platform.networks import Network, registry
from chalicelib.platform.path_ids import PathId
from chalicelib.platform.router import Call, Reply, document_route, route
from chalicelib.platform.settings import load_settings
from chalicelib.platform.wire import WireModel
from chalicelib.system import assets
from chalicelib.system.docs_page import CONTENT_SECURITY_POLICY, render

bp = Blueprint(__name__)

NOT_READY = assets.NOT_READY
VERSION = "0.1.0"


class Component(WireModel):
    name: str = Field(examples=["network:polygon-pos"])
    ok: bool = Field(examples=[True])
    detail: str | None = Field(None, examples=["chain 137"])


class Health(WireModel):
    service: str = Field(examples=["dompet"])
    version: str = Field(examples=["0.1.0"])
    stage: str = Field(examples=["dev"])


class HealthDetails(Health):
    components: list[Component]
    checkedAt: str = Field(examples=["2026-11-25T10:00:00.000Z"])


DETAILS_CACHE_S = 30  # a burst of checks (a load balancer, a dashboard) costs one round of AWS and RPC calls
details: TtlCache[str, HealthDetails] = TtlCache("health-details", DETAILS_CACHE_S, max_entries=1)


@route(
    bp,
    "/health",
    "GET",
    summary="Liveness: the service answers (no dependency is called)",
    tag="Service",
    response=Health,
    description="Public, and no dependency is called: for load balancers. Only the service's version and stage.",
)
def health(call: Call) -> Reply:
    # Public and cheap: no AWS or RPC call per request, nothing about the deployment beyond its version.
    return Reply(Health(service="dompet", version=VERSION, stage=load_settings().stage), "healthy")


@route(
    bp,
    "/api/v1/health/details",
    "GET",
    summary="Readiness of what the API depends on: its tables and every network's RPC",
    tag="Service",
    guard=guards.signed_request,
    response=HealthDetails,
    errors={503: (NOT_READY,)},
    description="Signed (Family S). Each component is a table or a network's RPC (its chain id checked); the "
    "report is cached for 30 s. `503 NOT_READY` names the failing components in `data.components`.",
)
def health_details(call: Call) -> Reply:
    report = details.get_or_put("report", _check_dependencies) or _check_dependencies()
    if not all(c.ok for c in report.components):
        raise ApiError(503, NOT_READY, "Some dependencies are unavailable", **report.model_dump())
    return Reply(report, "healthy")


def _check_dependencies() -> HealthDetails:
    # Only the tables the API function may read (its grants): the parties' tables are theirs alone.
    api_tables = [g.name for g in resources.function("api_handler").grants if g.kind == "table"]
    components = [_table_status(name) for name in api_tables]
    components += [_network_status(network) for network in registry().networks]
    return HealthDetails(
        service="dompet", version=VERSION, stage=load_settings().stage, components=components, checkedAt=clock.iso_now()
    )


def _table_status(name: str) -> Component:
    try:
        status = aws.table(name).table_status  # DescribeTable: in the API's read grant of that table
    except Exception as exc:  # noqa: BLE001 - any failure means not ready; only its type is reported
        return Component(name=f"table:{name}", ok=False, detail=type(exc).__name__)
    return Component(name=f"table:{name}", ok=status == "ACTIVE", detail=status)


def _network_status(network: Network) -> Component:
    name = network.name
    try:
        chain_id = quantity(rpc_call(network, "eth_chainId", timeout_s=2.0))
    except Exception as exc:  # noqa: BLE001 - as above
        return Component(name=f"network:{name}", ok=False, detail=type(exc).__name__)
    ok = chain_id == network.chainId
    return Component(name=f"network:{name}", ok=ok, detail=None if ok else f"node reports chain id {chain_id}")


# Built once per warm function from the registered routes.
documents: TtlCache[str, str] = TtlCache("api-documents", None)


def _openapi_json() -> str:
    def build() -> str:
        lazy_app.load_all(bp.current_app)  # the document describes every route, not only those served so far
        registered = {(path, method) for path, methods in bp.current_app.routes.items() for method in methods}
        return json.dumps(openapi.build(version=VERSION, registered=registered))

    return documents.get_or_put("openapi", build) or build()


# The two documents below are served bare (not in the envelope) so that tools can read them.
@document_route(bp, "/openapi.json")
def openapi_document() -> Response:
    return Response(body=_openapi_json(), headers={"Content-Type": "application/json"})


PAGE_CACHE = "public, max-age=60"  # the page names the bundle's hash: a new deployment shows within a minute
BUNDLE = "scalar.js"


@document_route(bp, "/docs")
def docs_page() -> Response:
    try:
        bundle = assets.url_name(BUNDLE)
    except assets.AssetsNotBuiltError as exc:
        raise ApiError(503, NOT_READY, "The API reference page is not built; /openapi.json is served") from exc
    headers: dict[str, str | list[str]] = {
        "Content-Type": "text/html; charset=utf-8",
        "Cache-Control": PAGE_CACHE,
        "Content-Security-Policy": CONTENT_SECURITY_POLICY,
        "X-Content-Type-Options": "nosniff",
        "Referrer-Policy": "no-referrer",
    }
    return Response(body=render(bundle), headers=headers)


ASSETS_PATH = "/docs/assets/{name}"
# `{name}` of the asset routes (here and the console's): a content-hashed file name.
ASSET_NAME = PathId(NOT_FOUND, "No such asset")


@document_route(bp, ASSETS_PATH, {"name": ASSET_NAME})
def docs_asset(name: str) -> Response:
    """A vendored asset, gzip-compressed, under its content-hashed name: cacheable for a year."""
    return assets.response(name)
