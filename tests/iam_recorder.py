"""Records every AWS call the service's functions make during the test run, for the IAM test.

moto enforces no IAM, so a call missing from a function's role passes every test here and fails on AWS. Each
call is recorded with the function it was made as (platform/invocation.py, set at every entry point), the IAM
action it needs and the resource it touches; tests/infra/test_stack.py::test_every_recorded_aws_call_is_granted
checks them against the synthesized stack's roles at the end of the session.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from chalicelib.platform import resources
from chalicelib.platform.invocation import current_function

STAGE = "test"
IAM_TEST = "test_every_recorded_aws_call_is_granted"


@dataclass(frozen=True)
class Call:
    function: str
    action: str  # e.g. dynamodb:PutItem
    kind: str  # table, queue, key, secret, bucket, function, or "" when the call names no resource
    name: str  # the logical name from resources.py


RECORDED: set[Call] = set()
_TRANSACT_ACTIONS = {
    "Put": "PutItem",
    "Update": "UpdateItem",
    "Delete": "DeleteItem",
    "ConditionCheck": "ConditionCheckItem",
}


def _logical(kind: str, physical: str) -> str:
    prefixes = {"table": f"dompet-{STAGE}-", "queue": f"dompet-{STAGE}-", "secret": f"dompet/{STAGE}/"}
    if kind == "key":
        return physical.removeprefix(f"alias/dompet-{STAGE}-")
    if kind == "bucket":
        return next(
            (b.name for b in resources.BUCKETS if resources.bucket_name(STAGE, b.name, "") == physical), physical
        )
    if kind == "function":
        return physical.removeprefix(f"dompet-{STAGE}-").removeprefix("dompet-")
    return physical.removeprefix(prefixes[kind])


def _calls(function: str, prefix: str, operation: str, params: dict[str, Any]) -> list[Call]:
    def one(kind: str, physical: str | None, action: str = operation) -> Call:
        return Call(
            function, f"{prefix}:{action}", kind if physical else "", _logical(kind, physical) if physical else ""
        )

    if prefix == "dynamodb":
        if operation == "TransactWriteItems":
            return [
                one("table", entry["TableName"], _TRANSACT_ACTIONS[kind])
                for item in params["TransactItems"]
                for kind, entry in [next(iter(item.items()))]
            ]
        if operation in ("BatchGetItem", "BatchWriteItem"):
            return [one("table", table) for table in params["RequestItems"]]
        return [one("table", params.get("TableName"))]
    if prefix == "kms":
        key = params.get("KeyId")
        return [one("key", key if isinstance(key, str) and key.startswith("alias/") else None)]
    if prefix == "secretsmanager":
        return [one("secret", params.get("SecretId"))]
    if prefix == "sqs":
        url = params.get("QueueUrl")
        # IAM authorises a batch call by its single action (DeleteMessageBatch needs sqs:DeleteMessage).
        action = operation.removesuffix("Batch")
        return [one("queue", url.rsplit("/", 1)[-1] if url else params.get("QueueName"), action)]
    if prefix == "s3":
        return [one("bucket", params.get("Bucket"))]
    if prefix == "lambda":
        return [one("function", params.get("FunctionName"))]
    return [one("", None)]


def _install() -> None:
    import botocore.client

    real = botocore.client.BaseClient._make_api_call
    if getattr(real, "_dompet_recorder", False):
        return

    def recording(self: Any, operation_name: str, api_params: dict[str, Any]) -> Any:
        function = current_function.get()
        if function is not None:
            prefix = self.meta.service_model.endpoint_prefix
            RECORDED.update(_calls(function, prefix, operation_name, api_params))
        return real(self, operation_name, api_params)

    recording._dompet_recorder = True  # type: ignore[attr-defined]
    botocore.client.BaseClient._make_api_call = recording  # type: ignore[method-assign]


_install()


LAST_TESTS = (
    "test_ctrl_c_stops_everything",  # ends the session's local stack (tests/integration/conftest.py)
    IAM_TEST,  # when every other test has made its calls
)


def pytest_collection_modifyitems(items: list[Any]) -> None:
    """The tests of LAST_TESTS run last, in that order."""
    last = sorted((item for item in items if item.name in LAST_TESTS), key=lambda item: LAST_TESTS.index(item.name))
    items[:] = [item for item in items if item.name not in LAST_TESTS] + last
