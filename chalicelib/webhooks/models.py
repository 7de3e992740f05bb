"""Bodies of the webhook routes (Family S)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from chalicelib.platform.pagination import Pagination


class WebhookSettingsRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    url: str = Field(min_length=1, max_length=2048, description="An https URL whose host resolves to public addresses.")


class WebhookSettings(BaseModel):
    url: str | None = Field(description="The registered URL, null when none is set.")
    enabled: bool = Field(description="True while a URL is registered.")
    updatedAt: str | None = Field(description="When the settings last changed (UTC, RFC 3339); null if never set.")


class Deleted(BaseModel):
    status: Literal["ok"] = "ok"


class TestEventQueued(BaseModel):
    id: str = Field(description="The webhook.test event's id (a random UUID), also X-Service-Event-Id.")
    deliveryId: str


class DeliveryAttempt(BaseModel):
    attempt: int
    at: str
    responseStatus: int | None
    error: str | None
    durationMs: int


class Delivery(BaseModel):
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


class DeliveryPage(BaseModel):
    data: list[Delivery]
    pagination: Pagination


class PreviousKey(BaseModel):
    publicKey: str
    keyId: str


class PublicKey(BaseModel):
    publicKey: str = Field(description="The app's Ed25519 public key, base64 of 32 bytes.")
    keyId: str = Field(description="Sent as X-Service-Key-Id with each delivery.")
    previous: list[PreviousKey] = Field(description="Keys replaced less than 14 days ago (still verify with them).")
