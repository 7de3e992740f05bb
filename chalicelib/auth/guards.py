"""Route guards for both authentication families.

- `client_secret`: the client's backend (login, refresh).
- `wallet_family(...)`: Family W, `Authorization: Bearer <JWT>` plus `x-client-secret`;
  the token must belong to the same client, and be of an allowed kind.
- `signed_request`: Family S, see signing.py.
"""

from __future__ import annotations

from collections.abc import Mapping

from chalice.app import Request

from chalicelib.auth import signing, tokens, users
from chalicelib.auth.models import WalletPrincipal
from chalicelib.auth.tokens import TokenKind
from chalicelib.platform.errors import forbidden, unauthorized
from chalicelib.tenancy import service as tenancy
from chalicelib.tenancy.models import App, Client

MISSING_CLIENT_SECRET = "MISSING_CLIENT_SECRET"
INVALID_CLIENT_SECRET = "INVALID_CLIENT_SECRET"
MISSING_TOKEN = "MISSING_TOKEN"
TOKEN_CLIENT_MISMATCH = "TOKEN_CLIENT_MISMATCH"
WALLET_TOKEN_REQUIRED = "WALLET_TOKEN_REQUIRED"
ACCESS_TOKEN_REQUIRED = "ACCESS_TOKEN_REQUIRED"
USER_NOT_FOUND = "USER_NOT_FOUND"
TOKEN_REVOKED = "TOKEN_REVOKED"


CLIENT_SECRET_ERRORS = (MISSING_CLIENT_SECRET, INVALID_CLIENT_SECRET)
TOKEN_ERRORS = (
    MISSING_TOKEN,
    tokens.INVALID_TOKEN,
    tokens.TOKEN_EXPIRED,
    TOKEN_REVOKED,
    TOKEN_CLIENT_MISMATCH,
    USER_NOT_FOUND,
)


class ClientSecretGuard:
    scheme: tuple[str, ...] = ("clientSecret",)
    errors: Mapping[int, tuple[str, ...]] = {401: CLIENT_SECRET_ERRORS}

    def __call__(self, request: Request) -> Client:
        secret = request.headers.get("x-client-secret")
        if not secret:
            raise unauthorized(MISSING_CLIENT_SECRET, "Missing x-client-secret header")
        client = tenancy.client_for_secret(secret)
        if client is None:
            raise unauthorized(INVALID_CLIENT_SECRET, "Client secret is not valid")
        return client


class WalletFamilyGuard:
    scheme: tuple[str, ...] = ("clientSecret", "bearerToken")

    def __init__(self, *kinds: TokenKind) -> None:
        self.kinds = frozenset(kinds)
        refused = (WALLET_TOKEN_REQUIRED if TokenKind.WALLET in self.kinds else ACCESS_TOKEN_REQUIRED,)
        # Every kind allowed: no token is refused for its kind.
        self.errors: Mapping[int, tuple[str, ...]] = {
            401: CLIENT_SECRET_ERRORS + TOKEN_ERRORS,
            **({} if self.kinds == frozenset(TokenKind) else {403: refused}),
        }

    def __call__(self, request: Request) -> WalletPrincipal:
        client = client_secret(request)
        header = request.headers.get("authorization", "")
        scheme, _, token = header.partition(" ")
        if scheme.lower() != "bearer" or not token.strip():
            raise unauthorized(MISSING_TOKEN, "Missing Authorization: Bearer <token> header")
        claims = tokens.verify(token.strip())
        if claims.client_id != client.clientId:
            raise unauthorized(TOKEN_CLIENT_MISMATCH, "Token does not belong to this client")
        user = users.get(claims.client_id, claims.sub_id)
        if user is None or user.userId != claims.user_id:
            raise unauthorized(USER_NOT_FOUND, "The token's user no longer exists")
        if user.tokensValidAfter is not None and claims.issued_at < user.tokensValidAfter:
            raise unauthorized(TOKEN_REVOKED, "Token was revoked; log in again")
        if claims.kind not in self.kinds:
            if TokenKind.WALLET in self.kinds:
                raise forbidden(
                    WALLET_TOKEN_REQUIRED, "This operation needs a wallet token; create or recover a wallet first"
                )
            raise forbidden(ACCESS_TOKEN_REQUIRED, "This operation needs an access token of a user without a wallet")
        return WalletPrincipal(client=client, claims=claims, user=user)


class SignedRequestGuard:
    scheme: tuple[str, ...] = ("appId", "appTimestamp", "appSignature")
    errors: Mapping[int, tuple[str, ...]] = {
        401: (
            signing.MISSING_SIGNATURE_HEADERS,
            signing.INVALID_TIMESTAMP,
            signing.STALE_TIMESTAMP,
            signing.UNKNOWN_APP,
            signing.INVALID_SIGNATURE,
            signing.REPLAYED_REQUEST,
        ),
        403: (signing.APP_DISABLED,),
    }

    def __call__(self, request: Request) -> App:
        return signing.verify(request)


client_secret = ClientSecretGuard()
signed_request = SignedRequestGuard()
any_user_token = WalletFamilyGuard(TokenKind.ACCESS, TokenKind.WALLET)
access_token = WalletFamilyGuard(TokenKind.ACCESS)  # create, recover, import a wallet
wallet_token = WalletFamilyGuard(TokenKind.WALLET)  # wallet operations
