"""An app's signing policy, as the cosigner keeps it: set, read, try out, and the rotation of its policy key.

The API function only relays. The cosigner verifies every signature with the key the operator registered, keeps
its own copy of the document in its own table and evaluates it there (policies/cosigner_check.py); nothing the API
function writes or claims (the appId it passes included) can loosen a policy. What is checked here is the shape
of the request, so that bad input is a 400 that never reaches the cosigner, and the wallet named for the 24 h
totals, which must be one of the app's client (else 404, as for a wallet that does not exist).

Cosigner refusals keep their codes (`data.code`, with `data.field` for a document); a cosigner that cannot be
reached, or answers something else, is 503 SIGNER_UNAVAILABLE: nothing was stored.
"""

from __future__ import annotations

import base64
import binascii
import json
import re
from typing import Any

from chalicelib.evm import digests, typed_data
from chalicelib.evm.digests import Signable
from chalicelib.evm.transactions import UnsignedTx
from chalicelib.mpc import service as mpc
from chalicelib.mpc.service import SIGNER_UNAVAILABLE
from chalicelib.platform import deadline
from chalicelib.platform.clock import iso_now
from chalicelib.platform.errors import ApiError, bad_request, forbidden, not_found
from chalicelib.platform.logging import logger
from chalicelib.platform.networks import UNKNOWN_NETWORK, registry
from chalicelib.policies import signed
from chalicelib.policies.document import INVALID_POLICY, POLICY_TOO_LARGE, PolicyDocument, PolicyDocumentError
from chalicelib.policies.models import (
    MAX_MESSAGE_BYTES,
    EvaluateBody,
    Evaluation,
    KeyRotated,
    KeyRotationBody,
    PolicyBody,
    PolicySet,
    PolicyView,
    TransactionToEvaluate,
)
from chalicelib.tenancy.models import App
from chalicelib.wallets import store as wallets

NO_POLICY_KEY = "NO_POLICY_KEY"
POLICY_SIGNATURE_INVALID = "POLICY_SIGNATURE_INVALID"
POLICY_VERSION_STALE = "POLICY_VERSION_STALE"
INVALID_POLICY_KEY = signed.INVALID_POLICY_KEY
INVALID_MESSAGE = "INVALID_MESSAGE"
MESSAGE_TOO_LARGE = "MESSAGE_TOO_LARGE"
WALLET_NOT_FOUND = "WALLET_NOT_FOUND"
INVALID_PAYLOAD = "INVALID_PAYLOAD"  # the cosigner cannot read the payload (what is checked here never gets there)

# One invocation and a few table reads; past this (or the request's budget) the cosigner is taken as unreachable.
CALL_TIMEOUT_S = 10.0
SIGNATURE_BYTES = 64
_HEX_BYTES = re.compile(r"0x(?:[0-9a-fA-F]{2})*")

# The cosigner's refusals that are the caller's to fix, with their HTTP status; any other answer is 503.
_REFUSALS = {
    INVALID_POLICY: 400,
    POLICY_TOO_LARGE: 400,
    INVALID_POLICY_KEY: 400,
    INVALID_PAYLOAD: 400,
    POLICY_SIGNATURE_INVALID: 403,
    WALLET_NOT_FOUND: 404,
    NO_POLICY_KEY: 409,
    POLICY_VERSION_STALE: 409,
}
_MESSAGES = {
    INVALID_POLICY: "The policy document is not valid",
    POLICY_TOO_LARGE: "The policy document is over 64 KiB",
    INVALID_POLICY_KEY: "Not an Ed25519 public key",
    INVALID_PAYLOAD: "The cosigner cannot read this payload",
    WALLET_NOT_FOUND: "No wallet of this client has this address",
    POLICY_SIGNATURE_INVALID: "The signature is not the app's policy key's",
    NO_POLICY_KEY: "No policy key is registered for this app; the operator registers one",
    POLICY_VERSION_STALE: "The stored policy's version is the same or newer; a new document needs a higher version",
}


def set_policy(app: App, body: PolicyBody) -> PolicySet:
    """Store `body.policy` as the app's policy, if its policy key signed it and its version is higher."""
    try:  # checked here too so a bad document costs no invocation; the cosigner checks it again, on its own
        PolicyDocument.parse(body.policy)
    except PolicyDocumentError as exc:
        raise _document_error(exc.code, exc.field, exc.message) from None
    _signature_bytes(body.signature)
    answer = _ask("policy-set", {"appId": app.appId, "policy": body.policy, "signature": body.signature})
    version, key_id = answer.get("version"), answer.get("keyId")
    if not isinstance(version, int) or not isinstance(key_id, str):
        raise _unavailable("policy-set", "answer without version or keyId")
    set_at = answer.get("setAt")
    logger.info("signing policy set", extra={"appId": app.appId, "version": version, "keyId": key_id})
    return PolicySet(version=version, keyId=key_id, setAt=set_at if isinstance(set_at, str) else iso_now())


def get_policy(app: App) -> PolicyView:
    answer = _ask("policy-get", {"appId": app.appId})
    policy = answer.get("policy")
    if isinstance(policy, str):  # the canonical JSON text the cosigner stores
        try:
            policy = json.loads(policy)
        except ValueError:
            raise _unavailable("policy-get", "stored document is not JSON") from None
    try:
        return PolicyView(
            policy=policy,
            version=answer.get("version"),
            keyId=answer.get("keyId"),
            keySequence=answer.get("keySequence"),
            keyRegistered=answer.get("keyRegistered"),
        )
    except ValueError:
        raise _unavailable("policy-get", "answer of another shape") from None


def evaluate(app: App, body: EvaluateBody) -> Evaluation:
    """The cosigner's decision for the payload, as if the wallet (when named) asked it to sign; signs nothing and
    counts nothing."""
    payload = _payload(body)
    wallet_id = _wallet_of_client(app, body.walletAddress) if body.walletAddress else None
    answer = _ask("policy-evaluate", {"appId": app.appId, "walletId": wallet_id, "payload": payload.model_dump()})
    try:
        return Evaluation(allowed=answer.get("allowed"), rule=answer.get("rule"), reason=answer.get("reason"))
    except ValueError:
        raise _unavailable("policy-evaluate", "answer of another shape") from None


def rotate_key(app: App, body: KeyRotationBody) -> KeyRotated:
    """Replace the app's policy key by `body.publicKey`, which the current key signed."""
    try:
        signed.parse_public_key(body.publicKey)
    except signed.PolicyKeyError as exc:
        raise bad_request(
            INVALID_POLICY_KEY, exc.message, errors=[{"field": "publicKey", "message": exc.message, "type": "key"}]
        ) from None
    _signature_bytes(body.signature)
    answer = _ask("policy-key-rotate", {"appId": app.appId, "publicKey": body.publicKey, "signature": body.signature})
    key_id, sequence = answer.get("keyId"), answer.get("sequence")
    if not isinstance(key_id, str) or not isinstance(sequence, int):
        raise _unavailable("policy-key-rotate", "answer without keyId or sequence")
    logger.info("policy key rotated", extra={"appId": app.appId, "keyId": key_id, "sequence": sequence})
    return KeyRotated(keyId=key_id, sequence=sequence)


def _payload(body: EvaluateBody) -> Signable:
    if body.transaction is not None:
        return digests.transaction(_transaction(body.transaction))
    if body.message is not None:
        return digests.personal_message(_message_bytes(body.message, body.encoding))
    if body.authorization is not None:
        wanted = body.authorization
        chain_id = _chain_id(wanted.network, "authorization.network") if wanted.chainId is None else int(wanted.chainId)
        return digests.authorization(chain_id, wanted.contractAddress, wanted.nonce)
    assert body.typedData is not None
    try:
        typed_data.hashes(body.typedData)  # the wallet's own validation and codes: what it would refuse to sign
    except typed_data.TypedDataError as exc:
        raise bad_request(
            exc.code, exc.message, errors=[{"field": exc.field, "message": exc.message[:300], "type": "typed_data"}]
        ) from None
    return digests.typed_data(body.typedData)


def _chain_id(name: str | None, field: str) -> int:
    network = registry().by_name(name or "")
    if network is None:
        reason = "not a configured network"
        raise bad_request(
            UNKNOWN_NETWORK,
            f"Unknown network {(name or '')[:40]!r}",
            errors=[{"field": field, "message": reason, "type": "unknown_network"}],
        )
    return network.chainId


def _transaction(tx: TransactionToEvaluate) -> UnsignedTx:
    """The transaction the engine reads; nonce, gas and fees are not read by any rule, so they are zero."""
    return UnsignedTx(
        chain_id=_chain_id(tx.network, "transaction.network"),
        nonce=0,
        to=tx.to,
        value=int(tx.value),
        data=bytes.fromhex(tx.data[2:]),
        gas=0,
        max_fee=0,
        max_priority_fee=0,
    )


def _message_bytes(message: str, encoding: str) -> bytes:
    """As the wallet's sign-message route reads `message`: text as UTF-8, or 0x hex; at most MAX_MESSAGE_BYTES."""
    if encoding == "hex":
        if len(message) > 2 + 2 * MAX_MESSAGE_BYTES:
            raise _message_error(MESSAGE_TOO_LARGE, f"message is over {MAX_MESSAGE_BYTES} bytes")
        if not _HEX_BYTES.fullmatch(message):
            raise _message_error(INVALID_MESSAGE, "with encoding hex, message must be 0x-prefixed hex bytes")
        return bytes.fromhex(message[2:])
    try:
        data = message.encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate: no UTF-8 bytes to sign
        raise _message_error(INVALID_MESSAGE, "message is not valid Unicode text") from None
    if len(data) > MAX_MESSAGE_BYTES:
        raise _message_error(MESSAGE_TOO_LARGE, f"message is over {MAX_MESSAGE_BYTES} bytes")
    return data


def _wallet_of_client(app: App, address: str) -> str:
    """The id of the wallet at `address` when it is a wallet of the app's client; 404 otherwise (another client's
    wallet is not found either: clients never learn about each other's wallets)."""
    wallet = wallets.at_address(address)
    if wallet is None or wallet.clientId != app.clientId:
        raise not_found(WALLET_NOT_FOUND, "No wallet of this client has this address")
    return wallet.walletId


def _signature_bytes(text: str) -> bytes:
    """A signature must at least be base64 of 64 bytes; anything else cannot verify, and is refused as such."""
    try:
        raw = base64.b64decode(text, validate=True) if text.isascii() else b""
    except (binascii.Error, ValueError):
        raw = b""
    if len(raw) != SIGNATURE_BYTES:
        raise forbidden(POLICY_SIGNATURE_INVALID, "signature is not the base64 of a 64-byte Ed25519 signature")
    return raw


def _ask(action: str, request: dict[str, Any]) -> dict[str, Any]:
    """The cosigner's answer to `action`, when `ok`; its refusal as an ApiError; 503 when there is no answer."""
    try:
        answer = mpc.cosigner_action({"action": action, **request}, deadline.timeout_s(CALL_TIMEOUT_S, "the cosigner"))
    except mpc.MpcRunError:
        raise _unavailable(action, "unreachable") from None
    if not isinstance(answer, dict):
        raise _unavailable(action, "answer of another shape")
    if answer.get("ok") is True:
        return answer
    code = answer.get("code")
    status = _REFUSALS.get(code) if isinstance(code, str) else None
    if code is None or status is None:
        raise _unavailable(action, f"refused with {str(code)[:40]}")
    logger.info("cosigner refused a policy request", extra={"action": action, "code": code})
    if code in (INVALID_POLICY, POLICY_TOO_LARGE):
        field, message = answer.get("field"), answer.get("message")
        raise _document_error(
            code, field if isinstance(field, str) else "policy", message if isinstance(message, str) else "refused"
        )
    current = answer.get("currentVersion")
    details = {"currentVersion": current} if code == POLICY_VERSION_STALE and isinstance(current, int) else {}
    raise ApiError(status, code, _MESSAGES[code], **details)


def _document_error(code: str, field: str, message: str) -> ApiError:
    """400 naming the document's field (`data.field`, dotted inside the document; `policy` for the whole)."""
    reason = message[:300]
    return bad_request(
        code,
        f"{_MESSAGES[code]}: {field[:200]}: {reason}",
        field=field[:200],
        errors=[{"field": f"policy.{field}"[:200] if field != "policy" else "policy", "message": reason, "type": code}],
    )


def _message_error(code: str, reason: str) -> ApiError:
    return bad_request(code, reason, errors=[{"field": "message", "message": reason, "type": code.lower()}])


def _unavailable(action: str, why: str) -> ApiError:
    logger.warning("cosigner gave no usable policy answer", extra={"action": action, "reason": why})
    return ApiError(503, SIGNER_UNAVAILABLE, "The cosigner could not answer; nothing was changed, retry")
