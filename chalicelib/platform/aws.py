"""AWS clients and resource handles, created once per process.

boto3 honours AWS_ENDPOINT_URL, which the local stack points at its moto
server; tests use moto in process. Names come from resources.py and the stage.
"""

from __future__ import annotations

import functools
from typing import Any

from chalicelib.platform import resources
from chalicelib.platform.settings import load_settings


@functools.cache
def client(service: str) -> Any:
    import boto3

    return boto3.session.Session().client(service, region_name=load_settings().region)


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


def bucket(name: str) -> str:
    settings = load_settings()
    return resources.bucket_name(settings.stage, name, settings.bucket_suffix)


def reset() -> None:
    """Forget cached clients (tests switch AWS mocks between cases)."""
    client.cache_clear()
    _dynamodb.cache_clear()
