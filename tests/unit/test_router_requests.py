"""What `guarded` gives every request: a time budget, the request id on every log line, the envelope."""

from __future__ import annotations

import logging
import types

import pytest
from chalice import Blueprint, Response
from chalice.app import Request

from chalicelib.platform import deadline, resources, router
from chalicelib.platform.envelope import envelope
from chalicelib.platform.logging import logger, swallowed


def _request(context: object = None) -> Request:
    request = Request(
        {
            "headers": {},
            "multiValueQueryStringParameters": None,
            "pathParameters": None,
            "stageVariables": None,
            "requestContext": {"httpMethod": "GET", "resourcePath": "/x", "path": "/x", "requestId": "apigw-1"},
            "body": None,
        },
        lambda_context=context,
    )
    return request


class FakeContext:
    function_name = "dompet-api"
    memory_limit_in_mb = 512
    invoked_function_arn = "arn:aws:lambda:us-east-1:000000000000:function:dompet-api"
    aws_request_id = "lambda-req-1"

    def __init__(self, remaining_ms: int) -> None:
        self.remaining_ms = remaining_ms

    def get_remaining_time_in_millis(self) -> int:
        return self.remaining_ms


def test_a_request_runs_within_the_functions_remaining_time():
    seen = []

    def respond() -> Response:
        seen.append(deadline.remaining_s())
        return envelope(200, "ok")

    router.guarded(_request(FakeContext(4_000)), "/x", respond)
    assert seen[0] is not None and 2.5 < seen[0] <= 4.0 - deadline.RESERVE_S
    assert deadline.remaining_s() is None  # the budget ends with the request


def test_without_a_lambda_clock_the_budget_is_the_api_functions_timeout():
    seen = []
    router.guarded(_request(), "/x", lambda: seen.append(deadline.remaining_s()) or envelope(200, "ok"))
    assert seen[0] is not None and seen[0] <= resources.function("api_handler").timeout_s


def test_running_out_of_time_is_a_503_envelope():
    def respond() -> Response:
        deadline.require("an RPC call", need_s=10.0)
        return envelope(200, "ok")

    response = router.guarded(_request(FakeContext(3_000)), "/x", respond)
    assert response.status_code == 503
    assert '"code":"DEADLINE_EXCEEDED"' in response.body and response.headers["X-Request-Id"] == "lambda-req-1"


def test_every_log_line_of_a_request_carries_its_ids_and_they_leave_with_it():
    keys = []

    def respond() -> Response:
        keys.append(dict(logger.get_current_keys()))
        return envelope(200, "ok")

    response = router.guarded(_request(FakeContext(5_000)), "/x", respond)
    assert keys[0]["requestId"] == response.headers["X-Request-Id"] == "lambda-req-1"
    assert keys[0]["correlation_id"] == "apigw-1"  # API Gateway's id, Powertools' correlation id
    assert keys[0]["function_name"] == "dompet-api" and keys[0]["route"] == "/x"
    after = logger.get_current_keys()
    assert not {"requestId", "correlation_id", "function_name", "route"} & set(after)


def test_an_unexpected_error_is_logged_with_its_stack_and_the_request_id(caplog):
    caplog.set_level(logging.ERROR, logger="dompet")
    lines = []

    class Capture(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            lines.append(logger.registered_formatter.format(record))

    capture = Capture()
    logger.addHandler(capture)
    try:

        def respond() -> Response:
            try:
                raise KeyError("inner secret")
            except KeyError:
                raise RuntimeError("outer secret") from None

        response = router.guarded(_request(FakeContext(5_000)), "/x", respond)
    finally:
        logger._logger.removeHandler(capture)
    assert response.status_code == 500 and "secret" not in response.body and "respond" not in response.body
    logged = "\n".join(lines)
    assert '"requestId":"lambda-req-1"' in logged and '"errorType":"RuntimeError"' in logged
    assert "in respond" in logged  # the stack, as frames
    assert "secret" not in logged and "Traceback" not in logged


def test_cleanup_failure_never_replaces_the_original_error(caplog):
    caplog.set_level(logging.ERROR, logger="dompet")
    with pytest.raises(ValueError, match="the real failure"):
        try:
            raise ValueError("the real failure")
        except ValueError:
            with swallowed("audit not written", runId="r1"):
                raise OSError("audit table unavailable")
            raise
    record = next(r for r in caplog.records if r.getMessage() == "audit not written")
    assert record.errorType == "OSError" and record.runId == "r1"


def test_a_route_that_cannot_scope_its_keys_is_refused_when_declared():
    """The old check only asked for *a* guard: a client-secret route (no principal) would share keys per client."""
    from chalicelib.auth import guards

    bp = Blueprint(__name__)
    for guard in (guards.client_secret, None, types.SimpleNamespace(scheme=("x",))):
        with pytest.raises(TypeError, match="idempotent route"):
            router.route(bp, "/refused", "POST", summary="s", tag="t", guard=guard, idempotent=True)
    # Family W and Family S principals scope their keys by tenant and principal.
    router.route(bp, "/w", "POST", summary="s", tag="t", guard=guards.wallet_token, idempotent=True)
    router.route(bp, "/s", "POST", summary="s", tag="t", guard=guards.signed_request, idempotent=True)
    router.ROUTES[:] = [spec for spec in router.ROUTES if spec.path not in ("/w", "/s")]
