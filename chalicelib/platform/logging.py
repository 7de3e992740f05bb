"""One structured logger for the service (AWS Lambda Powertools).

Log calls pass identifiers and error types only; never secrets, tokens, shares,
request bodies or exception messages. An unexpected failure is logged with its
stack as frames (file:line in function), which cannot carry values.

Every line logged while a request runs carries its id (`requestId`, the Lambda
request id that the error envelope and `X-Request-Id` show), the API Gateway
request id as Powertools' `correlation_id`, and the Lambda context (function
name, memory, cold start), see `request_keys`.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from aws_lambda_powertools import Logger

# The level is applied from the validated settings at start-up (see configure()), so a bad
# DOMPET_LOG_LEVEL is reported like every other bad setting.
logger = Logger(service="dompet", level="INFO")

_cold = [True]


def configure(level: str) -> None:
    logger.setLevel(level)


def stack_of(exc: BaseException, limit: int = 30) -> list[str]:
    """Where an exception came from (file:line in function, innermost last), without its message or any
    value: messages of library errors can carry secrets, the frames cannot."""
    import traceback

    frames = traceback.extract_tb(exc.__traceback__)[-limit:]
    return [f"{frame.filename.rsplit('/site-packages/', 1)[-1]}:{frame.lineno} in {frame.name}" for frame in frames]


def _causes(exc: BaseException, limit: int = 5) -> list[str]:
    """Types of the exceptions this one was raised from or during (their messages stay out of the log)."""
    seen: list[str] = []
    current = exc.__cause__ or exc.__context__
    while current is not None and len(seen) < limit:
        seen.append(type(current).__name__)
        current = current.__cause__ or current.__context__
    return seen


def log_failure(message: str, exc: BaseException, **extra: object) -> None:
    """Log an unexpected failure server-side with its type and stack (never its message)."""
    causes = _causes(exc)
    logger.error(
        message,
        extra={
            "errorType": type(exc).__name__,
            "stack": stack_of(exc),
            **({"causeTypes": causes} if causes else {}),
            **extra,
        },
    )


_LONG_HEX = re.compile(r"(0x)?[0-9a-fA-F]{64,}")


def log_error_answer(status: int, body: object) -> None:
    """One line for an error answer (4xx/5xx): its status, `data.code` and message (the reason), which the
    caller reads anyway. Never the request or the field details; a 64-digit hex run (a key, had one been
    echoed) is masked."""
    if status < 400:
        return
    code, reason = None, None
    try:
        answer = json.loads(body) if isinstance(body, str | bytes) else body
    except ValueError:
        answer = None
    if isinstance(answer, dict):
        data = answer.get("data")
        code = data.get("code") if isinstance(data, dict) else None
        reason = answer.get("message")
    extra = {
        "status": status,
        "code": str(code) if code is not None else None,
        "reason": _LONG_HEX.sub("[hex]", str(reason))[:300] if reason is not None else None,
    }
    (logger.warning if status >= 500 else logger.info)("error answer", extra=extra)


@contextmanager
def swallowed(message: str, **extra: object) -> Iterator[None]:
    """For cleanup that runs while another error propagates (or after the work is done): its own failure is
    logged and swallowed, so it can never replace the original exception.

        except Exception:
            with swallowed("audit not written", runId=run_id):
                write_audit(...)
            raise
    """
    try:
        yield
    except Exception as exc:  # noqa: BLE001 - the point: cleanup must not mask the error being handled
        log_failure(message, exc, **extra)


@contextmanager
def request_keys(
    request_id: str, route: str, lambda_context: Any = None, correlation_id: str | None = None
) -> Iterator[None]:
    """Tag every log line of one request with its ids and the Lambda context; the keys leave with it."""
    keys: dict[str, object] = {"requestId": request_id, "route": route, "cold_start": _cold[0]}
    _cold[0] = False
    if correlation_id:
        keys["correlation_id"] = correlation_id
    keys.update(_lambda_keys(lambda_context))
    logger.append_keys(**keys)
    try:
        yield
    finally:
        logger.remove_keys(list(keys))


def _lambda_keys(context: Any) -> dict[str, object]:
    """Powertools' Lambda context fields, when the context is a real one (chalice local and tests pass none)."""
    if not isinstance(getattr(context, "aws_request_id", None), str):
        return {}
    from aws_lambda_powertools.logging.lambda_context import build_lambda_context_model

    try:
        return dict(build_lambda_context_model(context).__dict__)
    except Exception:  # noqa: BLE001 - a partial context only loses the extra fields
        return {}
