"""Login, token refresh and session lookup."""

from __future__ import annotations

from datetime import UTC, datetime

from chalicelib.auth import refresh, tokens, users
from chalicelib.auth.models import SessionInfo, TokenPair, WalletPrincipal
from chalicelib.auth.tokens import TokenKind
from chalicelib.auth.users import User
from chalicelib.platform.clock import iso
from chalicelib.platform.errors import unauthorized
from chalicelib.platform.settings import load_settings
from chalicelib.tenancy.models import Client


def login(client: Client, sub_id: str) -> TokenPair:
    user = users.get_or_create(client.clientId, sub_id)
    return _token_pair(user, refresh.issue(client.clientId, sub_id))


def refresh_tokens(client: Client, refresh_token: str) -> TokenPair:
    def mint(grant: refresh.RefreshGrant, successor: str) -> TokenPair:
        user = users.get(grant.client_id, grant.sub_id)
        if user is None:
            raise unauthorized(refresh.INVALID_REFRESH_TOKEN, "Refresh token is invalid or expired")
        return _token_pair(user, successor)

    return refresh.rotate(refresh_token, client.clientId, mint)


def session(principal: WalletPrincipal) -> SessionInfo:
    claims, user = principal.claims, principal.user
    return SessionInfo(
        userId=user.userId,
        clientId=user.clientId,
        subId=user.subId,
        tokenType=claims.kind.value,
        expiresAt=_iso(claims.expires_at),
        isWalletCreated=user.has_wallet,
        address=user.walletAddress,
    )


def wallet_token_for(user: User, expires_at: int | None = None) -> tokens.IssuedToken:
    return tokens.issue(
        TokenKind.WALLET,
        user_id=user.userId,
        client_id=user.clientId,
        sub_id=user.subId,
        ttl_s=load_settings().wallet_token_ttl_s,
        expires_at=expires_at,
    )


def _token_pair(user: User, refresh_token: str) -> TokenPair:
    if user.has_wallet:
        issued = wallet_token_for(user)
        return TokenPair(
            isWalletCreated=True,
            walletToken=issued.token,
            refreshToken=refresh_token,
            expiresAt=_iso(issued.claims.expires_at),
        )
    issued = tokens.issue(
        TokenKind.ACCESS,
        user_id=user.userId,
        client_id=user.clientId,
        sub_id=user.subId,
        ttl_s=load_settings().access_token_ttl_s,
    )
    return TokenPair(
        isWalletCreated=False,
        accessToken=issued.token,
        refreshToken=refresh_token,
        expiresAt=_iso(issued.claims.expires_at),
    )


def _iso(epoch_s: int) -> str:
    return iso(datetime.fromtimestamp(epoch_s, UTC))
