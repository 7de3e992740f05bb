"""Bodies of the webhook routes (Family S)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field


class WebhookSettingsRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    url: str = Field(min_length=1, max_length=2048, description="An https URL whose host resolves to public addresses.")


class WebhookSettings(BaseModel):
    url: str | None = Field(description="The registered URL, null when none is set.")
    enabled: bool = Field(description="True while a URL is registered.")
    updatedAt: str | None = Field(description="When the settings last changed (UTC, RFC 3339); null if never set.")


class Deleted(BaseModel):
    status: Literal["ok"] = "ok"
