"""Reaching the other party functions: Lambda Invoke on AWS, threads locally.

Both transports carry the same JSON payload and answer, so the party code is the
same everywhere; only protocol messages (through the mailbox) and these requests
cross between functions. The call runs in a thread because the caller drives its
own party of the run meanwhile.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

from chalicelib.mpc import parties
from chalicelib.platform import aws, priority
from chalicelib.platform.logging import logger
from chalicelib.platform.settings import load_settings

_pool = ThreadPoolExecutor(max_workers=32, thread_name_prefix="mpc-party")  # one per concurrent run
# In process, a party called from background work (a local refill) runs at that work's lower priority too.
_background_pool = ThreadPoolExecutor(
    max_workers=4, thread_name_prefix="mpc-party-background", initializer=priority.lower_current_thread
)


class PartyUnavailableError(Exception):
    """The party function could not be reached or crashed (not a protocol refusal)."""


def call(function: str, payload: dict[str, Any]) -> Future[dict[str, Any]]:
    body = json.dumps(payload)
    if load_settings().party_transport == "in_process":
        pool = _background_pool if priority.current_thread_lowered() else _pool
        return pool.submit(_in_process, function, body)
    return _pool.submit(_invoke, function, body)


def _handlers() -> dict[str, Callable[[dict[str, Any]], dict[str, Any]]]:
    return {"cosigner": parties.cosigner, "user_party": parties.user_party}


def _in_process(function: str, body: str) -> dict[str, Any]:
    try:
        answer: dict[str, Any] = json.loads(json.dumps(_handlers()[function](json.loads(body))))
    except Exception as exc:  # noqa: BLE001 - as on Lambda, a crashed party is a FunctionError to the caller
        logger.error("party function failed", extra={"function": function, "errorType": type(exc).__name__})
        raise PartyUnavailableError("function error") from None
    return answer


def _invoke(function: str, body: str) -> dict[str, Any]:
    try:
        response = aws.client("lambda").invoke(
            FunctionName=aws.function_name(function), InvocationType="RequestResponse", Payload=body.encode()
        )
    except Exception as exc:  # noqa: BLE001 - any failure to reach the party is the same thing to the caller
        raise PartyUnavailableError(type(exc).__name__) from None
    if response.get("FunctionError"):
        raise PartyUnavailableError("function error")
    answer: dict[str, Any] = json.loads(response["Payload"].read())
    return answer
