"""The API's side of the MPC service: party 0 (share A) and the runs it starts.

* `generate_key` runs 2-of-3 key generation with the cosigner and the user party (with `hd`, the key also gets a
  chain code: its non-hardened child keys can sign, in full runs only, and `derive_public_key` gives their public
  keys from the key's public facts);
* `import_key` splits an existing private key as a trusted dealer and hands each
  party its core share;
* `sign` signs a `Signable` (a transaction, a personal message, EIP-712 typed data: evm/digests.py; or a Bitcoin
  input: mpc/payloads.py) with share A and either the cosigner (share B) or, when the caller presents the user's
  `secret0`, the user party (share C), and writes an audit record either way. The other party is shown the payload,
  not a digest: it hashes it itself and refuses a digest that is not the payload's. With the cosigner it first tries
  the online step of a stocked presignature (milliseconds); an empty pool, or any failure of that step, falls back
  to the full signing run. A caller that records the signature (a wallet's list of message signatures) hands its
  `record` plan over: it is committed in ONE transaction with the signature's audit record, so a signature is
  recorded where the caller keeps it exactly when it is audited, in one write instead of two, and the plan's list
  counters are read while the cosigner works. With a `derivation` path it signs with that child key of an `hd` key,
  always in a full run (a derived key never meets a presignature: docs/mpc.md);
* `admit` tells a caller, before it takes anything for a signature (a send's nonce), whether one can be expected
  within its time: a ready presignature, or a full run whose turn in this process's run queue (at its running
  average of a full run's seconds) fits; else 503 SIGNER_BUSY with a Retry-After;
* `refill_presignatures` tops a wallet's presignature pool up with the cosigner;
* `cosigner_action` asks the cosigner one of the actions domains register with it (cosigner_checks.register_action).

A signing policy's decision against a signature (the cosigner answers `POLICY_DENIED`, on either path) ends the
request at once: no fallback to full signing, no refill; a presignature's share A taken for it is put back (the
cosigner consumed nothing, and share A's partial signature never left this function).

Failures are `MpcRunError`s with a stable code; `MpcRunError.api_error()` is their one answer to a caller.
"""

from __future__ import annotations

import base64
import math
import os
import secrets
import threading
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Future
from concurrent.futures import TimeoutError as FutureTimeout
from contextlib import contextmanager
from dataclasses import dataclass, replace
from typing import Any

from chalicelib.evm.digests import Signable
from chalicelib.evm.typed_data import domain_fields
from chalicelib.mpc import aux_pool, cosigner_checks, payloads, presignatures, remote, shares
from chalicelib.mpc.mailbox import Mailbox, RunFailedError, drive
from chalicelib.mpc.parties import (
    HARDENED,
    MAX_DERIVATION_DEPTH,
    PRESIGN_BUDGET_SPENT,
    compressed_key,
    execution_id,
)
from chalicelib.platform import aws, clock, unit_of_work
from chalicelib.platform.clock import iso_now
from chalicelib.platform.deadline import remaining_s as budget_left_s
from chalicelib.platform.errors import ApiError, RetryLaterError, bad_request
from chalicelib.platform.logging import log_failure, logger
from chalicelib.platform.pagination import counts_of
from chalicelib.platform.settings import load_settings
from chalicelib.platform.unit_of_work import Plan

# MPC runs are CPU-bound (≈ 1 s of proofs per party). Where many share a process (chalice local, tests,
# the in-process parties) they would all slow down together past their deadlines, so they queue here
# instead; on Lambda an API instance serves one request at a time and this never waits.
RUN_SLOTS = max(1, (os.cpu_count() or 2) // 2)
_RUN_SLOTS = threading.BoundedSemaphore(RUN_SLOTS)
RUN_QUEUE_WAIT_S = 120.0
FULL_RUN_S = 3.0  # a full signing run's seconds until this process has timed one
RUN_S_WEIGHT = 0.3  # of the latest full run in the running average
# Runs of this process waiting for a slot or in one, and its running average of a full signing run's seconds:
# what a send is told before it takes a nonce (`admission_s`). Counted per process: locally that is the whole
# stack; on Lambda an instance serves one request at a time and the queue is about empty.
_queue_lock = threading.Lock()
_queued = 0
_full_run_s = FULL_RUN_S
# Full runs admitted but not yet at a slot (between admission and the run: the nonce, the records), by thread, with
# when the admission lapses: counted as queued, so a burst admitted at once is not all told the queue is empty.
_admitted: dict[int, float] = {}
# Signatures admitted on a wallet's ready presignatures, by thread: the wallet and when the admission lapses. Each
# counts against the pool's hint until its signature has tried to take one, so a burst of concurrent requests is
# admitted on the pool only as far as the pool goes; the rest are judged as the full runs they will be.
_admitted_presigned: dict[int, tuple[str, float]] = {}

COSIGNER_FUNCTION = "cosigner"
USER_PARTY_FUNCTION = "user_party"
POLICY_REFUSED = "POLICY_REFUSED"
POLICY_DENIED = "POLICY_DENIED"
SIGNER_UNAVAILABLE = "SIGNER_UNAVAILABLE"
SIGNER_BUSY = "SIGNER_BUSY"
INVALID_PRIVATE_KEY = "INVALID_PRIVATE_KEY"
SIGNING_FAILED = "SIGNING_FAILED"
_TYPED_DATA_AUDIT = ("chainId", "verifyingContract", "primaryType")
ONLINE_STEP_TIMEOUT_S = 3.0  # the cosigner's partial signature: one invocation and a few milliseconds of work
RETRY_AFTER_S = 1.0  # a failed run may be retried at once; a busy queue says how long it needs
ACTION_TIMEOUT_S = 10.0  # a cosigner action: one invocation (maybe a cold start) and a few reads and writes


class MpcRunError(Exception):
    """A run could not produce a key or a signature (no wallet refers to anything it stored). POLICY_DENIED carries
    the deciding `rule` of the wallet's signing policy and its `reason`."""

    def __init__(
        self,
        code: str,
        message: str,
        rule: str | None = None,
        reason: str | None = None,
        retry_after_s: float = RETRY_AFTER_S,
    ) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.rule = rule
        self.reason = reason
        self.retry_after_s = retry_after_s

    def api_error(self) -> ApiError:
        """A private key that is not one is the caller's 400; a policy's decision a 403 POLICY_DENIED naming its rule;
        a full queue 503 SIGNER_BUSY; anything else is 503 SIGNER_UNAVAILABLE; both with a Retry-After."""
        if self.code == INVALID_PRIVATE_KEY:
            return bad_request(INVALID_PRIVATE_KEY, self.message)
        if self.code == POLICY_DENIED:
            return ApiError(403, POLICY_DENIED, self.message, rule=self.rule)
        if self.code == SIGNER_BUSY:
            return RetryLaterError(SIGNER_BUSY, self.message, self.retry_after_s)
        return RetryLaterError(SIGNER_UNAVAILABLE, self.message, self.retry_after_s)


def _denied(answer: dict[str, Any]) -> MpcRunError:
    reason = str(answer.get("reason") or "")
    return MpcRunError(
        POLICY_DENIED,
        f"The wallet's signing policy refused this: {reason}",
        rule=str(answer.get("rule") or ""),
        reason=reason,
    )


@dataclass(frozen=True)
class KeyMaterial:
    """A new key's public facts and `secret0`. `public_key` (compressed SEC1, 33 bytes) and, for an `hd` key, its
    `chain_code` (32 bytes; None otherwise) are public: with them a domain derives the key's child public keys
    (`derive_public_key`) without any share."""

    address: str
    secret0: str  # share C sealed for the user; no table stores it, only its hash
    public_key: bytes
    chain_code: bytes | None = None


@contextmanager
def _run_slot() -> Iterator[None]:
    """A run slot, waited for no longer than the request's budget allows."""
    global _queued
    left = budget_left_s()
    wait_s = RUN_QUEUE_WAIT_S if left is None else max(0.0, min(RUN_QUEUE_WAIT_S, left))
    with _queue_lock:
        _admitted.pop(threading.get_ident(), None)  # its admitted turn is now counted here
        _queued += 1
    try:
        if not _RUN_SLOTS.acquire(timeout=wait_s):
            raise MpcRunError(SIGNER_BUSY, "The signing service is busy; retry shortly")
        try:
            yield
        finally:
            _RUN_SLOTS.release()
    finally:
        with _queue_lock:
            _queued -= 1


def wait_estimate_s(queued: int, slots: int, run_s: float) -> float:
    """Seconds until a full run started now ends, behind `queued` runs waiting or running on `slots` slots."""
    return math.ceil((queued + 1) / max(1, slots)) * run_s


def admission_s(wallet_id: str, time_left_s: float | None, *, pooled: bool = True) -> float | None:
    """None when a signature of the wallet can be expected within `time_left_s` (None: no budget): a ready
    presignature (`pooled`: the signature may use one), or a full run whose turn and run fit; else the seconds
    after which asking again may be admitted."""
    if time_left_s is None or _presigned_likely(wallet_id, pooled, time_left_s, admit=False):
        return None
    return _full_run_admission(time_left_s, admit=False)


def admit(wallet_id: str, time_left_s: float | None, *, pooled: bool = True) -> None:
    """503 SIGNER_BUSY with a Retry-After when `admission_s` says the signature cannot come in time. An admitted
    full run counts as queued from now until it reaches a slot (or its time is up)."""
    if time_left_s is None or _presigned_likely(wallet_id, pooled, time_left_s, admit=True):
        return
    wait_s = _full_run_admission(time_left_s, admit=True)
    if wait_s is not None:
        raise RetryLaterError(SIGNER_BUSY, "The signing service is busy; retry after the time given", wait_s)


def _presigned_likely(wallet_id: str, pooled: bool, time_left_s: float, admit: bool) -> bool:
    """Whether the wallet's pool likely has a presignature for this signature: more ready than the signatures of
    this process already admitted on it (`admit`: this one is then counted too, until it tries to take one)."""
    if not (pooled and presignatures.pools_on()):
        return False
    ready = presignatures.ready_hint(wallet_id)
    now, me = clock.monotonic(), threading.get_ident()
    with _queue_lock:
        for thread, (_wallet, until) in list(_admitted_presigned.items()):
            if until <= now:
                del _admitted_presigned[thread]
        others = (wallet for thread, (wallet, _until) in _admitted_presigned.items() if thread != me)
        if ready <= sum(1 for wallet in others if wallet == wallet_id):
            return False
        if admit:
            _admitted_presigned[me] = (wallet_id, now + time_left_s)
    return True


def _presigned_admission_over() -> None:
    with _queue_lock:
        _admitted_presigned.pop(threading.get_ident(), None)


def _full_run_admission(time_left_s: float, admit: bool) -> float | None:
    now = clock.monotonic()
    me = threading.get_ident()
    with _queue_lock:
        for thread, until in list(_admitted.items()):
            if until <= now or thread == me:
                del _admitted[thread]
        needed = wait_estimate_s(_queued + len(_admitted), RUN_SLOTS, _full_run_s)
        if needed > time_left_s:
            return needed - max(0.0, time_left_s)
        if admit:
            _admitted[me] = now + time_left_s
    return None


def _done_without_run() -> None:
    with _queue_lock:
        _admitted.pop(threading.get_ident(), None)


def _timed_full_run(seconds: float) -> None:
    global _full_run_s
    with _queue_lock:
        _full_run_s += RUN_S_WEIGHT * (seconds - _full_run_s)


def generate_key(
    wallet_id: str, aux_id: str, key_policy: cosigner_checks.KeyPolicy | None = None, hd: bool = False
) -> KeyMaterial:
    """`key_policy`: a key governed by that signing policy (the cosigner marks it in its own table and signs only
    what the policy allows; share C is sealed for recovery only). POLICY_REFUSED when the cosigner refuses it.
    `hd`: the key gets a chain code (`KeyMaterial.chain_code`), so its non-hardened child keys can sign (`sign`'s
    `derivation`); it never presigns, and the cosigner makes it only under a policy without presignatures."""
    with _run_slot():
        return _generate_key(wallet_id, aux_id, key_policy, hd)


def _generate_key(wallet_id: str, aux_id: str, key_policy: cosigner_checks.KeyPolicy | None, hd: bool) -> KeyMaterial:
    import dompet_mpc as mpc

    run_id = secrets.token_hex(16)
    request: dict[str, Any] = {"action": "keygen", "runId": run_id, "walletId": wallet_id, "auxId": aux_id}
    if key_policy is not None:
        request["keyPolicy"] = key_policy.model_dump()
    if hd:
        request["hd"] = True
    calls = {
        COSIGNER_FUNCTION: remote.call(COSIGNER_FUNCTION, {**request, "peers": [0, 2]}),
        USER_PARTY_FUNCTION: remote.call(USER_PARTY_FUNCTION, {**request, "peers": [0, 1]}),
    }
    deadline = _deadline()
    session = mpc.keygen_session(execution_id("keygen", wallet_id, run_id), shares.SIGNER, hd=hd)
    core = _drive_party0(run_id, (1, 2), session, calls, deadline)
    key_share = mpc.complete_key_share(core, aux_pool.open_part(aux_id, shares.SIGNER))
    return _finish_key(wallet_id, key_share, _answers(calls, deadline))


def import_key(
    wallet_id: str, aux_id: str, private_key: bytearray, key_policy: cosigner_checks.KeyPolicy | None = None
) -> KeyMaterial:
    """Split `private_key` into three core shares (it is wiped here, whatever happens). `key_policy` as for
    `generate_key`."""
    import dompet_mpc as mpc

    try:
        cores = mpc.trusted_dealer_split(private_key)
    except mpc.InvalidInputError:
        raise MpcRunError(INVALID_PRIVATE_KEY, "Not a valid secp256k1 private key") from None
    finally:
        private_key[:] = bytes(len(private_key))
    deadline = _deadline()
    request: dict[str, Any] = {
        "action": "import",
        "runId": secrets.token_hex(16),
        "walletId": wallet_id,
        "auxId": aux_id,
    }
    if key_policy is not None:
        request["keyPolicy"] = key_policy.model_dump()
    calls = {
        name: remote.call(name, {**request, "peers": [0], "coreShare": base64.b64encode(cores[party]).decode()})
        for name, party in ((COSIGNER_FUNCTION, shares.COSIGNER), (USER_PARTY_FUNCTION, shares.USER))
    }
    key_share = mpc.complete_key_share(cores[shares.SIGNER], aux_pool.open_part(aux_id, shares.SIGNER))
    del cores
    return _finish_key(wallet_id, key_share, _answers(calls, deadline))


def sign(
    wallet_id: str,
    address: str,
    payload: Signable,
    caller: str,
    secret0: str | None = None,
    policy: dict[str, Any] | None = None,
    record: Plan | None = None,
    derivation: tuple[int, ...] | None = None,
) -> bytes:
    """65 bytes r || s || recovery id (low s) over `payloads.digest_of(payload)` that `ecrecover`s to `address`.

    ValueError (TypedDataError for typed data) before any run when the payload is malformed. The caller checks
    `secret0` against the wallet first; here it is only passed on to the user party, which alone can open it.
    `policy`: the context the cosigner's signing policy checks the payload against, with its own reading of the
    records (policies.py); such runs sign in full. `record`: what the caller writes for the signature, committed
    with its audit record in one transaction (unit_of_work.commit) before the signature is returned; a failed
    commit returns no signature (its audit record is then written alone).

    `derivation`: the non-hardened path (each index below 2**31) of the child key of `address`'s key (an `hd` key)
    to sign with instead: always a full run, never a presignature; the other party is asked to use the same path
    (the cosigner only for a policy that `derives`), and the signature is checked to recover to the child key,
    `derive_public_key(KeyMaterial.public_key, KeyMaterial.chain_code, derivation)`. ValueError before any run for a
    hardened index or a path too long; a key without a chain code, or that is not `address`'s, raises ValueError
    before the other party is asked (audited as failed).
    """
    digest = payloads.digest_of(payload)
    if derivation is not None:
        derivation = check_derivation(derivation)
    if policy is not None:
        secret0 = None  # a policy context is for the cosigner: the pair is A and B
    if derivation is None and secret0 is None and presignatures.pools_on():
        try:
            signature = _sign_presigned(wallet_id, address, payload, digest, caller, record, policy)
        finally:
            _presigned_admission_over()  # it took one, or found none: the hint says what is left
        if signature is not None:
            _done_without_run()
            return signature
    with _run_slot():
        return _sign(wallet_id, address, payload, digest, caller, secret0, policy, record, derivation)


def check_derivation(derivation: Sequence[int]) -> tuple[int, ...]:
    """`derivation` as a path of non-hardened indices; ValueError for a hardened index, a non-integer or a path
    longer than BIP32 allows."""
    path = tuple(derivation)
    if len(path) > MAX_DERIVATION_DEPTH:
        raise ValueError(f"a derivation path has at most {MAX_DERIVATION_DEPTH} indices")
    for index in path:
        if isinstance(index, bool) or not isinstance(index, int) or not 0 <= index < HARDENED:
            raise ValueError(f"derivation index {index!r} is not a non-hardened index (0 <= i < 2**31)")
    return path


def derive_public_key(public_key: bytes, chain_code: bytes, derivation: Sequence[int]) -> bytes:
    """The compressed SEC1 public key (33 bytes) of the child at non-hardened path `derivation` below the key
    `public_key` (SEC1, 33 or 65 bytes) with `chain_code` (32 bytes): the key `sign(..., derivation=derivation)`
    signs with (BIP32/SLIP-10 public derivation, by the MPC core). ValueError for anything malformed."""
    import dompet_mpc as mpc

    path = check_derivation(derivation)
    try:
        return mpc.derive_public_key(public_key, chain_code, list(path))
    except mpc.InvalidInputError as exc:
        raise ValueError(str(exc)) from None


class _OnlineStepFailedError(Exception):
    """The presignature's online step did not give a valid signature (the presignature is burned)."""


def _sign_presigned(
    wallet_id: str,
    address: str,
    payload: Signable,
    digest: bytes,
    caller: str,
    record: Plan | None = None,
    policy: dict[str, Any] | None = None,
) -> bytes | None:
    """The online step with a stocked presignature: share A is consumed here, share B by the cosigner, each in its
    own conditional write recording the digest; the partial signatures are combined and verified. None (after
    queueing a refill) when the pool is empty or the step failed: the caller then runs full signing. `policy`: the
    context the cosigner's policy checks, as on the full path. A policy's refusal raises at once: POLICY_DENIED with
    share A put back (the cosigner consumed nothing), POLICY_REFUSED with the presignature burned (the cosigner
    consumed its share too)."""
    import dompet_mpc as mpc

    started = clock.monotonic()
    taken = presignatures.take(wallet_id, digest)
    if taken is None:
        presignatures.request_refill(wallet_id)
        return None
    presignature_id, share, ready = taken
    signers = [shares.SIGNER, shares.COSIGNER]
    request = {
        "action": "partial",
        "runId": presignature_id,
        "walletId": wallet_id,
        "peers": [shares.SIGNER],
        "digest": digest.hex(),
        "payload": payload.model_dump(),
        "signers": signers,
    }
    if policy is not None:
        request["policy"] = policy
    # Short: full signing must still fit in the request's budget when the online step fails.
    deadline = min(_deadline(), clock.monotonic() + ONLINE_STEP_TIMEOUT_S)
    try:
        call = remote.call(COSIGNER_FUNCTION, request)
        own = mpc.issue_partial_signature(share, digest)
        public_key = mpc.presignature_info(share)["public_key"]
        record = _with_list_counts(record)  # while the cosigner works: off the critical path
        answer = _answers({COSIGNER_FUNCTION: call}, deadline)[COSIGNER_FUNCTION]
        theirs = base64.b64decode(str(answer.get("partial", "")), validate=True)
        signature = mpc.combine_signatures([own, theirs], public_key, digest)
        if not _recovers_to(signature, digest, address):
            raise _OnlineStepFailedError("the signature does not recover to the wallet")
    except MpcRunError as failure:
        if failure.code not in (POLICY_DENIED, POLICY_REFUSED):
            _online_step_failed(wallet_id, presignature_id, payload, digest, signers, caller, failure)
            return None
        if failure.code == POLICY_DENIED:
            _put_back(wallet_id, presignature_id, share)
        else:
            presignatures.request_refill(wallet_id)
        outcome = "denied" if failure.code == POLICY_DENIED else "failed"  # as the full path records them
        aws.write(
            _audit_item(wallet_id, presignature_id, payload, digest, signers, caller, outcome, 0.0, presignature_id)
        )
        raise
    except (mpc.MpcError, ValueError, _OnlineStepFailedError) as failure:
        _online_step_failed(wallet_id, presignature_id, payload, digest, signers, caller, failure)
        return None
    finally:
        del share
    seconds = clock.monotonic() - started
    _commit_signed(
        _audit_item(wallet_id, presignature_id, payload, digest, signers, caller, "signed", seconds, presignature_id),
        record,
    )
    _ask_refill(wallet_id, ready)
    return signature


def _ask_refill(wallet_id: str, ready: int) -> None:
    try:
        presignatures.after_use(wallet_id, ready)
    except Exception as exc:  # noqa: BLE001 - the signature matters more; the next send asks again
        log_failure("presignature refill not queued", exc, walletId=wallet_id)


def stock_presignatures(wallet_id: str) -> None:
    """A first stock of presignatures for a new key (`presign_first_stock`), made by the refill function off the
    request path, so its first signatures need no full run."""
    if not presignatures.pools_on():
        return
    try:
        presignatures.request_refill(wallet_id, presignatures.first_stock())
    except Exception as exc:  # noqa: BLE001 - the key exists; its first signature runs in full and asks again
        log_failure("presignature refill not queued", exc, walletId=wallet_id)


def _online_step_failed(
    wallet_id: str,
    presignature_id: str,
    payload: Signable,
    digest: bytes,
    signers: list[int],
    caller: str,
    failure: Exception,
) -> None:
    """Audited, and a refill asked for (the presignature is burned); the caller signs in full."""
    logger.warning(
        "presignature online step failed; full signing follows",
        extra={"presignatureId": presignature_id, "errorType": type(failure).__name__},
    )
    aws.write(_audit_item(wallet_id, presignature_id, payload, digest, signers, caller, "failed", 0.0, presignature_id))
    presignatures.request_refill(wallet_id)


def _put_back(wallet_id: str, presignature_id: str, share: bytes) -> None:
    """Share A of a presignature whose online step a policy refused, ready again: the cosigner did not consume its
    share, and share A's partial signature was never combined nor sent, so the presignature has signed nothing.
    Its used record goes first (a consumption requires its absence); a failure in between only loses it."""
    try:
        aws.write(
            aws.delete("used", presignatures.TABLE[shares.SIGNER], presignatures.used_key(wallet_id, presignature_id))
        )
        presignatures.store(shares.SIGNER, wallet_id, presignature_id, share)
    except Exception as exc:  # noqa: BLE001 - a presignature lost is only a refill more; the refusal stands
        log_failure("refused presignature not put back", exc, presignatureId=presignature_id)


def refill_presignatures(
    wallet_id: str,
    time_left_s: Callable[[], float],
    per_run_s: float,
    target: int | None = None,
    at_least: int = 0,
) -> int:
    """Generate presignatures with the cosigner until party A holds `target` ready ones (by default the wallet's
    demand, presignatures.target, and at least `at_least`, a new wallet's first stock, within the ceiling), or time
    runs short; returns how many were made. Only a wallet with a share A here is refilled, and never an hd key."""
    at_least = min(at_least, presignatures.first_stock())

    def missing() -> int:
        """Asked again before each run: the wallet's demand may grow while it is refilled."""
        wanted = presignatures.target(wallet_id) if target is None else target
        return max(wanted, at_least) - len(presignatures.ready_ids(shares.SIGNER, wallet_id))

    if missing() <= 0 or not presignatures.lease_refill(wallet_id, time_left_s()):
        return 0  # stocked, or another refill of this wallet is running
    try:
        return _presign_until(wallet_id, missing, time_left_s, per_run_s)
    finally:
        presignatures.release_refill(wallet_id)


def _presign_until(
    wallet_id: str, missing: Callable[[], int], time_left_s: Callable[[], float], per_run_s: float
) -> int:
    import dompet_mpc as mpc

    key_share = shares.load_share(wallet_id, shares.SIGNER)
    if mpc.share_info(key_share)["chain_code"] is not None:
        return 0  # an hd key never presigns (its child keys sign in full runs only): nothing to refill, ever
    made = 0
    while time_left_s() > per_run_s and missing() > 0:
        signers = [shares.SIGNER, shares.COSIGNER]
        run_id = secrets.token_hex(16)
        request = {"action": "presign", "runId": run_id, "walletId": wallet_id, "peers": [0], "signers": signers}
        try:
            with _run_slot():
                deadline = _deadline()
                calls = {COSIGNER_FUNCTION: remote.call(COSIGNER_FUNCTION, request)}
                session = mpc.presign_session(execution_id("presign", wallet_id, run_id), key_share, signers)
                share = _drive_party0(run_id, (shares.COSIGNER,), session, calls, deadline)
                answer = _answers(calls, deadline)[COSIGNER_FUNCTION]
        except MpcRunError as stopped:
            if stopped.code != PRESIGN_BUDGET_SPENT:
                raise
            # Not a failure: the wallet's client made its hour's presignatures; the next use asks again.
            logger.info("presignature refill stopped by the budget", extra={"walletId": wallet_id, "made": made})
            return made
        presignature_id = mpc.presignature_info(share)["presignature_id"].hex()
        if answer.get("presignatureId") != presignature_id:
            raise MpcRunError(SIGNER_UNAVAILABLE, "The parties did not agree on the presignature")
        presignatures.store(shares.SIGNER, wallet_id, presignature_id, share)
        made += 1
    return made


def _sign(
    wallet_id: str,
    address: str,
    payload: Signable,
    digest: bytes,
    caller: str,
    secret0: str | None,
    policy: dict[str, Any] | None = None,
    record: Plan | None = None,
    derivation: tuple[int, ...] | None = None,
) -> bytes:
    import dompet_mpc as mpc

    helper, party = (USER_PARTY_FUNCTION, shares.USER) if secret0 else (COSIGNER_FUNCTION, shares.COSIGNER)
    signers = [shares.SIGNER, party]
    run_id = secrets.token_hex(16)
    request: dict[str, Any] = {
        "action": "sign",
        "runId": run_id,
        "walletId": wallet_id,
        "peers": [shares.SIGNER],
        "digest": digest.hex(),
        "payload": payload.model_dump(),
        "signers": signers,
    }
    if secret0:
        request["secret0"] = secret0
    if policy is not None:
        request["policy"] = policy
    if derivation is not None:
        request["derivation"] = list(derivation)
    started = clock.monotonic()
    deadline = _deadline()
    try:
        if derivation is None:
            calls = {helper: remote.call(helper, request)}  # the other party starts while share A is opened
            key_share = shares.load_share(wallet_id, shares.SIGNER)
            child = None
        else:  # the key must be an hd key and `address`'s before anyone is asked to sign with its child
            key_share = shares.load_share(wallet_id, shares.SIGNER)
            child = _child_key(key_share, address, derivation)
            calls = {helper: remote.call(helper, request)}
        eid = execution_id("sign", wallet_id, run_id)
        path = None if derivation is None else list(derivation)
        session = mpc.signing_session(eid, key_share, signers, digest, derivation_path=path)
        del key_share
        signature = _drive_party0(run_id, (party,), session, calls, deadline)
        _answers(calls, deadline)
        verified = (
            _recovers_to(signature, digest, address) if child is None else _recovers_to_key(signature, digest, child)
        )
        if not verified:
            raise MpcRunError(SIGNING_FAILED, "The signature did not verify")
    except BaseException as failure:
        # The audit of a failed run must not replace the error that failed it.
        outcome = "denied" if isinstance(failure, MpcRunError) and failure.code == POLICY_DENIED else "failed"
        try:
            aws.write(
                _audit_item(
                    wallet_id,
                    run_id,
                    payload,
                    digest,
                    signers,
                    caller,
                    outcome,
                    clock.monotonic() - started,
                    derivation=derivation,
                )
            )
        except Exception as audit_error:  # noqa: BLE001 - logged; the original error propagates
            log_failure("signing audit not written", audit_error, runId=run_id)
        raise
    seconds = clock.monotonic() - started
    _timed_full_run(seconds)
    audit = _audit_item(wallet_id, run_id, payload, digest, signers, caller, "signed", seconds, derivation=derivation)
    _commit_signed(audit, record)
    return signature


def _child_key(key_share: bytes, address: str, derivation: tuple[int, ...]) -> bytes:
    """The compressed public key of the child of share A's key at `derivation`; ValueError when that key is not
    `address`'s or has no chain code (it was not generated with `hd`)."""
    import dompet_mpc as mpc

    info = mpc.share_info(key_share)
    if info["address"] != address:
        raise ValueError("the key share is not the key of this address")
    if info["chain_code"] is None:
        raise ValueError("the key has no chain code (not generated with hd): it signs for no derivation path")
    return derive_public_key(info["public_key"], info["chain_code"], derivation)


def cosigner_action(request: dict[str, Any], timeout_s: float = ACTION_TIMEOUT_S) -> dict[str, Any]:
    """The cosigner's answer to one of the actions domains register with it (`{"action": <name>, ...}`, see
    cosigner_checks.register_action): `{"ok": true, ...}` or its refusal `{"ok": false, "code": ...}`. MpcRunError
    SIGNER_UNAVAILABLE when it cannot be reached in time."""
    if request.get("action") in cosigner_checks.RUN_ACTIONS:
        raise ValueError("an MPC run is not a cosigner action")
    call = remote.call(COSIGNER_FUNCTION, request)
    try:
        answer = call.result(timeout=max(0.0, min(timeout_s, _deadline() - clock.monotonic())) + 1.0)
    except (remote.PartyUnavailableError, FutureTimeout):
        raise MpcRunError(SIGNER_UNAVAILABLE, "The cosigner could not be reached; retry shortly") from None
    return answer


def _deadline() -> float:
    """One deadline for the whole run (driving our party and waiting for the others' answers), within the
    request's own budget so the run fails with a code before the function is killed."""
    left = budget_left_s()
    allowed = load_settings().mpc_session_timeout_s
    return clock.monotonic() + (allowed if left is None else max(0.0, min(allowed, left)))


def _drive_party0(
    run_id: str, peers: tuple[int, ...], session: Any, calls: dict[str, Future[dict[str, Any]]], deadline: float
) -> bytes:
    mailbox = Mailbox(run_id, shares.SIGNER, peers)
    mailbox.open()
    try:
        return drive(session, mailbox, deadline, alive=_peers_alive(calls))
    except RunFailedError as exc:
        logger.warning("mpc run failed", extra={"runId": run_id, "reason": exc.reason})
        refusal = _refusal(calls)
        if refusal is not None:
            raise refusal from None
        raise MpcRunError(SIGNER_UNAVAILABLE, "The signing parties could not complete the run") from None
    finally:
        mailbox.close()


def _peers_alive(calls: dict[str, Future[dict[str, Any]]]) -> Callable[[], None]:
    def check() -> None:
        for name, call in calls.items():
            if call.done() and (call.exception() is not None or not call.result().get("ok")):
                code = call.result().get("code") if call.exception() is None else None
                refused = code in (POLICY_REFUSED, POLICY_DENIED)
                raise RunFailedError(f"{name} stopped" + (f": {code}" if refused else ""))

    return check


def _refusal(calls: dict[str, Future[dict[str, Any]]]) -> MpcRunError | None:
    """The policy refusal a party that stopped the run answered, if that is why it stopped."""
    for call in calls.values():
        if not call.done() or call.exception() is not None:
            continue
        answer = call.result()
        if answer.get("code") == POLICY_DENIED:
            return _denied(answer)
        if answer.get("code") == POLICY_REFUSED:
            return MpcRunError(POLICY_REFUSED, "The cosigner's policy refused to sign this transaction")
        if answer.get("code") == PRESIGN_BUDGET_SPENT:
            return MpcRunError(PRESIGN_BUDGET_SPENT, "The cosigner's presignature budget for this key is spent")
    return None


def _answers(calls: dict[str, Future[dict[str, Any]]], deadline: float) -> dict[str, dict[str, Any]]:
    answers: dict[str, dict[str, Any]] = {}
    for name, call in calls.items():
        try:
            answer = call.result(timeout=max(0.0, deadline - clock.monotonic()) + 1.0)
        except (remote.PartyUnavailableError, FutureTimeout):
            answer = {"ok": False, "code": "UNREACHABLE"}
        if not answer.get("ok"):
            logger.warning("mpc party refused", extra={"party": name, "code": answer.get("code")})
            if answer.get("code") == POLICY_DENIED:
                raise _denied(answer)
            if answer.get("code") == POLICY_REFUSED:
                raise MpcRunError(POLICY_REFUSED, "The cosigner's policy refused this key or signature")
            if answer.get("code") == PRESIGN_BUDGET_SPENT:
                raise MpcRunError(PRESIGN_BUDGET_SPENT, "The cosigner's presignature budget for this key is spent")
            raise MpcRunError(SIGNER_UNAVAILABLE, "The signing parties could not complete the run")
        answers[name] = answer
    return answers


def _finish_key(wallet_id: str, key_share: bytes, answers: dict[str, dict[str, Any]]) -> KeyMaterial:
    import dompet_mpc as mpc

    info = mpc.share_info(key_share)
    address = info["address"]
    chain_code = info["chain_code"]
    if {a["address"] for a in answers.values()} != {address}:
        raise MpcRunError(SIGNER_UNAVAILABLE, "The parties did not agree on the key")
    if {a.get("chainCode") for a in answers.values()} != {None if chain_code is None else chain_code.hex()}:
        raise MpcRunError(SIGNER_UNAVAILABLE, "The parties did not agree on the key's chain code")
    shares.store_share(wallet_id, shares.SIGNER, key_share)
    return KeyMaterial(
        address=address,
        secret0=answers[USER_PARTY_FUNCTION]["secret0"],
        public_key=compressed_key(info["public_key"]),
        chain_code=chain_code,
    )


def _recovers_to(signature: bytes, digest: bytes, address: str) -> bool:
    from eth_keys.main import KeyAPI

    try:
        return bool(
            KeyAPI.Signature(signature).recover_public_key_from_msg_hash(digest).to_checksum_address() == address
        )
    except Exception:  # noqa: BLE001 - any malformed signature is simply not valid
        return False


def _recovers_to_key(signature: bytes, digest: bytes, public_key: bytes) -> bool:
    """Whether `signature` over `digest` recovers to `public_key` (compressed SEC1)."""
    from eth_keys.main import KeyAPI

    try:
        recovered = KeyAPI.Signature(signature).recover_public_key_from_msg_hash(digest)
        return bool(recovered.to_compressed_bytes() == public_key)
    except Exception:  # noqa: BLE001 - any malformed signature is simply not valid
        return False


def _with_list_counts(record: Plan | None) -> Plan | None:
    """`record` with its lists' counters read now (one read, consistent): its commit's first attempt uses them, and
    a counter that moves meanwhile only makes the commit plan again (unit_of_work.py)."""
    if record is None or not record.lists or record.list_counts is not None:
        return record
    return replace(record, list_counts=counts_of([entries for entries, _ in record.lists]))


def _commit_signed(audit: aws.TxItem, record: Plan | None) -> None:
    """A signature leaves only with its `audit` record, and with the caller's `record` in the same transaction: a
    failure to write them fails the request. When the caller's part cannot be written (its list stayed busy), the
    audit record is still written alone: the signature was made, though no one is given it."""
    if record is None:
        aws.write(audit)
        return
    try:
        unit_of_work.commit(replace(record, items=[*record.items, audit]))
    except BaseException:
        try:
            aws.write(audit)
        except Exception as audit_error:  # noqa: BLE001 - logged; the original error propagates
            log_failure("signing audit not written", audit_error, runId=audit.body["runId"])
        raise


def _audit_item(
    wallet_id: str,
    run_id: str,
    payload: Signable,
    digest: bytes,
    signers: list[int],
    caller: str,
    outcome: str,
    seconds: float,
    presignature_id: str | None = None,
    derivation: tuple[int, ...] | None = None,
) -> aws.TxItem:
    """The record of one signature run: what kind of thing was signed and its digest (for typed data, the domain's
    chainId, verifyingContract and primaryType; for a child key, its derivation path), never the message or
    document itself."""
    now = iso_now()
    item: dict[str, Any] = {
        "pk": f"WALLET#{wallet_id}",
        "sk": f"SIG#{now}#{run_id}",
        "walletId": wallet_id,
        "runId": run_id,
        "kind": payload.kind,
        "digest": digest.hex(),
        "parties": ["signer", "user" if shares.USER in signers else "cosigner"],
        "method": "presignature" if presignature_id else "full",
        "caller": caller,
        "outcome": outcome,
        "createdAt": now,
        "durationMs": int(seconds * 1000),
    }
    if presignature_id:
        item["presignatureId"] = presignature_id
    if derivation is not None:
        item["derivation"] = list(derivation)
    if payload.typedData is not None:
        domain = domain_fields(payload.typedData)
        # Strings: a chainId may be any uint256, past what a DynamoDB number holds.
        item.update({name: str(domain[name]) for name in _TYPED_DATA_AUDIT if domain.get(name) is not None})
    return aws.put("audit", "signing-audit", item, condition=None)
