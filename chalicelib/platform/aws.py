"""AWS clients and resource handles, created once per process.

boto3 honours AWS_ENDPOINT_URL, which the local stack points at its moto
server; tests use moto in process. Names come from resources.py and the stage.
"""

from __future__ import annotations

import functools
import json
import os
from typing import Any

from chalicelib.platform import resources
from chalicelib.platform.settings import load_settings


@functools.cache
def client(service: str) -> Any:
    import boto3
    from botocore.config import Config

    config = None
    if service == "s3":
        # SigV4 presigned links; path-style so a local endpoint (moto) serves them without wildcard DNS.
        local = bool(os.environ.get("AWS_ENDPOINT_URL_S3") or os.environ.get("AWS_ENDPOINT_URL"))
        config = Config(signature_version="s3v4", s3={"addressing_style": "path" if local else "virtual"})
    elif service == "lambda":
        # A party function runs a whole MPC session; one attempt, the caller decides what a failure means.
        config = Config(read_timeout=60, retries={"total_max_attempts": 1})
    return boto3.session.Session().client(service, region_name=load_settings().region, config=config)


@functools.cache
def _dynamodb() -> Any:
    import boto3

    return boto3.session.Session().resource("dynamodb", region_name=load_settings().region)


def table(name: str) -> Any:
    resources.table(name)  # fail fast on a name that is not defined
    return _dynamodb().Table(resources.table_name(load_settings().stage, name))


def key_alias(name: str) -> str:
    return resources.key_alias(load_settings().stage, name)


def secret_id(name: str) -> str:
    return resources.secret_name(load_settings().stage, name)


def queue(name: str) -> str:
    if not any(q.name == name for q in resources.QUEUES):
        raise KeyError(f"no queue named {name!r} in chalicelib/platform/resources.py")
    return resources.queue_name(load_settings().stage, name)


@functools.cache
def _queue_url(physical_name: str) -> str:
    url: str = client("sqs").get_queue_url(QueueName=physical_name)["QueueUrl"]
    return url


def send_message(name: str, body: dict[str, Any], delay_s: int = 0, dead_letter: bool = False) -> None:
    """Put `body` (JSON) on queue `name`, or on its dead-letter queue; URLs are looked up once."""
    physical = resources.dlq_name(load_settings().stage, name) if dead_letter else queue(name)
    client("sqs").send_message(QueueUrl=_queue_url(physical), MessageBody=json.dumps(body), DelaySeconds=delay_s)


def batch_get(name: str, keys: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The items of up to 100 keys (absent ones left out), asking again for any DynamoDB leaves unprocessed."""
    found: list[dict[str, Any]] = []
    if not keys:
        return found
    dynamo = table(name)
    request: dict[str, Any] = {dynamo.name: {"Keys": keys, "ConsistentRead": True}}
    for _ in range(5):
        # The resource's client (de)serialises DynamoDB types itself.
        response = dynamo.meta.client.batch_get_item(RequestItems=request)
        found += response["Responses"].get(dynamo.name, [])
        request = response.get("UnprocessedKeys") or {}
        if not request:
            return found
    raise RuntimeError(f"batch read of {name} left keys unprocessed")


def function_name(name: str) -> str:
    resources.function(name)
    return resources.function_name(load_settings().stage, name)


def bucket(name: str) -> str:
    settings = load_settings()
    return resources.bucket_name(settings.stage, name, settings.bucket_suffix)


def reset() -> None:
    """Forget cached clients (tests switch AWS mocks between cases)."""
    client.cache_clear()
    _dynamodb.cache_clear()
    _queue_url.cache_clear()
