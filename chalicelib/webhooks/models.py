"""Bodies of the webhook routes (Family S)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import ConfigDict, Field

from chalicelib.platform.pagination import Pagination
from chalicelib.platform.wire import WireModel

_EXAMPLE_WEBHOOK_SETTINGS_REQUEST: dict[str, Any] = {"url": "https://example.com/hook"}


class WebhookSettingsRequest(WireModel):
    model_config = ConfigDict(extra="forbid", json_schema_extra={"examples": [_EXAMPLE_WEBHOOK_SETTINGS_REQUEST]})

    url: str = Field(min_length=1, max_length=2048, description="An https URL whose host resolves to public addresses.")


_EXAMPLE_WEBHOOK_SETTINGS: dict[str, Any] = {
    "url": "https://example.com/hook",
    "enabled": True,
    "updatedAt": "2026-11-22T08:00:00.000Z",
}


class WebhookSettings(WireModel):
    model_config = ConfigDict(json_schema_extra={"examples": [_EXAMPLE_WEBHOOK_SETTINGS]})

    url: str | None = Field(description="The registered URL, null when none is set.")
    enabled: bool = Field(
        description="True while a URL is registered and deliveries are not paused (the console pauses them)."
    )
    updatedAt: str | None = Field(description="When the settings last changed (UTC, RFC 3339); null if never set.")


_EXAMPLE_DELETED: dict[str, Any] = {"status": "ok"}


class Deleted(WireModel):
    model_config = ConfigDict(json_schema_extra={"examples": [_EXAMPLE_DELETED]})

    status: Literal["ok"] = "ok"


_EXAMPLE_TEST_EVENT_QUEUED: dict[str, Any] = {
    "id": "3f0c2a4e-8f5d-4b8e-9a41-6f1f2d7c9b10",
    "deliveryId": "0c2e4a6b-8d0f-4c2e-9a4b-6d8f0a2c4e6b",
}


class TestEventQueued(WireModel):
    model_config = ConfigDict(json_schema_extra={"examples": [_EXAMPLE_TEST_EVENT_QUEUED]})

    id: str = Field(description="The webhook.test event's id (a random UUID), also X-Service-Event-Id.")
    deliveryId: str


class DeliveryAttempt(WireModel):
    attempt: int
    at: str
    responseStatus: int | None
    error: str | None
    durationMs: int


_EXAMPLE_DELIVERY: dict[str, Any] = {
    "id": "0c2e4a6b-8d0f-4c2e-9a4b-6d8f0a2c4e6b",
    "eventId": "3f0c2a4e-8f5d-4b8e-9a41-6f1f2d7c9b10",
    "eventType": "webhook.test",
    "url": "https://example.com/hook",
    "status": "pending",
    "attempts": 0,
    "lastResponseStatus": 503,
    "lastError": "HTTP 503",
    "createdAt": "2026-11-22T08:00:00.000Z",
    "lastAttemptAt": "2026-11-22T08:00:12.000Z",
    "nextAttemptAt": "2026-11-22T08:00:12.000Z",
    "deliveredAt": None,
    "log": [{"attempt": 1, "at": "2026-11-22T08:00:12.000Z", "responseStatus": 200, "error": None, "durationMs": 142}],
    "replayOf": None,
}


class Delivery(WireModel):
    model_config = ConfigDict(json_schema_extra={"examples": [_EXAMPLE_DELIVERY]})

    id: str
    eventId: str
    eventType: str
    url: str
    status: Literal["pending", "delivered", "failed"]
    attempts: int
    lastResponseStatus: int | None = None
    lastError: str | None = None
    createdAt: str
    lastAttemptAt: str | None = None
    nextAttemptAt: str | None = None
    deliveredAt: str | None = None
    log: list[DeliveryAttempt] = Field(
        default_factory=list, description="The last 10 attempts, oldest first (`attempts` counts them all)."
    )
    replayOf: str | None = Field(
        None, description="For a replay made in the console: the delivery whose event it delivers again."
    )


_EXAMPLE_DELIVERY_PAGE: dict[str, Any] = {
    "data": [
        {
            "id": "0c2e4a6b-8d0f-4c2e-9a4b-6d8f0a2c4e6b",
            "eventId": "3f0c2a4e-8f5d-4b8e-9a41-6f1f2d7c9b10",
            "eventType": "webhook.test",
            "url": "https://example.com/hook",
            "status": "delivered",
            "attempts": 1,
            "lastResponseStatus": 200,
            "lastError": None,
            "createdAt": "2026-11-22T08:00:00.000Z",
            "lastAttemptAt": "2026-11-22T08:00:12.000Z",
            "nextAttemptAt": None,
            "deliveredAt": "2026-11-22T08:00:12.000Z",
            "log": [
                {
                    "attempt": 1,
                    "at": "2026-11-22T08:00:12.000Z",
                    "responseStatus": 200,
                    "error": None,
                    "durationMs": 142,
                }
            ],
            "replayOf": None,
        }
    ],
    "pagination": {"total": 1, "page": 1, "limit": 20, "totalPages": 1, "hasNext": False, "hasPrev": False},
}


class DeliveryPage(WireModel):
    model_config = ConfigDict(json_schema_extra={"examples": [_EXAMPLE_DELIVERY_PAGE]})

    data: list[Delivery]
    pagination: Pagination


class PreviousKey(WireModel):
    publicKey: str
    keyId: str


_EXAMPLE_PUBLIC_KEY: dict[str, Any] = {
    "publicKey": "11qYAYKxCrfVS/7TyWQHOg7hcvPapiMlrwIaaPcHURo=",
    "keyId": "whk-20261122-e9513a",
    "previous": [],
}


class PublicKey(WireModel):
    model_config = ConfigDict(json_schema_extra={"examples": [_EXAMPLE_PUBLIC_KEY]})

    publicKey: str = Field(description="The app's Ed25519 public key, base64 of 32 bytes.")
    keyId: str = Field(description="Sent as X-Service-Key-Id with each delivery.")
    previous: list[PreviousKey] = Field(description="Keys replaced less than 14 days ago (still verify with them).")
