"""The cosigner's side of signing policies: the `wallets` signing policy it enforces on every signature of a user's
MPC wallet, and the actions that set and read the documents (registered with mpc/cosigner_checks.py by wiring.wire()).

The `wallets` policy (`WALLET_POLICY`):

* at the key's generation or import (`on_key`), party A names the wallet's client (`{"clientId": ...}`); the
  cosigner checks that the client exists in `tenancy` (which only the operator writes) and records it with share B
  (`WALLETCLIENT#<walletId>`, store.py). Nothing the API function says later changes a wallet's client;
* for every signature, full or a presignature's online step (before the cosigner consumes its share), it reads the
  client's app policies (one item, never cached) and evaluates each with the engine on what it was shown and
  hashed itself (facts.py); every one must allow (the first refusal wins: `POLICY_DENIED` with the rule's path);
* every transaction it allows, and every typed-data permit (an allowance is spending: facts.py), is counted
  (usage.py) in ONE conditional transaction with its digest's COUNTED mark, before the share is released, whether
  or not a 24 h limit is in force yet (a limit set later sees the day before it): ten concurrent signatures against
  a limit of seven give exactly seven (each lost race reads the window again and decides again); the same digest
  counts once;
* every transaction it counts leaves a nonce mark (usage.py): this payment (to, value, data) at this nonce on this
  chain. A transaction whose payment is marked at its nonce is a replacement (the same payment re-priced): decided
  by the documents as the payment it replaces, counted once (nothing written), its fees within the ceiling (the
  network's `maxFeePerGasCeiling`, else 10 times the first signature's fee cap; else rule `replacement`). A
  different payment at a marked nonce is a new transaction like any other;
* a no-op, a self-send of 0 with no data at a nonce no higher than the wallet's highest marked nonce on that chain
  and at most NO_OP_WINDOW below it, with fees within the ceiling (of that highest mark), is a cancel or a gap
  fill: it moves nothing, so it is allowed without the documents and counted in no window; its nonce mark is
  written (its own re-pricing is a replacement). Any other self-send is an ordinary transaction;
* a client none of whose apps has a policy signs as before (its transactions still counted).

Its keys use presignatures (the check runs in the online step) and share C signs for its user as any wallet's: the
user's own secret0 with share A never reaches the cosigner.

Actions (answers `{"ok": true, ...}` or `{"ok": false, "code": ...}`; the app id in a request is only a claim):
`policy-set` stores a document only if the app's registered key signed it for this app (RFC 8785 canonical JSON of
`{"appId", "policy"}`) and its version is above the stored one; `policy-get`; `policy-evaluate` (nothing signed or
counted); `policy-key-rotate`, signed by the current key. `register_policy_key` (store.py) is the operator's.
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from pydantic import ConfigDict, Field, ValidationError

from chalicelib.evm.digests import Signable
from chalicelib.evm.transactions import UnsignedTx
from chalicelib.mpc import cosigner_checks
from chalicelib.mpc.cosigner_checks import NewKey, PolicyRefusedError, SigningRequest
from chalicelib.platform import aws, clock, unit_of_work
from chalicelib.platform.clock import iso_now
from chalicelib.platform.logging import logger
from chalicelib.platform.networks import registry
from chalicelib.platform.unit_of_work import Plan
from chalicelib.platform.wire import WireModel
from chalicelib.policies import signed, store, usage
from chalicelib.policies.document import INVALID_POLICY, MAX_POLICY_BYTES, POLICY_TOO_LARGE, PolicyDocumentError
from chalicelib.policies.document import PolicyDocument as Document
from chalicelib.policies.engine import Decision, Usage, any_chain_refusal, evaluate
from chalicelib.policies.facts import AuthorizationFacts, Facts, FactsError, TransactionFacts, TypedDataFacts, facts_of
from chalicelib.policies.store import register_policy_key
from chalicelib.tenancy import store as tenancy
from chalicelib.wallets.governance import WALLET_POLICY_NAME

__all__ = ["ACTIONS", "WALLET_POLICY", "WALLET_POLICY_NAME", "register_policy_key"]

NO_POLICY_KEY = "NO_POLICY_KEY"
POLICY_SIGNATURE_INVALID = "POLICY_SIGNATURE_INVALID"
POLICY_VERSION_STALE = "POLICY_VERSION_STALE"
INVALID_PAYLOAD = "INVALID_PAYLOAD"
WALLET_NOT_FOUND = "WALLET_NOT_FOUND"
BAD_REQUEST = "BAD_PARTY_REQUEST"
BUSY = "POLICIES_BUSY"  # the API answers it as any other cosigner trouble: 503, retry
COUNT_ATTEMPTS = 24  # a window's concurrent signers each lose at most one race per winner
REPLACEMENT_RULE = "replacement"  # the rule a replacement's fees above the ceiling are refused by
REPLACEMENT_FEE_FACTOR = 10  # without a network ceiling: times the first signature's fee cap
# A no-op's nonce is at most this far below the highest the wallet signed: gaps and cancels are recent, and an
# ordinary transaction at a far nonce opens no unbounded range of uncounted no-ops.
NO_OP_WINDOW = 64
_ID = r"^[A-Za-z0-9_-]{1,64}$"
_WALLET_ID = r"^[0-9a-f]{32}$"
NO_POLICY_REASON = "No signing policy is set for this app."


# --- the `wallets` signing policy ----------------------------------------------------------------------------


def on_key(key: NewKey) -> list[aws.TxItem]:
    """The wallet's client, recorded with share B: only a client that exists."""
    client_id = key.context.get("clientId")
    if not isinstance(client_id, str) or not client_id:
        raise PolicyRefusedError("a wallet key needs its client")
    if tenancy.get_client(client_id) is None:
        raise PolicyRefusedError(f"no client {client_id!r}")
    return [store.wallet_client_item(key.wallet_id, client_id)]


def check(request: SigningRequest) -> None:
    """Every policy of the wallet's client allows the payload (raises PolicyRefusedError); a transaction or permit
    allowed is counted before this returns."""
    client_id = store.wallet_client(request.wallet_id, request.prefetched)
    if client_id is None:
        raise PolicyRefusedError("the wallet's client was not recorded at its key generation")
    documents = [p.document for p in store.client_policies(client_id, request.prefetched)]
    try:
        facts = facts_of(request.payload)
    except FactsError:
        if not documents:
            return  # no app of the client has a policy: as before
        raise PolicyRefusedError("the cosigner cannot read this payload") from None
    if isinstance(facts, TransactionFacts):
        # The wallet's own authorizations in a set-code transaction are its delegations, decided as such (however
        # they were signed); another account's are that account's, the wallet only pays their gas.
        for listed in facts.authorizations:
            if listed.authority == request.address.lower():
                _decide(documents, listed, Usage())
    spending = _spending(facts)
    if spending is None:
        _decide(documents, facts, Usage())
        return
    # Every transaction and permit counts, policy or not: a 24 h limit set later already sees the day before it.
    _count(request, documents, spending)


def _spending(facts: Facts) -> TransactionFacts | TypedDataFacts | None:
    """The facts that count in the wallet's 24 h window: a transaction's, or a typed-data permit's."""
    if isinstance(facts, TransactionFacts) or (isinstance(facts, TypedDataFacts) and facts.permit is not None):
        return facts
    return None


def prefetch(wallet_id: str, payload: Signable, digest: bytes) -> list[dict[str, str]]:
    """What `check` reads by key, in the online step's one batch: the client's policies (the wallet's client once
    this process knows it; until then the client's mark, and the policies in a read of their own) and, for a
    transaction or typed data (which may be a permit), its window and the digest's COUNTED mark; for a transaction,
    its nonce mark too."""
    client_id = store.known_wallet_client(wallet_id)
    keys = [store.wallet_client_key(wallet_id)] if client_id is None else [store.client_policies_key(client_id)]
    if payload.kind in ("transaction", "typed_data"):
        keys += [usage.usage_key(wallet_id), usage.counted_key(wallet_id, digest)]
    payment = _payment(payload) if payload.kind == "transaction" else None
    if payment is not None:
        keys.append(usage.nonce_key(wallet_id, payment))
    return keys


def presign_budget(wallet_id: str) -> str | None:
    """A wallet's presignatures count against its client's hourly budget (the client the cosigner recorded at the
    wallet's key generation; the few wallets without one, which sign nothing anyway, share one budget)."""
    client_id = store.wallet_client(wallet_id)
    return f"client:{client_id}" if client_id is not None else "client:unknown"


WALLET_POLICY = cosigner_checks.SigningPolicy(
    name=WALLET_POLICY_NAME,
    on_key=on_key,
    checks={"transaction": check, "personal_message": check, "typed_data": check, "authorization": check},
    presignatures=True,
    user_signs=True,
    prefetch=prefetch,
    presign_budget=presign_budget,
)


def _chain_ids() -> dict[str, int]:
    return {network.name: network.chainId for network in registry().networks}


def decide(documents: Sequence[Document], facts: Facts, spent: Usage) -> Decision:
    """Every document's decision, the first refusal winning; an allow names the last document's rule."""
    chain_ids = _chain_ids()
    decision = Decision(True, "default", NO_POLICY_REASON)
    if not documents and isinstance(facts, AuthorizationFacts):
        return any_chain_refusal(facts) or decision
    for document in documents:
        decision = evaluate(document, facts, spent, chain_ids)
        if not decision.allowed:
            return decision
    return decision


def _decide(documents: Sequence[Document], facts: Facts, spent: Usage) -> None:
    decision = decide(documents, facts, spent)
    if not decision.allowed:
        raise PolicyRefusedError(decision.reason, decision.rule)


def _count(request: SigningRequest, documents: Sequence[Document], facts: TransactionFacts | TypedDataFacts) -> None:
    """Decide against the window and count the transaction or permit in one conditional transaction (with its
    digest's COUNTED mark and a transaction's nonce mark); a lost race (another signature moved the window, or
    counted this digest or this payment at this nonce) reads and decides again. A digest counted already is decided
    without its own share and writes nothing; so is a replacement (`_replacement`). A no-op (`_no_op`) is allowed
    without the documents and writes only its nonce mark."""
    wallet_id, digest = request.wallet_id, request.digest
    window_key, counted_key = usage.usage_key(wallet_id), usage.counted_key(wallet_id, digest)
    payment = _payment(request.payload) if isinstance(facts, TransactionFacts) else None
    if isinstance(facts, TransactionFacts) and payment is None:
        raise PolicyRefusedError("a transaction's nonce is at most 2**64 - 1")
    nonce_key = usage.nonce_key(wallet_id, payment) if payment is not None else None
    keys = [window_key, counted_key, *([nonce_key] if nonce_key is not None else [])]
    self_send = isinstance(facts, TransactionFacts) and _moves_nothing(facts, request.address)
    # A set-code transaction whose call moves nothing and whose every authorization is the wallet's own does only
    # what those delegations do (decided in `check`); one that carries another account's is a transaction as any.
    delegates_only = (
        isinstance(facts, TransactionFacts)
        and bool(facts.authorizations)
        and all(listed.authority == request.address.lower() for listed in facts.authorizations)
        and _calls_nothing(facts, request.address)
    )
    ahead = request.prefetched
    first = ahead is not None and all(_key(key) in ahead for key in keys)

    def plan() -> Plan | None:
        nonlocal first
        if first:
            assert ahead is not None
            read = {_key(key): ahead[_key(key)] for key in keys}
            first = False
        else:
            read = {(str(i["pk"]), str(i["sk"])): i for i in aws.batch_get(store.TABLE, keys)}
        now = clock.epoch()
        window = usage.window_of(read.get(_key(window_key)))
        counted = usage.counted_of(read.get(_key(counted_key)))
        if payment is None or nonce_key is None:  # a permit
            _decide(documents, facts, usage.usage(window, now, counted))
            return None if counted is not None else _count_plan(wallet_id, digest, window, now, facts, None)
        mark = usage.nonce_mark_of(read.get(_key(nonce_key)), now)
        if counted is None and mark is not None:
            _replacement(payment, mark)
            if not (self_send or delegates_only):  # the documents decide it as the payment it replaces, counted once
                _decide(documents, facts, usage.usage(window, now, mark.share))
            return None
        if counted is None and self_send and _no_op(wallet_id, payment):
            share = usage.Counted(now // usage.BUCKET_S, {}, 0)
            return Plan(items=[usage.nonce_mark(wallet_id, payment, share, now)], replan_on=_REPLAN)
        if not delegates_only:
            _decide(documents, facts, usage.usage(window, now, counted))
        if counted is None:
            return _count_plan(wallet_id, digest, window, now, facts, payment)
        return None  # this signature is in the window already (its nonce mark written with its count)

    # Still busy after that many rounds: not a decision of the policy (no rule), the signer is unavailable; retry.
    unit_of_work.commit(
        plan, attempts=COUNT_ATTEMPTS, on_busy=lambda: PolicyRefusedError("the wallet's 24 h window kept moving")
    )


_REPLAN = frozenset({usage.USAGE_ITEM, usage.COUNTED_ITEM, usage.NONCE_ITEM})


def _count_plan(
    wallet_id: str,
    digest: bytes,
    window: usage.Window,
    now: int,
    facts: TransactionFacts | TypedDataFacts,
    payment: usage.Payment | None,
) -> Plan:
    return Plan(items=usage.writes(wallet_id, digest, window, now, facts, payment), replan_on=_REPLAN)


def _payment(payload: Signable) -> usage.Payment | None:
    """The transaction's payment at its nonce as the cosigner reads it (None for a nonce no chain takes)."""
    try:
        return usage.payment_of(UnsignedTx.from_wire(payload.transaction or {}))
    except ValueError:
        return None


def _moves_nothing(facts: TransactionFacts, address: str) -> bool:
    """A self-send of nothing: what a cancel or a gap fill signs (never a set-code transaction: it delegates)."""
    return _calls_nothing(facts, address) and not facts.authorizations


def _calls_nothing(facts: TransactionFacts, address: str) -> bool:
    return facts.value == 0 and not facts.has_data and facts.to is not None and facts.to == address.lower()


def _fee_ceiling(payment: usage.Payment, fee_cap: int) -> int:
    """The most a re-priced transaction may offer per gas: the network's ceiling, else 10 times `fee_cap` (the
    first signature's)."""
    network = registry().by_chain_id(payment.chain_id)
    if network is not None and network.maxFeePerGasCeiling is not None:
        return network.maxFeePerGasCeiling
    return REPLACEMENT_FEE_FACTOR * fee_cap


def _fees_bounded(payment: usage.Payment, fee_cap: int) -> bool:
    within = payment.fee_cap <= _fee_ceiling(payment, fee_cap)
    return within and (payment.priority_fee is None or payment.priority_fee <= payment.fee_cap)


def _replacement(payment: usage.Payment, mark: usage.NonceMark) -> None:
    """The payment at this nonce signed again with other fees: only within the ceiling."""
    if not _fees_bounded(payment, mark.fee_cap):
        ceiling = _fee_ceiling(payment, mark.fee_cap)
        raise PolicyRefusedError(
            f"A replacement of the transaction at nonce {payment.nonce} may offer at most {ceiling} wei per gas, "
            "with a priority fee no higher than its fee cap.",
            REPLACEMENT_RULE,
        )


def _no_op(wallet_id: str, payment: usage.Payment) -> bool:
    """A self-send of nothing at a nonce the wallet already signed up to (a cancel, or the fill of a gap below its
    highest signed nonce), with fees within the ceiling set by that highest nonce's first signature."""
    from boto3.dynamodb.conditions import Key

    found = aws.table(store.TABLE).query(
        KeyConditionExpression=Key("pk").eq(usage.nonces_pk(wallet_id, payment.chain_id)),
        ScanIndexForward=False,
        Limit=1,
        ConsistentRead=True,
    )["Items"]
    highest = usage.nonce_mark_of(found[0], clock.epoch()) if found else None
    return (
        highest is not None
        and highest.nonce - NO_OP_WINDOW <= payment.nonce <= highest.nonce
        and _fees_bounded(payment, highest.fee_cap)
    )


def _key(key: Mapping[str, str]) -> tuple[str, str]:
    return key["pk"], key["sk"]


# --- actions ---------------------------------------------------------------------------------------------------


class _Request(WireModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    action: str
    appId: str = Field(pattern=_ID)


class _SetRequest(_Request):
    policy: Any
    signature: str = Field(max_length=256)


class _EvaluateRequest(_Request):
    walletId: str | None = Field(None, pattern=_WALLET_ID)
    payload: dict[str, Any]


class _RotateRequest(_Request):
    publicKey: str = Field(max_length=256)
    signature: str = Field(max_length=256)


def _refusal(code: str, **details: Any) -> dict[str, Any]:
    return {"ok": False, "code": code, **details}


def _signature(text: str) -> bytes | None:
    try:
        return base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError):
        return None


def policy_set(event: dict[str, Any]) -> dict[str, Any]:
    """Store an app's signed document: its registered key signed the canonical JSON of `{"appId", "policy"}` with
    this app and the document exactly as sent, the document validates, and its version is above the stored one (no
    replay of an older, looser document, nor of another app's)."""
    try:
        request = _SetRequest.model_validate(event)
    except ValidationError:
        return _refusal(BAD_REQUEST)
    key = store.get_key(request.appId)
    if key is None:
        return _refusal(NO_POLICY_KEY, message="No policy key is registered for this app")
    try:
        text = signed.canonical(request.policy)
    except (ValueError, TypeError):
        return _refusal(INVALID_POLICY, field="policy", message="not a JSON document that RFC 8785 can canonicalize")
    if len(text) > MAX_POLICY_BYTES:
        return _refusal(POLICY_TOO_LARGE, field="policy", message=f"at most {MAX_POLICY_BYTES} bytes of JSON")
    signature = _signature(request.signature)
    # The signed bytes name the app: a key registered for several apps cannot carry a document across them.
    message = signed.policy_message(request.appId, request.policy)
    if signature is None or not signed.verify(key.raw, message, signature):
        logger.warning("policy signature refused", extra={"appId": request.appId, "keyId": key.key_id})
        return _refusal(
            POLICY_SIGNATURE_INVALID, message="The signature is not the policy key's over this document for this app"
        )
    try:
        document = Document.parse(request.policy)
    except PolicyDocumentError as exc:
        return _refusal(exc.code, field=exc.field, message=exc.message)
    set_at = iso_now()
    stored = store.StoredPolicy(request.appId, document.version, text.decode(), request.signature, key.key_id, set_at)
    try:
        store.put_policy(key.client_id, stored)
    except store.StaleVersionError as stale:
        return _refusal(
            POLICY_VERSION_STALE,
            currentVersion=stale.current,
            message=f"version {document.version} is not above the stored version {stale.current}",
        )
    except store.ClientPoliciesFullError:
        return _refusal(
            POLICY_TOO_LARGE, field="policy", message="the client's apps' documents together exceed what is stored"
        )
    except store.PoliciesBusyError:
        return _refusal(BUSY, message="Other apps of the client kept changing their policies; retry")
    logger.info("policy set", extra={"appId": request.appId, "version": document.version, "keyId": key.key_id})
    return {"ok": True, "version": document.version, "keyId": key.key_id, "setAt": set_at}


def policy_get(event: dict[str, Any]) -> dict[str, Any]:
    """The app's stored document as signed (null when none), its version, and its registered policy key's id."""
    try:
        request = _Request.model_validate(event)
    except ValidationError:
        return _refusal(BAD_REQUEST)
    client_id = store.app_client(request.appId)
    if client_id is None:
        return {"ok": True, "policy": None, "version": None, "keyId": None, "keySequence": None, "keyRegistered": False}
    wanted = [store.key_key(request.appId), store.client_policies_key(client_id)]
    found = {(str(i["pk"]), str(i["sk"])): i for i in aws.batch_get(store.TABLE, wanted)}
    key_item = found.get(_key(wanted[0]))
    read = {_key(wanted[1]): found.get(_key(wanted[1]))}
    stored = next((p for p in store.client_policies(client_id, read) if p.app_id == request.appId), None)
    return {
        "ok": True,
        "policy": stored.body if stored else None,
        "version": stored.version if stored else None,
        "keyId": str(key_item["keyId"]) if key_item else None,
        "keySequence": int(key_item["sequence"]) if key_item else None,
        "keyRegistered": key_item is not None,
    }


def policy_evaluate(event: dict[str, Any]) -> dict[str, Any]:
    """The app's document's decision on a payload (with the wallet's 24 h usage when a wallet of the app's client
    is named); nothing is signed or counted."""
    try:
        request = _EvaluateRequest.model_validate(event)
        payload = Signable.model_validate(request.payload)
        facts = facts_of(payload)
    except (ValidationError, FactsError) as exc:
        reason = str(exc) if isinstance(exc, FactsError) else "not a payload the cosigner can read"
        return _refusal(INVALID_PAYLOAD, reason=reason)
    client_id = store.app_client(request.appId)
    if client_id is None:
        return _refusal(BAD_REQUEST)
    spent = Usage()
    if request.walletId is not None:
        wallet_client = store.wallet_client(request.walletId)
        if wallet_client is not None and wallet_client != client_id:
            return _refusal(WALLET_NOT_FOUND)
        if wallet_client is not None and _spending(facts) is not None:
            item = aws.table(store.TABLE).get_item(Key=usage.usage_key(request.walletId), ConsistentRead=True)
            spent = usage.usage(usage.window_of(item.get("Item")), clock.epoch())
    stored = store.get_policy(client_id, request.appId)
    decision = decide([] if stored is None else [stored.document], facts, spent)
    return {"ok": True, "allowed": decision.allowed, "rule": decision.rule, "reason": decision.reason}


def policy_key_rotate(event: dict[str, Any]) -> dict[str, Any]:
    """Replace the app's policy key with `publicKey`: the current key signed the rotation, at the next sequence."""
    try:
        request = _RotateRequest.model_validate(event)
    except ValidationError:
        return _refusal(BAD_REQUEST)
    key = store.get_key(request.appId)
    if key is None:
        return _refusal(NO_POLICY_KEY, message="No policy key is registered for this app")
    try:
        new_key = signed.parse_public_key(request.publicKey)
    except signed.PolicyKeyError as exc:
        return _refusal(exc.code, field="publicKey", message=exc.message)
    sequence = key.sequence + 1
    message = signed.rotation_message(request.appId, request.publicKey, sequence)
    signature = _signature(request.signature)
    if signature is None or not signed.verify(key.raw, message, signature):
        logger.warning("policy key rotation refused", extra={"appId": request.appId, "keyId": key.key_id})
        return _refusal(POLICY_SIGNATURE_INVALID, message="The signature is not the current policy key's")
    item = {
        **store.key_key(request.appId),
        "appId": request.appId,
        "clientId": key.client_id,
        "publicKey": request.publicKey,
        "keyId": signed.key_id(new_key),
        "sequence": sequence,
        "registeredAt": iso_now(),
        "previousKeyId": key.key_id,
    }
    current = aws.Condition("#s = :s", names={"#s": "sequence"}, values={":s": key.sequence})
    try:
        aws.write(aws.put("policy-key", store.TABLE, item, current))
    except aws.ConditionFailedError:  # another rotation took this sequence: this signature is for a stale one
        return _refusal(POLICY_SIGNATURE_INVALID, message="The policy key changed meanwhile; sign again")
    logger.info("policy key rotated", extra={"appId": request.appId, "keyId": item["keyId"], "sequence": sequence})
    return {"ok": True, "keyId": item["keyId"], "sequence": sequence}


ACTIONS: dict[str, Callable[[dict[str, Any]], dict[str, Any]]] = {
    "policy-set": policy_set,
    "policy-get": policy_get,
    "policy-evaluate": policy_evaluate,
    "policy-key-rotate": policy_key_rotate,
}
