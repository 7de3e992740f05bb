"""Signing-policy routes (Family S: the app of the request signature is the one whose policy it is)."""

from __future__ import annotations

from chalice import Blueprint

from chalicelib.auth import guards
from chalicelib.platform.router import Call, Reply, route
from chalicelib.policies import service
from chalicelib.policies.models import (
    EvaluateBody,
    Evaluation,
    KeyRotated,
    KeyRotationBody,
    PolicyBody,
    PolicySet,
    PolicyView,
)

bp = Blueprint(__name__)
TAG = "Signing policies"
SET = "policy set"
ROTATED = "policy key rotated"


@route(
    bp,
    "/api/v1/policies",
    "PUT",
    summary="Set the app's signing policy (signed by the app's policy key)",
    description="The cosigner verifies `signature` (Ed25519, by the policy key the operator registered for the app) "
    "over the RFC 8785 canonical JSON of `{appId, policy}` (this app's id: a document signed for another app is "
    "refused), checks the document and that its `version` is higher than the "
    "stored one, and keeps its own copy; from then on it applies it to every signature of the client's MPC wallets "
    "(docs/policies.md). `400 INVALID_POLICY` (`data.field` names the problem) or `POLICY_TOO_LARGE`; `403 "
    "POLICY_SIGNATURE_INVALID`; `409 NO_POLICY_KEY` (none registered) or `POLICY_VERSION_STALE` (the same or an "
    "older version: a signed document cannot be replayed); `503 SIGNER_UNAVAILABLE` (nothing stored, retry).",
    tag=TAG,
    guard=guards.signed_request,
    body=PolicyBody,
    response=PolicySet,
    message=SET,
    errors={
        400: (
            "INVALID_ADDRESS",
            "INVALID_PAYLOAD",
            "INVALID_POLICY",
            "INVALID_POLICY_KEY",
            "INVALID_PRIVATE_KEY",
            "POLICY_TOO_LARGE",
        ),
        403: ("POLICY_DENIED", "POLICY_SIGNATURE_INVALID"),
        404: ("WALLET_NOT_FOUND",),
        409: ("NO_POLICY_KEY", "POLICY_VERSION_STALE"),
        503: ("LIST_BUSY", "SIGNER_UNAVAILABLE"),
    },
)
def set_policy(call: Call) -> Reply:
    return Reply(service.set_policy(call.principal, call.body), SET)


@route(
    bp,
    "/api/v1/policies",
    "GET",
    summary="The app's signing policy in force, its version and policy key",
    description="`policy` is the document exactly as it was signed, or null when none is set. `keyRegistered: "
    "false`: the operator registered no policy key, and the app's wallets sign as they did before policies.",
    tag=TAG,
    guard=guards.signed_request,
    response=PolicyView,
    errors={
        400: (
            "INVALID_ADDRESS",
            "INVALID_PAYLOAD",
            "INVALID_POLICY",
            "INVALID_POLICY_KEY",
            "INVALID_PRIVATE_KEY",
            "POLICY_TOO_LARGE",
        ),
        403: ("POLICY_DENIED", "POLICY_SIGNATURE_INVALID"),
        404: ("WALLET_NOT_FOUND",),
        409: ("NO_POLICY_KEY", "POLICY_VERSION_STALE"),
        503: ("LIST_BUSY", "SIGNER_UNAVAILABLE"),
    },
)
def get_policy(call: Call) -> Reply:
    return Reply(service.get_policy(call.principal))


@route(
    bp,
    "/api/v1/policies/evaluate",
    "POST",
    summary="Would the policy allow this? (nothing is signed or counted)",
    description="Exactly one of `transaction` (`network`, `to`, `value` in wei, `data`), `message` (with "
    '`encoding`), `typedData` or `authorization` (`network` or `chainId`, "0" for any chain, and '
    "`contractAddress`, the delegate), checked as the wallet routes check them. The cosigner's engine decides as "
    "it would for a signature: `{allowed, rule, reason}`, `rule` the path of the deciding rule. With "
    "`walletAddress` (a wallet of the app's client, else `404 WALLET_NOT_FOUND`) the 24 h limits count that "
    "wallet's last 24 hours.",
    tag=TAG,
    guard=guards.signed_request,
    body=EvaluateBody,
    response=Evaluation,
    errors={
        400: (
            "INVALID_MESSAGE",
            "INVALID_PAYLOAD",
            "INVALID_POLICY",
            "INVALID_POLICY_KEY",
            "INVALID_PRIVATE_KEY",
            "INVALID_TYPED_DATA",
            "MESSAGE_TOO_LARGE",
            "POLICY_TOO_LARGE",
            "TYPED_DATA_TOO_LARGE",
            "UNKNOWN_NETWORK",
        ),
        403: ("POLICY_DENIED", "POLICY_SIGNATURE_INVALID"),
        404: ("WALLET_NOT_FOUND",),
        409: ("NO_POLICY_KEY", "POLICY_VERSION_STALE"),
        503: ("LIST_BUSY", "SIGNER_UNAVAILABLE"),
    },
)
def evaluate(call: Call) -> Reply:
    return Reply(service.evaluate(call.principal, call.body))


@route(
    bp,
    "/api/v1/policies/key",
    "PUT",
    summary="Rotate the app's policy key (signed by the current key)",
    description='The current key signs the canonical JSON of `{action: "rotate-policy-key", appId, publicKey, '
    "sequence}` with `sequence` one more than the current key's (the operator's registration is 1). `400 "
    "INVALID_POLICY_KEY`; `403 POLICY_SIGNATURE_INVALID`; `409 NO_POLICY_KEY`. The stored policy stays in force; "
    "later documents must be signed by the new key.",
    tag=TAG,
    guard=guards.signed_request,
    body=KeyRotationBody,
    response=KeyRotated,
    message=ROTATED,
    errors={
        400: (
            "INVALID_ADDRESS",
            "INVALID_PAYLOAD",
            "INVALID_POLICY",
            "INVALID_POLICY_KEY",
            "INVALID_PRIVATE_KEY",
            "POLICY_TOO_LARGE",
        ),
        403: ("POLICY_DENIED", "POLICY_SIGNATURE_INVALID"),
        404: ("WALLET_NOT_FOUND",),
        409: ("NO_POLICY_KEY", "POLICY_VERSION_STALE"),
        503: ("LIST_BUSY", "SIGNER_UNAVAILABLE"),
    },
)
def rotate_key(call: Call) -> Reply:
    return Reply(service.rotate_key(call.principal, call.body), ROTATED)
