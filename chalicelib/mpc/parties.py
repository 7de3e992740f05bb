"""The cosigner (party 1) and user-party (party 2) handlers, and their request shape.

Each runs in its own Lambda function (`functions.py`) or, locally, in a thread of
the API process (`remote.py`); either way it gets a JSON request, joins the run
through the mailbox with the only share it can open, and answers JSON. Refusals
come back as `{"ok": false, "code": ...}`; only bugs raise.

A signing request (full or a presignature's online step) carries the `payload` to sign (evm/digests.py) with
its `digest`: the party hashes the payload itself and signs nothing when the digest is not the payload's, or
there is no payload (DIGEST_MISMATCH, BAD_PARTY_REQUEST), before it touches a share.

A keygen request may ask for an `hd` key (one with a chain code, whose non-hardened child keys can sign); the cosigner
makes one only under a policy that never presigns. A full signing request may carry a `derivation` path: the party
signs with that child key of the wallet's key (the cosigner only when the key's policy `derives`, and its check sees
the path); no other request carries one, so a derived key never meets a presignature.

The cosigner also answers the actions domains register (cosigner_checks.register_action): a request whose `action` is
one of them goes to its handler, before any MPC request shape is checked. The user party serves none.

A signing policy's refusal is `POLICY_DENIED` with the deciding `rule` and its `reason` (a rule of a policy
document refused), or `POLICY_REFUSED` with a `reason` (a request the cosigner does not serve at all).
"""

from __future__ import annotations

import base64
from collections.abc import Mapping
from typing import Annotated, Any, Literal

from pydantic import ConfigDict, Field, ValidationError

from chalicelib.evm.digests import Signable
from chalicelib.mpc import aux_pool, cosigner_checks, presignatures, shares
from chalicelib.mpc.mailbox import Mailbox, RunFailedError, drive
from chalicelib.mpc.payloads import digest_of
from chalicelib.platform import aws, clock, unit_of_work
from chalicelib.platform.invocation import running_as
from chalicelib.platform.logging import logger
from chalicelib.platform.settings import load_settings
from chalicelib.platform.unit_of_work import Plan
from chalicelib.platform.wire import WireModel

HEX32 = r"^[0-9a-f]{32}$"
PRESIGNATURES_OFF = "NO_PRESIGNATURES"  # a party code, never an API error
PRESIGN_BUDGET_SPENT = "PRESIGN_BUDGET_SPENT"  # a party code: the key's budget scope made its hour's presignatures
HARDENED = 2**31  # BIP32: indices from here on are hardened, which a threshold key cannot derive
MAX_DERIVATION_DEPTH = 255  # BIP32 keeps a key's depth in one byte
ChildIndex = Annotated[int, Field(strict=True, ge=0, lt=HARDENED)]


class PartyRequest(WireModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    action: Literal["keygen", "import", "sign", "presign", "partial"]
    runId: str = Field(pattern=HEX32)  # partial: the presignature's id
    walletId: str = Field(pattern=HEX32)
    peers: tuple[int, ...] = Field(min_length=1, max_length=2)
    auxId: str | None = Field(None, pattern=HEX32)
    coreShare: str | None = None  # import: this party's core share from the trusted-dealer split (base64)
    digest: str | None = Field(None, pattern=r"^[0-9a-f]{64}$")
    payload: Signable | None = None  # sign, partial: what `digest` is the hash of; the party hashes it itself
    signers: tuple[int, int] | None = None
    secret0: str | None = None  # user party, signing: the user's secret0
    policy: dict[str, Any] | None = None  # cosigner, signing with a governed key: its policy's context (policies.py)
    keyPolicy: cosigner_checks.KeyPolicy | None = None  # keygen or import of a governed key: the cosigner marks it
    hd: bool = Field(False, strict=True)  # keygen: the key gets a chain code (child keys; never presignatures)
    # sign: the non-hardened path of the child key to sign with (None: the key itself)
    derivation: tuple[ChildIndex, ...] | None = Field(None, max_length=MAX_DERIVATION_DEPTH)


def execution_id(action: str, wallet_id: str, run_id: str) -> bytes:
    """Unique per run and the same for all its parties (cggmp21 "Execution ID")."""
    return f"dompet:{action}:{wallet_id}:{run_id}".encode()


def cosigner(event: dict[str, Any]) -> dict[str, Any]:
    with running_as("cosigner"):
        handler = cosigner_checks.action(event.get("action")) if isinstance(event, dict) else None
        if handler is not None:
            return handler(event)
        return _join(shares.COSIGNER, event)


def user_party(event: dict[str, Any]) -> dict[str, Any]:
    with running_as("user_party"):
        return _join(shares.USER, event)


def _join(party: int, event: dict[str, Any]) -> dict[str, Any]:
    try:
        request = PartyRequest.model_validate(event)
    except ValidationError:
        return {"ok": False, "code": "BAD_PARTY_REQUEST"}
    if (request.hd and request.action != "keygen") or (request.derivation is not None and request.action != "sign"):
        return {"ok": False, "code": "BAD_PARTY_REQUEST"}  # a derived key signs in full runs only
    try:
        if request.action == "sign":
            return _sign(party, request)
        if request.action in ("presign", "partial"):
            if party != shares.COSIGNER:  # presignatures belong to the send pair (A, B) only
                return {"ok": False, "code": "BAD_PARTY_REQUEST"}
            return _presign(request) if request.action == "presign" else _partial(request)
        return _make_share(party, request)
    except RunFailedError as exc:
        return {"ok": False, "code": "RUN_FAILED", "reason": exc.reason}
    except shares.Secret0Error:
        return {"ok": False, "code": "SECRET0_REJECTED"}


def _make_share(party: int, request: PartyRequest) -> dict[str, Any]:
    import dompet_mpc as mpc

    if request.auxId is None:
        return {"ok": False, "code": "BAD_PARTY_REQUEST"}
    if party == shares.COSIGNER:
        if request.keyPolicy is None:  # every new key is governed: an ungoverned one would sign anything
            return _refused(request.walletId, cosigner_checks.PolicyRefusedError("a new key needs a signing policy"))
        try:  # before the run: a key this cosigner could not govern is never made
            cosigner_checks.admit_key(request.keyPolicy.name, request.hd)
        except cosigner_checks.PolicyRefusedError as exc:
            return _refused(request.walletId, exc)
    if request.action == "keygen":
        session = mpc.keygen_session(execution_id("keygen", request.walletId, request.runId), party, hd=request.hd)
        core = _run(party, request, session)
    else:
        if request.coreShare is None:
            return {"ok": False, "code": "BAD_PARTY_REQUEST"}
        try:
            core = base64.b64decode(request.coreShare, validate=True)
            if mpc.share_info(core)["party_index"] != party:
                return {"ok": False, "code": "BAD_PARTY_REQUEST"}
        except (ValueError, mpc.MpcError):  # binascii.Error is a ValueError
            return {"ok": False, "code": "BAD_PARTY_REQUEST"}
    key_share = mpc.complete_key_share(core, aux_pool.open_part(request.auxId, party))
    info = mpc.share_info(key_share)
    answer: dict[str, Any] = {"ok": True, "address": info["address"]}
    if info["chain_code"] is not None:
        answer["chainCode"] = info["chain_code"].hex()
    if party == shares.USER:
        policy = request.keyPolicy.name if request.keyPolicy else None
        recovery_for = None if policy is None or cosigner_checks.user_signs(policy) else policy
        answer["secret0"] = shares.seal_secret0(request.walletId, key_share, recovery_for=recovery_for)
    else:  # share B only with its mark and the policy's record of the key, all or nothing
        assert request.keyPolicy is not None  # refused before the run
        key = cosigner_checks.NewKey(
            request.walletId,
            info["address"],
            request.keyPolicy.context,
            public_key=compressed_key(info["public_key"]),
            chain_code=info["chain_code"],
        )
        try:
            marks = cosigner_checks.key_items(request.keyPolicy.name, key)
        except cosigner_checks.PolicyRefusedError as exc:
            return _refused(request.walletId, exc)
        unit_of_work.commit(Plan(items=[shares.share_item(request.walletId, party, key_share), *marks]))
    return answer


def compressed_key(public_key: bytes) -> bytes:
    """A SEC1 public key (33 or 65 bytes) in its compressed form (33 bytes)."""
    from eth_keys.datatypes import PublicKey

    if len(public_key) == 33:
        return public_key
    return bytes(PublicKey(public_key[1:]).to_compressed_bytes())


def _shown(request: PartyRequest) -> bytes | dict[str, Any]:
    """The digest of the payload as this party computes it, when it is the request's digest; else the refusal."""
    if request.digest is None or request.payload is None:
        return {"ok": False, "code": "BAD_PARTY_REQUEST"}
    try:
        digest = digest_of(request.payload)
    except ValueError:  # TypedDataError too: a malformed payload hashes to nothing
        return {"ok": False, "code": "BAD_PARTY_REQUEST"}
    if digest.hex() != request.digest:
        logger.warning(
            "digest is not the payload's", extra={"walletId": request.walletId, "kind": request.payload.kind}
        )
        return {"ok": False, "code": "DIGEST_MISMATCH"}
    return digest


def _sign(party: int, request: PartyRequest) -> dict[str, Any]:
    import dompet_mpc as mpc

    if request.signers is None or party not in request.signers:
        return {"ok": False, "code": "BAD_PARTY_REQUEST"}
    digest = _shown(request)
    if isinstance(digest, dict):
        return digest
    assert request.payload is not None
    if party == shares.USER:
        if request.secret0 is None:
            return {"ok": False, "code": "BAD_PARTY_REQUEST"}
        wallet_id, key_share = shares.open_secret0(request.secret0)
        if wallet_id != request.walletId:
            return {"ok": False, "code": "SECRET0_REJECTED"}
    else:
        if party == shares.COSIGNER:
            try:  # a governed key signs only what its policy allows, as this party reads the records
                cosigner_checks.authorize(
                    request.walletId, request.payload, digest, request.policy, derivation=request.derivation
                )
            except cosigner_checks.PolicyRefusedError as exc:
                return _refused(request.walletId, exc)
        key_share = shares.load_share(request.walletId, party)
    eid = execution_id("sign", request.walletId, request.runId)
    path = None if request.derivation is None else list(request.derivation)
    try:
        session = mpc.signing_session(eid, key_share, list(request.signers), digest, derivation_path=path)
    except mpc.InvalidInputError:
        if path is None:
            raise
        logger.warning("derivation path for a key without a chain code", extra={"walletId": request.walletId})
        return {"ok": False, "code": "BAD_PARTY_REQUEST"}
    del key_share
    _run(party, request, session)
    return {"ok": True}


def _presign(request: PartyRequest) -> dict[str, Any]:
    """The cosigner's half of a new presignature, kept in its own store."""
    import dompet_mpc as mpc

    if request.signers != (shares.SIGNER, shares.COSIGNER):
        return {"ok": False, "code": "BAD_PARTY_REQUEST"}  # presignatures serve the send pair only
    governed = cosigner_checks.governance(request.walletId)
    if governed is None or not _presigns(governed):
        return _no_presignatures()
    budget = cosigner_checks.registered(governed.policy).presign_budget
    scope = budget(request.walletId) if budget is not None else None
    if scope is not None and not presignatures.take_budget(scope):
        logger.info("presignature budget spent", extra={"walletId": request.walletId, "scope": scope})
        return {"ok": False, "code": PRESIGN_BUDGET_SPENT, "reason": "this key's presignature budget is spent"}
    key_share = shares.load_share(request.walletId, shares.COSIGNER)
    session = mpc.presign_session(execution_id("presign", request.walletId, request.runId), key_share, request.signers)
    del key_share
    share = _run(shares.COSIGNER, request, session)
    presignature_id = mpc.presignature_info(share)["presignature_id"].hex()
    presignatures.store(shares.COSIGNER, request.walletId, presignature_id, share)
    return {"ok": True, "presignatureId": presignature_id}


def _partial(request: PartyRequest) -> dict[str, Any]:
    """The cosigner's partial signature of the payload's digest from its share of presignature `runId`, which it
    consumes first, on its own authority: a share that is not `ready` here (used for any digest, or unknown) signs
    nothing, and one past its `expiresAt` is burned unused (DynamoDB's TTL deletes it late) and signs nothing
    either; party A signs in full then, as for a missing one. The digest is checked against the payload, and a
    governed key's policy (one that allows presignatures) decides with party A's context, exactly as on the full
    path, before. A digest that is not the payload's, or a policy document's decision (POLICY_DENIED), leaves the
    share ready; a refusal without a rule (POLICY_REFUSED: a forged withdrawal, a limit the cosigner counts)
    consumes it, so the presignature is burned on both sides."""
    import dompet_mpc as mpc

    if request.signers != (shares.SIGNER, shares.COSIGNER):
        return {"ok": False, "code": "BAD_PARTY_REQUEST"}
    known = cosigner_checks.known_governance(request.walletId)
    if known is not None and not _presigns(known):  # such keys sign only in full, checked
        return _no_presignatures()
    digest = _shown(request)
    if isinstance(digest, dict):
        return digest
    assert request.payload is not None
    ahead = cosigner_checks.prefetch_keys(known, request.walletId, request.payload, digest) if known else []
    mark, ready, prefetched = _online_reads(request.walletId, request.runId, ahead)
    if ready is not None and presignatures.expired(ready):  # before the policy: nothing is counted for it
        presignatures.burn(shares.COSIGNER, request.walletId, ready)
        logger.warning(
            "expired presignature burned", extra={"walletId": request.walletId, "presignatureId": request.runId}
        )
        return {"ok": False, "code": "PRESIGNATURE_UNAVAILABLE"}
    governed = cosigner_checks.governance_in(request.walletId, mark)
    if governed is not None:
        if not _presigns(governed):
            return _no_presignatures()
        try:  # before the share is consumed: a policy document's decision burns nothing
            cosigner_checks.authorize(
                request.walletId,
                request.payload,
                digest,
                request.policy,
                governed,
                prefetched if governed == known else None,
            )
        except cosigner_checks.PolicyRefusedError as exc:
            if exc.rule is None:  # a request no honest party A makes: the presignature it named is retired
                presignatures.consume_read(shares.COSIGNER, request.walletId, ready, digest)
            return _refused(request.walletId, exc)
    share = presignatures.consume_read(shares.COSIGNER, request.walletId, ready, digest)
    if share is None:
        return {"ok": False, "code": "PRESIGNATURE_UNAVAILABLE"}
    partial = mpc.issue_partial_signature(share, digest)
    del share
    return {"ok": True, "partial": base64.b64encode(partial).decode()}


def _presigns(governed: cosigner_checks.Governance | None) -> bool:
    """May a key under `governed` use presignatures (only when its policy is registered here and allows them; a key
    with no mark never does)?"""
    if governed is None:
        return False
    try:
        return cosigner_checks.registered(governed.policy).presignatures
    except cosigner_checks.PolicyRefusedError:
        return False


def _online_reads(
    wallet_id: str, presignature_id: str, ahead: list[Mapping[str, str]]
) -> tuple[dict[str, Any] | None, dict[str, Any] | None, dict[tuple[str, str], Mapping[str, Any] | None]]:
    """The cosigner's own reads for an online step, in ONE consistent BatchGetItem: its mark of the key
    (policies.py), its ready share of the presignature (None each when absent; expired or not: the caller checks)
    and the items `ahead` that the key's policy will read (by (pk, sk), None when absent). Reading consumes
    nothing."""
    mark_key = cosigner_checks.mark_key(wallet_id)
    ready_key = presignatures.ready_key(wallet_id, presignature_id)
    found = aws.batch_get_tables(
        {
            cosigner_checks.COSIGNER_POLICY_TABLE: [mark_key, *(dict(key) for key in ahead)],
            presignatures.TABLE[shares.COSIGNER]: [ready_key],
        }
    )
    own = {(str(item["pk"]), str(item["sk"])): item for item in found[cosigner_checks.COSIGNER_POLICY_TABLE]}
    readies = found[presignatures.TABLE[shares.COSIGNER]]
    prefetched: dict[tuple[str, str], Mapping[str, Any] | None] = {
        (key["pk"], key["sk"]): own.get((key["pk"], key["sk"])) for key in ahead
    }
    return own.get((mark_key["pk"], mark_key["sk"])), (readies[0] if readies else None), prefetched


def _refused(wallet_id: str, refusal: cosigner_checks.PolicyRefusedError) -> dict[str, Any]:
    logger.warning(
        "cosigner policy refused", extra={"walletId": wallet_id, "reason": refusal.reason, "rule": refusal.rule}
    )
    if refusal.rule is not None:
        return {"ok": False, "code": "POLICY_DENIED", "rule": refusal.rule, "reason": refusal.reason}
    return {"ok": False, "code": "POLICY_REFUSED", "reason": refusal.reason}


def _no_presignatures() -> dict[str, Any]:
    """Not a refusal of what is signed: party A signs the same payload in full instead."""
    return {"ok": False, "code": PRESIGNATURES_OFF, "reason": "this key's signing policy does not use presignatures"}


def _run(party: int, request: PartyRequest, session: Any) -> bytes:
    deadline = clock.monotonic() + load_settings().mpc_session_timeout_s
    mailbox = Mailbox(request.runId, party, request.peers)
    mailbox.open()
    try:
        return drive(session, mailbox, deadline)
    except RunFailedError:
        logger.warning("party run failed", extra={"party": party, "action": request.action, "runId": request.runId})
        raise
    finally:
        mailbox.close()
