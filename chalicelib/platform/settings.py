"""Typed settings from `DOMPET_*` environment variables.

`load_settings()` is called when the app starts; a bad value stops start-up with
`SettingsError`, whose message names the variable (never its value, which may be
secret).
"""

from __future__ import annotations

import functools
import ipaddress
import os
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from chalicelib.platform.logging import configure

PROJECT_ROOT = Path(__file__).resolve().parents[2]
ENV_PREFIX = "DOMPET_"


class SettingsError(RuntimeError):
    """A setting is missing or invalid; the message names it."""


class Settings(BaseModel):
    """Each field is the variable `DOMPET_<FIELD>` (any case), parsed from its text (`from_environment`)."""

    model_config = ConfigDict(frozen=True, extra="ignore")

    stage: str = Field(
        "local", pattern=r"^[a-z][a-z0-9-]{0,19}$", description="Deployment stage; part of every resource name."
    )
    region: str = Field(
        default_factory=lambda: os.environ.get("AWS_REGION") or os.environ.get("AWS_DEFAULT_REGION") or "us-east-1",
        pattern=r"^[a-z]{2}(-[a-z]+)+-\d$",
        description="AWS region (defaults to AWS_REGION).",
    )
    bucket_suffix: str = Field("", pattern=r"^[a-z0-9-]*$", description="Appended to bucket names (they are global).")
    networks_file: Path = Field(
        PROJECT_ROOT / "chalicelib" / "config" / "networks.json",
        description="JSON networks registry; relative paths are taken from the project root.",
    )
    jwt_issuer: str = Field("dompet", min_length=1, description="`iss` of issued JWTs.")
    access_token_ttl_s: int = Field(900, ge=60, le=86_400, description="Lifetime of an access token (no wallet yet).")
    wallet_token_ttl_s: int = Field(3600, ge=60, le=30 * 86_400, description="Default lifetime of a wallet token.")
    refresh_token_ttl_s: int = Field(30 * 86_400, ge=3600, le=365 * 86_400, description="Lifetime of a refresh token.")
    topup_check_delay_s: int = Field(
        20, ge=0, le=900, description="Delay of the first check of a top-up sent with immediate=false."
    )
    topup_check_attempts: int = Field(
        12, ge=1, le=50, description="Checks of a delayed top-up (delay doubling to 15 min) before it is failed."
    )
    user_op_valid_s: int = Field(
        600, ge=60, le=86_400, description="How long a built user operation stays valid (its validUntil)."
    )
    refresh_reuse_interval_s: int = Field(
        20,
        ge=0,
        le=300,
        description="How long after a refresh the same refresh token returns the same new pair (a client retry) "
        "instead of counting as reuse; 0 turns it off.",
    )
    signing_key_rotation_days: int = Field(30, ge=1, le=365, description="Age at which the JWT signing key is rotated.")
    signature_window_s: int = Field(300, ge=30, le=900, description="Accepted clock difference of X-TIMESTAMP.")
    app_secret_cache_s: int = Field(
        300,
        ge=0,
        le=3600,
        description="How long an app with its decrypted secret, and a client found by its secret, stay in memory.",
    )
    log_level: str = Field("INFO", pattern=r"^(DEBUG|INFO|WARNING|ERROR)$", description="Log level.")
    party_transport: Literal["lambda", "in_process"] = Field(
        "lambda",
        description="How the API reaches the cosigner and user-party functions: `lambda` (Invoke) on AWS, "
        "`in_process` (threads calling the same handlers, same JSON payloads) locally and in tests.",
    )
    mpc_session_timeout_s: int = Field(20, ge=2, le=25, description="Deadline of one key generation or signing run.")
    webhook_allowlist: str = Field(
        "",
        max_length=1000,
        description="Comma-separated CIDRs that webhook URLs may resolve to although not public (and may use "
        "plain http): for local development only, e.g. `127.0.0.1/32`.",
    )
    webhook_retry_schedule_s: str = Field(
        "30,120,600,1800,3600,7200,14400,28800,43200",
        pattern=r"^[0-9]{1,6}(,[0-9]{1,6}){0,19}$",
        description="Delays (s) before each webhook retry; attempts = 1 + their count. The default reaches "
        "about a day (27.7 h of delays).",
    )
    aux_pool_target: int = Field(20, ge=0, le=1000, description="Ready aux-info sets the refill job keeps in stock.")
    presign_pool_floor: int = Field(
        1, ge=0, le=100, description="Ready presignatures a refill keeps for a wallet that has not signed lately."
    )
    presign_pool_ceiling: int = Field(
        24,
        ge=0,
        le=200,
        description="The most ready presignatures a wallet's pool is refilled to, however fast it signs "
        "(0: no pools, every signature a full run).",
    )
    presign_first_stock: int = Field(
        4,
        ge=0,
        le=200,
        description="Ready presignatures a new wallet is stocked with (off the request path, at most the ceiling), "
        "so its first sends need no full run before it shows any demand.",
    )
    presign_demand_factor: int = Field(
        3,
        ge=1,
        le=10,
        description="A wallet's pool is refilled to this many times its signatures in the demand window (at most "
        "the ceiling): a burst may grow before the next pause.",
    )
    presign_demand_window_s: int = Field(
        900,
        ge=60,
        le=86_400,
        description="A wallet's pool is refilled to its signatures in this window, between the floor and the ceiling.",
    )
    presign_client_hourly: int = Field(
        3600,
        ge=0,
        le=1_000_000,
        description="The most presignatures the cosigner makes per clock hour for the wallets of one client (each "
        "costs about 2 s of CPU across the two parties); past it their pools wait for the next hour and their sends "
        "sign in full runs. 0: no bound.",
    )
    presign_ttl_s: int = Field(
        86_400,
        ge=300,
        le=30 * 86_400,
        description="How long a ready presignature may wait for its use; then it expires unused (its CPU wasted).",
    )
    presign_key_cache_s: int = Field(
        300,
        ge=0,
        le=3600,
        description="How long a party keeps a wallet's unwrapped presignature data key in memory (0: always ask KMS).",
    )

    invoice_expires_s: int = Field(
        3600, ge=60, le=30 * 86_400, description="Default lifetime of a custody invoice (its expiresInSeconds)."
    )
    invoice_buffer_s: int = Field(
        600, ge=0, le=86_400, description="Grace after an invoice's expiresAt in which a payment seen still pays it."
    )
    watch_loop_s: int = Field(
        52,
        ge=0,
        le=800,
        description="How long one run of the deposit watcher keeps scanning (passes every few seconds; 0: one pass).",
    )

    secret_overlap_s: int = Field(
        86_400,
        ge=0,
        le=30 * 86_400,
        description="After a client or app secret is rotated, how long the replaced secret still works.",
    )
    console_url: str = Field(
        "",
        max_length=300,
        pattern=r"^(https?://[^\s/]+(/[^\s]*)?)?$",
        description="The console's public base URL (invite links printed by the admin command); empty: relative.",
    )
    console_idle_s: int = Field(1800, ge=60, le=86_400, description="A console session ends after this idle time.")
    console_session_s: int = Field(
        12 * 3600, ge=300, le=7 * 86_400, description="A console session ends this long after sign-in, whatever use."
    )
    console_invite_s: int = Field(86_400, ge=300, le=7 * 86_400, description="Lifetime of a console invite link.")

    tx_bump_after_s: int = Field(
        30,
        ge=1,
        le=86_400,
        description="A pending transaction not mined this long after its last pricing, and priced below what the chain "
        "now needs, is re-priced and signed again at its nonce.",
    )
    nonce_gap_fill_s: int = Field(
        30,
        ge=1,
        le=86_400,
        description="A nonce given back below a pending transaction and not taken by a send within this time is filled "
        "with a 0-value send to the wallet itself (a gap fill).",
    )
    tx_stuck_alert_s: int = Field(
        600, ge=1, le=30 * 86_400, description="A transaction pending this long is logged once at warning."
    )

    withdrawal_limits: str = Field(
        "{}",
        max_length=4000,
        description="Custody withdrawal limits per app and token code, human units: "
        '`{"usdt": {"perWithdrawal": "1000", "perDay": "5000"}}`; a token not named has none.',
    )

    @field_validator("withdrawal_limits")
    @classmethod
    def _limits(cls, value: str) -> str:
        import json
        import re as re_

        parsed = json.loads(value)
        if not isinstance(parsed, dict):
            raise ValueError("a JSON object of token codes")
        for code, limits in parsed.items():
            if not isinstance(limits, dict) or set(limits) - {"perWithdrawal", "perDay"}:
                raise ValueError(f"{code}: perWithdrawal and/or perDay")
            for text in limits.values():
                if not isinstance(text, str) or not re_.fullmatch(r"[0-9]{1,40}(\.[0-9]{1,36})?", text):
                    raise ValueError(f"{code}: limits are decimal strings")
                if not text.strip("0."):
                    raise ValueError(f"{code}: a limit of 0 would refuse every withdrawal; leave the token out instead")
        return value

    @field_validator("webhook_allowlist")
    @classmethod
    def _cidrs(cls, value: str) -> str:
        for item in filter(None, (v.strip() for v in value.split(","))):
            ipaddress.ip_network(item, strict=False)  # ValueError names the bad entry
        return value

    @property
    def webhook_allowlist_networks(self) -> tuple[ipaddress.IPv4Network | ipaddress.IPv6Network, ...]:
        items = filter(None, (v.strip() for v in self.webhook_allowlist.split(",")))
        return tuple(ipaddress.ip_network(item, strict=False) for item in items)

    @property
    def webhook_retry_delays(self) -> tuple[int, ...]:
        return tuple(int(v) for v in self.webhook_retry_schedule_s.split(","))

    @field_validator("networks_file")
    @classmethod
    def _resolve(cls, value: Path) -> Path:
        path = value if value.is_absolute() else PROJECT_ROOT / value
        if not path.is_file():
            raise ValueError(f"file not found: {path}")
        return path


def describe_error(error: ValidationError) -> str:
    problems = []
    for item in error.errors():
        field = ".".join(str(p) for p in item["loc"]) or "?"
        problems.append(f"{ENV_PREFIX}{field.upper()}: {item['msg']}")
    return "invalid settings: " + "; ".join(problems)


# Read by the local tooling (devtools), not by the service.
TOOLING_PREFIX = f"{ENV_PREFIX}DEV_"


def unknown_variables() -> list[str]:
    """DOMPET_* variables that name no setting: most likely a misspelling."""
    known = {f"{ENV_PREFIX}{name.upper()}" for name in Settings.model_fields}
    return sorted(
        name
        for name in os.environ
        if name.upper().startswith(ENV_PREFIX)
        and not name.upper().startswith(TOOLING_PREFIX)
        and name.upper() not in known
    )


def from_environment() -> Settings:
    """The settings the environment gives (a plain model over `DOMPET_*`: pydantic-settings would add ≈ 60 ms to
    every cold start for the same answer)."""
    given = {name.upper(): value for name, value in os.environ.items()}
    values = {
        field: given[f"{ENV_PREFIX}{field.upper()}"]
        for field in Settings.model_fields
        if f"{ENV_PREFIX}{field.upper()}" in given
    }
    return Settings.model_validate(values)


@functools.cache
def load_settings() -> Settings:
    unknown = unknown_variables()
    if unknown:
        raise SettingsError(f"invalid settings: {', '.join(unknown)}: no such setting")
    try:
        settings = from_environment()
    except ValidationError as exc:
        raise SettingsError(describe_error(exc)) from None
    configure(settings.log_level)
    return settings
