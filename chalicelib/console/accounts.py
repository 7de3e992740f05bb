"""Console accounts: invites, sign-in with an optional TOTP second factor, sessions, the team.

Sessions and invites are bearer tokens (256 bits, stored hashed). A session ends after DOMPET_CONSOLE_IDLE_S
without a request and DOMPET_CONSOLE_SESSION_S after sign-in, whichever comes first; every sign-in (and the
second factor) makes a new one, so a token planted before sign-in is worth nothing after it. The member's role is
read on every request: a role change or a removal applies at once.
"""

from __future__ import annotations

import hmac
import secrets
import uuid
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from chalicelib.console import audit, passwords, store, throttle
from chalicelib.console.audit import Origin
from chalicelib.console.models import Actor, ConsoleUser, Invite, Role, Session
from chalicelib.console.store import Appended
from chalicelib.platform import aws, clock, errors, unit_of_work
from chalicelib.platform.errors import ApiError, bad_request, conflict, forbidden, not_found, unauthorized
from chalicelib.platform.secrets import digest
from chalicelib.platform.settings import load_settings
from chalicelib.platform.unit_of_work import Plan
from chalicelib.tenancy import store as tenancy

INVALID_CREDENTIALS = "INVALID_CREDENTIALS"
INVALID_TOTP_CODE = "INVALID_TOTP_CODE"
SESSION_REQUIRED = "SESSION_REQUIRED"
INVITE_NOT_FOUND = "INVITE_NOT_FOUND"
INVITE_USED = "INVITE_USED"
INVITE_EXPIRED = "INVITE_EXPIRED"
PASSWORDS_DIFFER = "PASSWORDS_DIFFER"
EMAIL_TAKEN = "EMAIL_TAKEN"
ROLE_REQUIRED = "ROLE_REQUIRED"
MEMBER_NOT_FOUND = "MEMBER_NOT_FOUND"
LAST_ADMIN = "LAST_ADMIN"
ORGANIZATION_NOT_FOUND = "ORGANIZATION_NOT_FOUND"
TOTP_ALREADY_ON = "TOTP_ALREADY_ON"
TOTP_NOT_STARTED = "TOTP_NOT_STARTED"

FULL = "full"
TOTP_OWED = "totp"
TOTP_STEP_S = 30
TOUCH_AFTER_S = 60  # a session's idle clock is moved at most once a minute (not a write per request)


def _token() -> str:
    return secrets.token_urlsafe(32)


# --- invites -------------------------------------------------------------------------------------------------


def invite(origin: Origin, email: str | None, role: Role) -> tuple[Invite, str]:
    """An invite to the origin's organization; returns it with its token (shown once, in the link). Without an
    email (the operator's first admin), whoever accepts it gives theirs."""
    if tenancy.get_organization(origin.organization_id) is None:
        raise not_found(ORGANIZATION_NOT_FOUND, "No such organization")
    token = _token()
    now = clock.now()
    expires = now + timedelta(seconds=load_settings().console_invite_s)
    record = Invite(
        inviteId=str(uuid.uuid4()),
        organizationId=origin.organization_id,
        email=email,
        role=role,
        invitedBy=origin.actor.email or origin.actor.kind,
        createdAt=clock.iso(now),
        expiresAt=clock.iso(expires),
    )
    items = store.new_invite_items(
        digest(token), record.model_dump(mode="json", exclude_none=True), int(expires.timestamp())
    )
    logged = audit.entry(origin, "member.invited", "invite", record.inviteId, email=email or "", role=role.value)
    unit_of_work.commit(Plan(items=items, lists=[logged]))
    return record, token


def invite_for(token: str) -> Invite:
    """The open invite behind `token` (404 INVITE_NOT_FOUND, 410 INVITE_USED / INVITE_EXPIRED otherwise)."""
    item = store.get_invite(digest(token)) if 20 <= len(token) <= 100 else None
    if item is None:
        raise not_found(INVITE_NOT_FOUND, "This invite link is not valid")
    expires_at = int(item["expiresAt"])  # DynamoDB's TTL attribute: Unix seconds
    fields = {k: item[k] for k in Invite.model_fields if k in item}
    found = Invite.model_validate({**fields, "expiresAt": clock.iso(datetime.fromtimestamp(expires_at, UTC))})
    if found.usedAt is not None:
        raise ApiError(410, INVITE_USED, "This invite link was used already")
    if expires_at <= clock.epoch():
        raise ApiError(410, INVITE_EXPIRED, "This invite link has expired; ask for a new one")
    return found


def accept_invite(
    token: str, email: str | None, password: str, confirm: str, source_ip: str | None, user_agent: str | None
) -> str:
    """Create the invited member with this password and sign them in; returns the new session's token. The
    invite is used in the same transaction (a second acceptance, even a concurrent one, fails). `email` is
    taken only for an invite made without one."""
    found = invite_for(token)
    if not hmac.compare_digest(password.encode(), confirm.encode()):
        raise bad_request(PASSWORDS_DIFFER, "The two passwords differ", field="passwordConfirm")
    email = found.email or email
    if not email:
        raise bad_request(errors.VALIDATION_ERROR, "Give the email you will sign in with", field="email")
    user_id = str(uuid.uuid4())
    user: dict[str, Any] = {
        "userId": user_id,
        "email": email,
        "organizationId": found.organizationId,
        "role": found.role.value,
        "createdAt": clock.iso_now(),
        "passwordHash": passwords.hash_password(password),
        "totpEnabled": False,
    }
    actor = Actor(kind="console_user", userId=user_id, email=email)
    origin = Origin(found.organizationId, actor, source_ip, user_agent)
    used = aws.update(
        "invite",
        store.TABLE,
        store.invite_key(digest(token)),
        aws.Changes(set={"usedAt": user["createdAt"]}),
        aws.Condition("attribute_exists(pk) AND attribute_not_exists(usedAt)"),
    )
    logged = audit.entry(origin, "member.joined", "member", user_id, email=email, role=found.role.value)
    try:
        unit_of_work.commit(Plan(items=[used, *store.new_user_items(user)], lists=[logged]))
    except aws.TransactionCancelledError as exc:
        if exc.condition_failed("invite"):
            raise ApiError(410, INVITE_USED, "This invite link was used already") from None
        if exc.condition_failed("email"):
            raise conflict(EMAIL_TAKEN, "This email already has a console account") from None
        raise
    return _new_session(user, FULL)


# --- sign-in -------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class SignedIn:
    token: str
    totp_owed: bool


def login(email: str, password: str, source_ip: str | None, user_agent: str | None = None) -> SignedIn:
    """A session for a correct password: a full one (logged as a sign-in), or one that owes the TOTP code.
    Failures are counted per account and per source; past either limit, 429 before the password is checked."""
    subjects = [(throttle.ACCOUNT, email)] + ([(throttle.SOURCE, source_ip)] if source_ip else [])
    taken = throttle.take(*subjects)
    user = store.get_user_by_email(email)
    if not passwords.verify(str(user["passwordHash"]) if user else None, password) or user is None:
        raise unauthorized(INVALID_CREDENTIALS, "Email or password is not correct")  # the attempts stay counted
    throttle.give_back(taken)
    if user.get("totpEnabled"):
        return SignedIn(_new_session(user, TOTP_OWED), True)
    return SignedIn(_new_session(user, FULL, _signed_in(user, source_ip, user_agent)), False)


def second_factor(session: Session, code: str, source_ip: str | None = None, user_agent: str | None = None) -> str:
    """The TOTP code of a session that owes it: a new full session (the owing one ends). Codes are counted
    against the account; a code, once accepted, is not accepted again."""
    taken = throttle.take((throttle.TOTP, session.user_id))
    user = store.get_user(session.user_id)
    if user is None or not user.get("totpEnabled"):
        raise unauthorized(SESSION_REQUIRED, "Sign in again")
    step = _accepted_step(user, str(user["totpSecret"]), code)
    if step is None or not _use_step(user, step):
        raise unauthorized(INVALID_TOTP_CODE, "The code is not correct")  # the attempt stays counted
    throttle.give_back(taken)
    store.delete_session(session.token_hash)
    return _new_session(user, FULL, _signed_in(user, source_ip, user_agent, second_factor=True))


def _accepted_step(user: dict[str, Any], sealed: str, code: str) -> int | None:
    """The time step (±1) whose code is `code`, else None."""
    import pyotp

    secret = _open_totp_secret(str(user["userId"]), sealed)
    totp = pyotp.TOTP(secret, interval=TOTP_STEP_S)
    now = clock.now()
    for drift in (0, -1, 1):
        at = now + timedelta(seconds=drift * TOTP_STEP_S)
        if hmac.compare_digest(totp.at(at), code):
            return int(at.timestamp()) // TOTP_STEP_S
    return None


def _use_step(user: dict[str, Any], step: int) -> bool:
    """Record `step` as used (a conditional write): False when it, or a later one, was used already."""
    try:
        aws.write(
            aws.update(
                "user",
                store.TABLE,
                store.user_key(str(user["userId"])),
                aws.Changes(set={"totpLastStep": step}),
                aws.Condition("attribute_not_exists(totpLastStep) OR totpLastStep < :s", values={":s": step}),
            )
        )
    except aws.ConditionFailedError:
        return False
    return True


def _signed_in(
    user: dict[str, Any], source_ip: str | None, user_agent: str | None, second_factor: bool = False
) -> Appended:
    actor = Actor(kind="console_user", userId=str(user["userId"]), email=str(user["email"]))
    origin = Origin(str(user["organizationId"]), actor, source_ip, user_agent)
    return audit.entry(
        origin, "member.signed_in", "member", actor.userId or "", secondFactor=str(second_factor).lower()
    )


def _new_session(user: dict[str, Any], stage: str, logged: Appended | None = None) -> str:
    """A new session token (shown only to the browser, in its cookie); `logged`: the audit entry written with it."""
    token = _token()
    now = clock.epoch()
    settings = load_settings()
    absolute = now + settings.console_session_s
    item = aws.put(
        "session",
        store.TABLE,
        {
            **store.session_key(digest(token)),
            "userId": user["userId"],
            "email": user["email"],
            "organizationId": user["organizationId"],
            "csrf": _token(),
            "createdAt": now,
            "seenAt": now,
            "absoluteUntil": absolute,
            "stage": stage,
            "expiresAt": min(now + settings.console_idle_s, absolute),
        },
    )
    unit_of_work.commit(Plan(items=[item], lists=[logged] if logged else []))
    return token


def session(token: str | None, stage: str = FULL, touch: bool = True) -> tuple[Session, ConsoleUser]:
    """The live session behind a cookie's token and its member as stored now (401 SESSION_REQUIRED otherwise).
    `touch`: the request is the member's own (a page's automatic refresh does not keep a session alive)."""
    item = store.get_session(digest(token)) if token and 20 <= len(token) <= 100 else None
    if item is None or item.get("stage") != stage:
        raise unauthorized(SESSION_REQUIRED, "Sign in to continue")
    found = Session(
        token_hash=str(item["pk"])[len("SESSION#") :],
        user_id=str(item["userId"]),
        email=str(item["email"]),
        organization_id=str(item["organizationId"]),
        csrf=str(item["csrf"]),
        created_at=int(item["createdAt"]),
        seen_at=int(item["seenAt"]),
        absolute_until=int(item["absoluteUntil"]),
        stage=str(item["stage"]),
    )
    user = store.get_user(found.user_id)
    if user is None or user["organizationId"] != found.organization_id:
        raise unauthorized(SESSION_REQUIRED, "Sign in to continue")
    now = clock.epoch()
    if touch and now - found.seen_at >= TOUCH_AFTER_S:
        store.touch_session(found.token_hash, now, min(now + load_settings().console_idle_s, found.absolute_until))
    return found, member_of(user)


def member_of(item: dict[str, Any]) -> ConsoleUser:
    return ConsoleUser.model_validate({k: item[k] for k in ConsoleUser.model_fields if k in item})


def logout(origin: Origin, found: Session) -> None:
    logged = audit.entry(origin, "member.signed_out", "member", found.user_id)
    unit_of_work.commit(Plan(items=[store.delete_session_item(found.token_hash)], lists=[logged]))


def csrf_matches(found: Session, presented: str | None) -> bool:
    return presented is not None and hmac.compare_digest(found.csrf.encode(), presented.encode())


def require(user: ConsoleUser, role: Role) -> None:
    if not user.role.allows(role):
        raise forbidden(ROLE_REQUIRED, f"This needs the {role.value} role", role=role.value)


# --- the team ------------------------------------------------------------------------------------------------


def members(organization_id: str) -> list[dict[str, Any]]:
    return sorted(store.members(organization_id), key=lambda m: str(m["createdAt"]))


def open_invites(organization_id: str) -> list[dict[str, Any]]:
    return sorted((i for i in store.invites(organization_id) if not i.get("usedAt")), key=lambda i: str(i["createdAt"]))


def _member(organization_id: str, user_id: str) -> dict[str, Any]:
    user = store.get_user(user_id)
    if user is None or user["organizationId"] != organization_id:
        raise not_found(MEMBER_NOT_FOUND, "No such member in this organization")
    return user


def _another_admin(organization_id: str, user: dict[str, Any]) -> list[aws.TxItem]:
    """For a change that takes the admin role from `user`: a check, in the change's transaction, that another
    member is still an admin when it commits (so two admins demoting each other at once cannot both succeed).
    LAST_ADMIN when there is none."""
    if user["role"] != Role.ADMIN:
        return []
    others = [
        str(m["sk"]).removeprefix("MEMBER#")
        for m in store.members(organization_id)
        if m["role"] == Role.ADMIN and m["sk"] != f"MEMBER#{user['userId']}"
    ]
    if not others:
        raise conflict(LAST_ADMIN, "An organization keeps at least one admin")
    still_admin = aws.Condition(
        "#r = :admin AND organizationId = :org",
        names={"#r": "role"},
        values={":admin": Role.ADMIN.value, ":org": organization_id},
    )
    return [aws.condition_check("another-admin", store.TABLE, store.user_key(others[0]), still_admin)]


def _commit_keeping_an_admin(plan: Plan) -> None:
    try:
        unit_of_work.commit(plan)
    except aws.TransactionCancelledError as exc:
        if exc.condition_failed("another-admin"):
            raise conflict(
                LAST_ADMIN, "An organization keeps at least one admin (the team changed meanwhile)"
            ) from None
        raise


def set_role(origin: Origin, user_id: str, role: Role) -> None:
    user = _member(origin.organization_id, user_id)
    keeps = _another_admin(origin.organization_id, user) if role != Role.ADMIN else []
    seen = aws.Condition("#r = :r", names={"#r": "role"}, values={":r": user["role"]})
    changes = aws.Changes(set={"role": role.value})
    items = [
        aws.update("user", store.TABLE, store.user_key(user_id), changes, seen),
        aws.update("member", store.TABLE, store.member_key(origin.organization_id, user_id), changes),
        *keeps,
    ]
    logged = audit.entry(origin, "member.role_changed", "member", user_id, email=user["email"], role=role.value)
    _commit_keeping_an_admin(Plan(items=items, lists=[logged]))


def remove(origin: Origin, user_id: str) -> None:
    user = _member(origin.organization_id, user_id)
    keeps = _another_admin(origin.organization_id, user)
    logged = audit.entry(origin, "member.removed", "member", user_id, email=user["email"])
    _commit_keeping_an_admin(Plan(items=[*store.removed_user_items(user), *keeps], lists=[logged]))


# --- the second factor ---------------------------------------------------------------------------------------


def start_totp(user: ConsoleUser) -> tuple[str, str]:
    """A new TOTP secret for the member (pending until a code confirms it): the secret and its otpauth URI."""
    import pyotp

    if user.totpEnabled:
        raise conflict(TOTP_ALREADY_ON, "Two-factor sign-in is on already")
    secret = pyotp.random_base32()
    aws.write(
        aws.update(
            "user",
            store.TABLE,
            store.user_key(user.userId),
            aws.Changes(set={"pendingTotpSecret": _seal_totp_secret(user.userId, secret)}),
        )
    )
    uri = pyotp.TOTP(secret, interval=TOTP_STEP_S).provisioning_uri(name=user.email, issuer_name="Dompet")
    return secret, uri


def confirm_totp(origin: Origin, user: ConsoleUser, code: str) -> None:
    """Turn the pending secret on with a code it generates."""
    taken = throttle.take((throttle.TOTP, user.userId))
    item = store.get_user(user.userId)
    pending = item.get("pendingTotpSecret") if item else None
    if item is None or not pending:
        throttle.give_back(taken)
        raise conflict(TOTP_NOT_STARTED, "Start setting up two-factor sign-in first")
    step = _accepted_step(item, str(pending), code)
    if step is None:
        raise bad_request(INVALID_TOTP_CODE, "The code is not correct", field="code")  # the attempt stays counted
    throttle.give_back(taken)
    changes = aws.Changes(
        set={"totpSecret": pending, "totpEnabled": True, "totpLastStep": step}, remove=("pendingTotpSecret",)
    )
    items = [aws.update("user", store.TABLE, store.user_key(user.userId), changes)]
    logged = audit.entry(origin, "member.totp_enabled", "member", user.userId)
    unit_of_work.commit(Plan(items=items, lists=[logged]))


def _seal_totp_secret(user_id: str, secret: str) -> str:
    import base64

    blob = aws.client("kms").encrypt(
        KeyId=aws.key_alias("console"), Plaintext=secret.encode(), EncryptionContext=_totp_context(user_id)
    )["CiphertextBlob"]
    return base64.b64encode(blob).decode()


def _open_totp_secret(user_id: str, sealed: str) -> str:
    import base64

    plain = aws.client("kms").decrypt(
        CiphertextBlob=base64.b64decode(sealed),
        EncryptionContext=_totp_context(user_id),
        KeyId=aws.key_alias("console"),
    )["Plaintext"]
    return bytes(plain).decode()


def _totp_context(user_id: str) -> dict[str, str]:
    return {"userId": user_id, "purpose": "console-totp"}
