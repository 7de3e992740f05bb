"""Bodies of the webhook routes (Family S)."""

from __future__ import annotations

from typing import Literal

from pydantic import ConfigDict, Field

from chalicelib.platform.pagination import Pagination
from chalicelib.platform.wire import WireModel

# Example values shared by several fields.
_EXAMPLE_URL = "https://example.com/hook"
_EXAMPLE_EVENT_ID = "3f0c2a4e-8f5d-4b8e-9a41-6f1f2d7c9b10"
_EXAMPLE_DELIVERY_ID = "0c2e4a6b-8d0f-4c2e-9a4b-6d8f0a2c4e6b"
_EXAMPLE_ATTEMPT_AT = "2026-11-22T08:00:12.000Z"


class WebhookSettingsRequest(WireModel):
    model_config = ConfigDict(extra="forbid")

    url: str = Field(
        min_length=1,
        max_length=2048,
        description="An https URL whose host resolves to public addresses.",
        examples=[_EXAMPLE_URL],
    )


class WebhookSettings(WireModel):
    url: str | None = Field(description="The registered URL, null when none is set.", examples=[_EXAMPLE_URL])
    enabled: bool = Field(
        description="True while a URL is registered and deliveries are not paused (the console pauses them).",
        examples=[True],
    )
    updatedAt: str | None = Field(
        description="When the settings last changed (UTC, RFC 3339); null if never set.",
        examples=["2026-11-22T08:00:00.000Z"],
    )


class Deleted(WireModel):
    status: Literal["ok"] = "ok"


class TestEventQueued(WireModel):
    id: str = Field(
        description="The webhook.test event's id (a random UUID), also X-Service-Event-Id.",
        examples=[_EXAMPLE_EVENT_ID],
    )
    deliveryId: str = Field(examples=[_EXAMPLE_DELIVERY_ID])


class DeliveryAttempt(WireModel):
    attempt: int = Field(examples=[1])
    at: str = Field(examples=[_EXAMPLE_ATTEMPT_AT])
    responseStatus: int | None = Field(examples=[503])
    error: str | None = Field(examples=["HTTP 503"])
    durationMs: int = Field(examples=[142])


class Delivery(WireModel):
    id: str = Field(examples=[_EXAMPLE_DELIVERY_ID])
    eventId: str = Field(examples=[_EXAMPLE_EVENT_ID])
    eventType: str = Field(examples=["webhook.test"])
    url: str = Field(examples=[_EXAMPLE_URL])
    status: Literal["pending", "delivered", "failed"] = Field(examples=["pending"])
    attempts: int = Field(examples=[1])
    lastResponseStatus: int | None = Field(None, examples=[503])
    lastError: str | None = Field(None, examples=["HTTP 503"])
    createdAt: str = Field(examples=["2026-11-22T08:00:00.000Z"])
    lastAttemptAt: str | None = Field(None, examples=[_EXAMPLE_ATTEMPT_AT])
    nextAttemptAt: str | None = Field(None, examples=["2026-11-22T08:00:42.000Z"])
    deliveredAt: str | None = None
    log: list[DeliveryAttempt] = Field(
        default_factory=list, description="The last 10 attempts, oldest first (`attempts` counts them all)."
    )
    replayOf: str | None = Field(
        None, description="For a replay made in the console: the delivery whose event it delivers again."
    )


class DeliveryPage(WireModel):
    # A list entry delivered at its first attempt.
    example_overrides = {
        "data": [
            {
                "status": "delivered",
                "attempts": 1,
                "lastResponseStatus": 200,
                "lastError": None,
                "nextAttemptAt": None,
                "deliveredAt": _EXAMPLE_ATTEMPT_AT,
                "log": [{"responseStatus": 200, "error": None}],
            }
        ]
    }

    data: list[Delivery]
    pagination: Pagination


class PreviousKey(WireModel):
    publicKey: str
    keyId: str


class PublicKey(WireModel):
    publicKey: str = Field(
        description="The app's Ed25519 public key, base64 of 32 bytes.",
        examples=["11qYAYKxCrfVS/7TyWQHOg7hcvPapiMlrwIaaPcHURo="],
    )
    keyId: str = Field(description="Sent as X-Service-Key-Id with each delivery.", examples=["whk-20261122-e9513a"])
    previous: list[PreviousKey] = Field(
        description="Keys replaced less than 14 days ago (still verify with them).", examples=[[]]
    )
