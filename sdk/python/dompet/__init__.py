"""Dompet: MPC wallets, ERC-4337 smart accounts and signed webhooks.

    from dompet import Dompet
    d = Dompet("http://127.0.0.1:8000", app_id="...", app_secret="...")   # an app's backend (Family S)
    d.request("GET", "/api/v1/auth/whoami")

    w = Dompet("http://127.0.0.1:8000", client_secret="dcs_...")         # a client's backend (Family W)
    alice = w.login("alice")                                             # refreshes itself
    alice.request("POST", "/api/v1/account/create", {})

Typed calls: `dompet.api.<operation>.sync(client=d.client, ...)` or `d.call(dompet.api.<operation>, ...)`, models in
`dompet.models`; webhooks: `dompet.webhooks.verify(body, headers, public_key)`; signing policies:
`dompet.policies.sign_policy(app_id, policy, key)`.
"""

from dompet import api, errors, models, policies, webhooks
from dompet._transport import RetryPolicy
from dompet._version import __version__
from dompet.client import AsyncDompet, AsyncUserSession, Dompet, Page, UserSession
from dompet.errors import (
    APIConnectionError,
    APIError,
    AuthenticationError,
    BadRequestError,
    ConflictError,
    DompetError,
    NotFoundError,
    PermissionDeniedError,
    RateLimitError,
    ServerError,
    UnprocessableEntityError,
    WebhookVerificationError,
)

API_VERSION = api.API_VERSION

__all__ = [
    "API_VERSION",
    "APIConnectionError",
    "APIError",
    "AsyncDompet",
    "AsyncUserSession",
    "AuthenticationError",
    "BadRequestError",
    "ConflictError",
    "Dompet",
    "DompetError",
    "NotFoundError",
    "Page",
    "PermissionDeniedError",
    "RateLimitError",
    "RetryPolicy",
    "ServerError",
    "UnprocessableEntityError",
    "UserSession",
    "WebhookVerificationError",
    "__version__",
    "api",
    "errors",
    "models",
    "policies",
    "webhooks",
]
