"""Creating, recovering and importing a user's MPC wallet, and signing with it.

Create and import take one aux-info set from the pool, run the parties (see
chalicelib/mpc) and bind the wallet to the user in one transaction; recovery
binds an existing wallet to the user presenting its `secret0`. All three answer
with a wallet token, a refresh token, `secret0` and a fresh download link.

A new key is governed by the `wallets` signing policy (policies/cosigner_check.py): the
cosigner records the wallet's client with its share and, from then on, signs for
it only what the policies of that client's apps allow.
"""

from __future__ import annotations

import re
import secrets
from collections.abc import Callable
from datetime import UTC, date, datetime, time
from typing import Literal

from chalicelib.auth import refresh
from chalicelib.auth.jwt_keys import MAX_TOKEN_LIFETIME_S
from chalicelib.auth.models import WalletPrincipal
from chalicelib.auth.service import wallet_token_for
from chalicelib.auth.users import User
from chalicelib.evm.digests import Signable
from chalicelib.mpc import aux_pool, shares
from chalicelib.mpc import service as mpc
from chalicelib.mpc.cosigner_checks import KeyPolicy
from chalicelib.platform import clock
from chalicelib.platform.clock import iso_now
from chalicelib.platform.errors import ApiError, bad_request, conflict, not_found, unauthorized
from chalicelib.platform.logging import logger
from chalicelib.platform.unit_of_work import Plan
from chalicelib.wallets import recovery_files, store
from chalicelib.wallets.balances import WALLET_NOT_FOUND
from chalicelib.wallets.governance import WALLET_POLICY_NAME
from chalicelib.wallets.models import WalletCreated

WALLET_EXISTS = "WALLET_EXISTS"
WALLET_CREATION_IN_PROGRESS = "WALLET_CREATION_IN_PROGRESS"
KEY_ALREADY_IMPORTED = "KEY_ALREADY_IMPORTED"
INVALID_EXPIRE_DATE = "INVALID_EXPIRE_DATE"
MISSING_SECRET0 = "MISSING_SECRET0"
MALFORMED_SECRET0 = "MALFORMED_SECRET0"
UNKNOWN_SECRET0 = "UNKNOWN_SECRET0"
INVALID_SECRET = "INVALID_SECRET"

MIN_TOKEN_LIFETIME_S = 60
_PRIVATE_KEY = re.compile(r"^(0x)?[0-9a-fA-F]{64}$")


def create(principal: WalletPrincipal, expire_date: str | None) -> WalletCreated:
    expires_at = token_expiry(expire_date)
    wallet_id = secrets.token_hex(16)
    policy = key_policy(principal.user)
    return _provision(
        principal.user, wallet_id, expires_at, lambda aux_id: mpc.generate_key(wallet_id, aux_id, policy), "created"
    )


def import_key(principal: WalletPrincipal, private_key: str, expire_date: str | None) -> WalletCreated:
    expires_at = token_expiry(expire_date)
    if not _PRIVATE_KEY.match(private_key):
        raise bad_request(mpc.INVALID_PRIVATE_KEY, "privateKey must be 64 hex digits, optionally 0x-prefixed")
    key = bytearray.fromhex(private_key.removeprefix("0x"))
    try:  # the key is wiped whatever happens (mpc.import_key wipes it as soon as it is split)
        address = _address_of(key)  # also rejects 0 and values >= the curve order
        if address is None:
            raise bad_request(mpc.INVALID_PRIVATE_KEY, "Not a valid secp256k1 private key")
        if store.address_taken(address):
            raise conflict(KEY_ALREADY_IMPORTED, "This key is already a wallet of this service")
        wallet_id = secrets.token_hex(16)
        policy = key_policy(principal.user)
        return _provision(
            principal.user,
            wallet_id,
            expires_at,
            lambda aux_id: mpc.import_key(wallet_id, aux_id, key, policy),
            "imported",
        )
    finally:
        key[:] = bytes(len(key))


def key_policy(user: User) -> KeyPolicy:
    """What party A asks the cosigner to govern a new key of `user` by: the wallets policy, with its client."""
    return KeyPolicy(name=WALLET_POLICY_NAME, context={"clientId": user.clientId})


def recover(principal: WalletPrincipal, secret0: str | None, expire_date: str | None) -> WalletCreated:
    expires_at = token_expiry(expire_date)
    if not secret0 or not secret0.strip():
        raise bad_request(MISSING_SECRET0, "Send {secret0} as JSON, or the recovery file as multipart part `file`")
    try:
        wallet_id = shares.wallet_id_of(secret0)
    except shares.Secret0Error:
        raise bad_request(MALFORMED_SECRET0, "This is not a secret0 issued by this service") from None
    wallet = store.get(wallet_id)
    # A wallet of another client is treated as unknown: clients never learn about each other's wallets.
    if (
        wallet is None
        or wallet.clientId != principal.user.clientId
        or not shares.secret0_matches(secret0, wallet.secret0Hash)
    ):
        raise ApiError(422, UNKNOWN_SECRET0, "This secret0 does not belong to any wallet of this client")
    try:
        wallet = store.rebind(wallet, principal.user)
    except store.BindingConflictError as exc:
        raise _conflict(exc) from None
    user = principal.user.model_copy(update={"walletId": wallet.walletId, "walletAddress": wallet.address})
    logger.info("wallet recovered", extra={"walletId": wallet.walletId})
    return _answer(user, wallet.address, secret0.strip(), expires_at)


def token_expiry(expire_date: str | None) -> int | None:
    """`expireDate` as epoch seconds, or None for the default lifetime."""
    if expire_date is None:
        return None
    try:
        if re.fullmatch(r"\d{4}-\d{2}-\d{2}", expire_date):
            when = datetime.combine(date.fromisoformat(expire_date), time(0), tzinfo=UTC)
        else:
            when = clock.parse_iso(expire_date)
            if when.tzinfo is None:
                raise ValueError("no offset")
    except ValueError:
        raise bad_request(
            INVALID_EXPIRE_DATE, "expireDate must be an RFC 3339 date-time with offset, or a date (YYYY-MM-DD)"
        ) from None
    seconds = (when - clock.now()).total_seconds()
    if seconds < MIN_TOKEN_LIFETIME_S or seconds > MAX_TOKEN_LIFETIME_S:
        raise bad_request(INVALID_EXPIRE_DATE, "expireDate must be between 1 minute and 30 days from now")
    return int(when.timestamp())


def wallet_of(principal: WalletPrincipal) -> store.Wallet:
    wallet = store.get(principal.user.walletId) if principal.user.walletId else None
    if wallet is None or wallet.subId != principal.user.subId:
        raise not_found(WALLET_NOT_FOUND, "This user has no wallet")
    return wallet


def bound_wallet(principal: WalletPrincipal) -> store.BoundWallet:
    """The principal's wallet without reading it: the guard read the user (consistently), and the user's record
    names its wallet in the same transaction that binds it (store.BoundWallet)."""
    user = principal.user
    if not user.walletId or not user.walletAddress:
        raise not_found(WALLET_NOT_FOUND, "This user has no wallet")
    return store.BoundWallet(walletId=user.walletId, address=user.walletAddress)


def check_secret(principal: WalletPrincipal, wallet: store.BoundWallet, secret: str | None) -> None:
    """`secret`, when given, must be this wallet's secret0 (then share C signs instead of B); only then is the
    wallet's record (its secret0 hash) read."""
    if secret is None:
        return
    full = wallet if isinstance(wallet, store.Wallet) else wallet_of(principal)
    if not shares.secret0_matches(secret, full.secret0Hash):
        raise unauthorized(INVALID_SECRET, "secret is not this wallet's secret0")


def sign(
    principal: WalletPrincipal,
    payload: Signable,
    secret: str | None = None,
    wallet: store.BoundWallet | None = None,
    record: Plan | None = None,
) -> bytes:
    """Sign `payload` (a transaction, a personal message or typed data: never a bare digest; the parties hash it
    themselves) with A+B, or A+C when `secret` is given: 65 bytes r || s || recovery id (0 or 1).

    `wallet`: the principal's wallet when the caller has it already. `record`: what to write for the signature,
    committed with its audit record before it is returned (mpc/service.py). ValueError (TypedDataError) for a
    malformed payload, which the caller validates first."""
    wallet = wallet or bound_wallet(principal)
    check_secret(principal, wallet, secret)
    caller = f"client:{principal.client.clientId}/user:{principal.user.userId}"
    try:
        return mpc.sign(
            wallet.walletId, wallet.address, payload, caller, secret.strip() if secret else None, record=record
        )
    except mpc.MpcRunError as exc:
        raise exc.api_error() from None


def _provision(
    user: User,
    wallet_id: str,
    expires_at: int | None,
    make_key: Callable[[str], mpc.KeyMaterial],
    origin: Literal["created", "imported"],
) -> WalletCreated:
    try:
        store.reserve_user(user, wallet_id)
    except store.BindingConflictError as exc:
        raise _conflict(exc) from None
    aux_id: str | None = None
    try:
        try:
            aux_id = aux_pool.claim(wallet_id)
        except aux_pool.PoolEmptyError:
            raise ApiError(
                503, aux_pool.WALLET_POOL_EMPTY, "No key material is ready for a new wallet; retry in a few minutes"
            ) from None
        try:
            material = make_key(aux_id)
        except mpc.MpcRunError as exc:
            raise exc.api_error() from None
        bound = user.model_copy(update={"walletId": wallet_id, "walletAddress": material.address})
        # Everything the answer needs is made before the binding commits: after it, nothing may fail,
        # or the user would hold a wallet whose secret0 nobody ever saw.
        answer = _answer(bound, material.address, material.secret0, expires_at)
        now = iso_now()
        store.create(
            store.Wallet(
                walletId=wallet_id,
                address=material.address,
                clientId=user.clientId,
                subId=user.subId,
                userId=user.userId,
                secret0Hash=shares.secret0_hash(material.secret0),
                origin=origin,
                createdAt=now,
                updatedAt=now,
            )
        )
    except BaseException as exc:
        store.release_user(user, wallet_id)
        if aux_id is not None:  # once claimed, a set may have been seen by the parties: never used again
            aux_pool.consume(aux_id)
        if isinstance(exc, store.BindingConflictError):
            raise _conflict(exc) from None
        raise
    try:
        aux_pool.consume(aux_id)
    except Exception as exc:  # noqa: BLE001 - the wallet exists; a leftover claimed set is skipped by claim()
        logger.warning("aux set not deleted", extra={"auxId": aux_id, "errorType": type(exc).__name__})
    mpc.stock_presignatures(wallet_id)
    logger.info("wallet provisioned", extra={"walletId": wallet_id, "origin": origin})
    return answer


def _answer(user: User, address: str, secret0: str, expires_at: int | None) -> WalletCreated:
    return WalletCreated(
        walletToken=wallet_token_for(user, expires_at).token,
        refreshToken=refresh.issue(user.clientId, user.subId),
        secret0=secret0,
        secret0Link=recovery_files.publish(address, secret0),
        address=address,
    )


def _address_of(key: bytearray) -> str | None:
    from eth_keys.main import KeyAPI
    from eth_utils import ValidationError

    try:
        return str(KeyAPI.PrivateKey(bytes(key)).public_key.to_checksum_address())
    except (ValidationError, ValueError):
        return None


def _conflict(exc: store.BindingConflictError) -> ApiError:
    if exc.reason == "wallet_exists":
        return conflict(WALLET_EXISTS, "This user already has a wallet")
    if exc.reason == "address_taken":
        return conflict(KEY_ALREADY_IMPORTED, "This key is already a wallet of this service")
    if exc.reason == "moved":
        return conflict(WALLET_CREATION_IN_PROGRESS, "The wallet was just recovered by another request; retry")
    return conflict(WALLET_CREATION_IN_PROGRESS, "A wallet operation for this user is in progress; retry shortly")
