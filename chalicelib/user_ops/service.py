"""User operations: estimate, hash (build and store, state `created`), submit (charge the payer's gas tank and
send to the bundler), views and lists. Tracking and settlement: settlement.py.

Submit is one DynamoDB transaction: the payer's tank is debited the operation's maximum cost in tank units plus
fees (conditional: never below zero), the usage record is written, the operation moves `created` → `on_process`
(with the chain's head, where the search for its event starts, and its due time in the `due` index) and joins
the app's and owner's lists. The tracker message is queued after that commit (a tracker that read the operation
before it would find it `created` and stop); a message that is never sent (the submit died after the commit) is
queued by the `requeue_user_ops` schedule, so no money stays stuck.
"""

from __future__ import annotations

import contextlib
import json
import uuid
from collections.abc import Callable
from typing import Any

from chalicelib.evm import digests
from chalicelib.evm.aa import packing
from chalicelib.evm.rpc import NO_ANSWER, RpcError, block_number, rpc_call, transaction_count
from chalicelib.evm.signatures import hash_signer, personal_signer
from chalicelib.evm.transactions import SignedAuthorization
from chalicelib.gas_tanks import alerts, charges, sponsorship
from chalicelib.gas_tanks import store as tanks
from chalicelib.gas_tanks.models import SponsorshipCheck, SponsorshipRemaining
from chalicelib.gas_tanks.service import NETWORK_WITHOUT_GAS_TANKS
from chalicelib.platform import aws, unit_of_work
from chalicelib.platform.clock import epoch, iso_at, iso_now
from chalicelib.platform.errors import (
    UPSTREAM_UNAVAILABLE,
    ApiError,
    bad_request,
    conflict,
    not_found,
    upstream_unavailable,
)
from chalicelib.platform.logging import logger
from chalicelib.platform.networks import Network, registry
from chalicelib.platform.pagination import AppendOnlyList, PageQuery, pagination
from chalicelib.platform.transitions import create, moved, transition
from chalicelib.platform.unit_of_work import Plan
from chalicelib.smart_accounts import service as smart_accounts
from chalicelib.smart_accounts import store as accounts_store
from chalicelib.smart_accounts.models import Owner, SmartAccount
from chalicelib.tenancy.models import App
from chalicelib.user_ops import build, settlement, store
from chalicelib.user_ops.models import (
    Estimate,
    HashResult,
    SponsorshipCheckRequest,
    UserOperation,
    UserOperationPage,
    UserOpRecord,
)
from chalicelib.user_ops.views import view
from chalicelib.wallets.models import AuthorizationListEntry

ACCOUNT_NOT_FOUND = "ACCOUNT_NOT_FOUND"
USER_OP_NOT_FOUND = "USER_OP_NOT_FOUND"
HASH_MISMATCH = "HASH_MISMATCH"
USER_OP_ALREADY_SUBMITTED = "USER_OP_ALREADY_SUBMITTED"
USER_OP_EXPIRED = "USER_OP_EXPIRED"
INVALID_USER_OP_SIGNATURE = "INVALID_USER_OP_SIGNATURE"
INSUFFICIENT_GAS_TANK_BALANCE = "INSUFFICIENT_GAS_TANK_BALANCE"
SPONSORSHIP_DENIED = "SPONSORSHIP_DENIED"
AUTHORIZATION_REQUIRED = "AUTHORIZATION_REQUIRED"
INVALID_AUTHORIZATION = "INVALID_AUTHORIZATION"
AUTHORIZATION_NONCE_MISMATCH = "AUTHORIZATION_NONCE_MISMATCH"
SUBMIT_ATTEMPTS = 24  # concurrent sponsored submits of one app each lose at most one race per winner


MakeCall = Callable[[SmartAccount], build.Call]  # the call, given the account (its aaAddress)


def estimate(app: App, account_id: str, make_call: MakeCall) -> Estimate:
    account, owner, network = _account(app, account_id)
    call = make_call(account)
    built = _build(network, account, owner, call, sign=False)
    cost = charges.charge(network, built.op.max_cost_wei())
    return Estimate(requiredNative=str(cost.native), requiredGasTankBalance=str(cost.total), decimal=tanks.DECIMALS)


def hash_operation(app: App, account_id: str, make_call: MakeCall) -> HashResult:
    account, owner, network = _account(app, account_id)
    call: build.Call = make_call(account)
    built = _build(network, account, owner, call)
    user_op_id = str(uuid.uuid4())
    op = UserOpRecord(
        **store.key(user_op_id),
        id=user_op_id,
        createdAt=iso_now(),
        updatedAt=None,
        accountId=account_id,
        ownerId=owner.id,
        ownerAddress=owner.ownerId,
        ownerTankId=owner.tankId,  # so submit debits the owner's tank without reading the owner again
        clientId=app.clientId,
        appId=app.appId,
        signature=None,
        userOpHash="0x" + built.user_op_hash.hex(),
        txHash=None,
        status="created",
        type=call.kind,
        network=network.name,
        chainId=network.chainId,
        payer=None,
        validUntil=iso_at(built.valid_until),
        validUntilEpoch=built.valid_until,
        failedReason=None,
        bundlerVersion=built.version,
        successAt=None,
        failedAt=None,
        sentAt=None,
        deploys=built.op.factory is not None,
        op=json.dumps(built.op.wire()),
    )
    aws.write(create(op))
    eip7702 = built.typed_data is not None
    return HashResult(
        hash=op.userOpHash,
        userOpId=user_op_id,
        validUntil=built.valid_until,
        typedData=built.typed_data,
        delegates=built.delegates if eip7702 else None,
    )


def submit(
    app: App,
    user_op_id: str,
    op_hash: str,
    signature: str,
    sponsored: bool,
    eip7702_auth: AuthorizationListEntry | None = None,
) -> UserOperation:
    """Charge the payer's tank and send the operation. A sponsored one is first judged by the app's sponsorship
    policy (gas_tanks/sponsorship.py) in the same transaction as its debit: refused, it is 403 SPONSORSHIP_DENIED
    and nothing is charged, counted or sent (the operation stays `created`). An EIP-7702 account's operation that
    delegates its wallet needs the wallet's authorization (`eip7702_auth`), checked before anything is charged."""
    record = store.get(user_op_id)
    if record is None or record.appId != app.appId:
        raise not_found(USER_OP_NOT_FOUND, "No user operation with this id in this app")
    if op_hash.lower() != record.userOpHash:
        raise bad_request(HASH_MISMATCH, "hash is not this operation's hash")
    if record.status != "created":
        raise conflict(USER_OP_ALREADY_SUBMITTED, "This operation was submitted already")
    if epoch() >= record.validUntilEpoch:
        raise ApiError(422, USER_OP_EXPIRED, "The operation is past its validUntil; build it again")
    digest = bytes.fromhex(op_hash[2:])
    # v0.8 (Simple7702Account) checks a signature of the hash itself; SimpleAccount one of its EIP-191 message.
    signer = hash_signer(digest, signature) if record.bundlerVersion == "0.8" else personal_signer(digest, signature)
    if signer != record.ownerAddress.lower():
        _fail_unsent(record, "signature does not recover to the account's owner")
        raise bad_request(INVALID_USER_OP_SIGNATURE, "The signature was not made by the account's owner")
    network = _network(record.chainId)
    if record.bundlerVersion == "0.8" and not network.supports_eip7702_accounts:
        raise ApiError(422, NETWORK_WITHOUT_GAS_TANKS, "The account's network no longer has EIP-7702 accounts")
    op = _op(record).with_(signature=bytes.fromhex(signature[2:]))
    authorization = _authorization(network, record, op, eip7702_auth)
    cost = charges.charge(network, op.max_cost_wei())
    # The debit is conditional on the balance: no read of the tank is needed first.
    tank_id = tanks.client_tank_id(app.clientId) if sponsored else record.ownerTankId
    now = iso_now()
    usage = charges.usage_record(cost, network, tank_id, app.clientId, app.appId, user_op_id, now)
    # Read before the operation can reach a bundler: its event cannot be in an earlier block.
    submitted_block = _head(network)
    due_at: dict[str, Any] = settlement.IN_FLIGHT.due(settlement.FIRST_CHECK_S)
    payer = "organization" if sponsored else "owner"
    sent: dict[str, Any] = {"signature": signature, "sentAt": now, "updatedAt": now, "payer": payer}
    judged = _sponsorship_of(app, record, network, op, cost.total) if sponsored else None
    lists: list[tuple[AppendOnlyList, dict[str, Any]]] = [
        (store.app_list(app.appId), {"userOpId": user_op_id}),
        (store.owner_list(record.ownerId), {"userOpId": user_op_id}),
        (tanks.usage(tank_id), usage),
    ]

    def plan() -> Plan:
        counted: list[aws.TxItem] = []
        where: dict[str, int] | None = None
        if judged is not None:  # read again at every attempt: a concurrent submit may have moved a window
            seen = sponsorship.standing(app.appId, record.ownerId)
            refusal = sponsorship.judge(judged, seen)
            if refusal is not None:
                raise _SponsorshipRefusedError(refusal)
            counted, where = sponsorship.counted(judged, seen)

        def writes(seqs: list[int]) -> list[aws.TxItem]:
            sponsorship_at: dict[str, Any] = {"sponsoredIn": where} if where else {}
            on_process = transition(
                record,
                "on_process",
                **sent,
                payerTankId=tank_id,
                usageSeq=seqs[2],
                deducted=cost.total,
                deductedNative=cost.native,
                submittedBlock=submitted_block,
                **sponsorship_at,
                **due_at,
            )
            return [tanks.debit(tank_id, cost.total, now), on_process, *counted]

        return Plan(lists=lists, numbered=writes, replan_on=sponsorship.WINDOWS if judged else frozenset())

    try:
        unit_of_work.commit(plan, attempts=SUBMIT_ATTEMPTS)
    except _SponsorshipRefusedError as refused:
        rule, reason = refused.refusal.rule, refused.refusal.reason
        alerts.sponsorship_denied(app.appId, record.ownerId, user_op_id, rule, reason)
        raise ApiError(403, SPONSORSHIP_DENIED, f"Not sponsored: {reason}", rule=rule) from None
    except aws.TransactionCancelledError as exc:
        if exc.condition_failed("tank"):
            raise ApiError(
                422,
                INSUFFICIENT_GAS_TANK_BALANCE,
                f"The {payer} gas tank holds less than the operation's maximum cost ({cost.total} base units)",
            ) from None
        if exc.condition_failed(UserOpRecord.machine.name):
            raise conflict(USER_OP_ALREADY_SUBMITTED, "This operation was submitted already") from None
        raise
    submitted = moved(record, "on_process", **sent)
    try:
        settlement.enqueue(user_op_id, str(due_at["dueAt"]))
    except Exception as exc:  # noqa: BLE001 - committed: the requeue schedule queues it once its due time passes
        logger.warning("user operation tracker not queued", extra={"userOpId": user_op_id, "reason": str(exc)})
    wire: dict[str, Any] = op.wire() if authorization is None else {**op.wire(), "eip7702Auth": authorization}
    try:
        rpc_call(network, "eth_sendUserOperation", [wire, network.entry_point_for(record.bundlerVersion)], bundler=True)
    except RpcError as refused:
        if refused.endpoint > 0:
            # A bundler before this one failed to answer: it may have taken the operation and include it still.
            # The tracker settles it from the chain.
            logger.warning("user operation refused after a failover", extra={"userOpId": user_op_id})
            return view(submitted)
        settlement.refused(user_op_id, str(refused)[:500])
        return view(store.get(user_op_id) or submitted)
    except NO_ANSWER:
        # No bundler answered: the operation may or may not have reached one. The tracker settles it either way
        # (included, or expired and refunded).
        logger.warning("user operation send unanswered", extra={"userOpId": user_op_id})
    return view(submitted)


def sponsorship_check(app: App, request: SponsorshipCheckRequest) -> SponsorshipCheck:
    """Would the app's sponsorship policy pay for this operation now, and what is left of each cap (nothing is
    counted, charged or sent)."""
    if request.userOpId is not None:
        record = store.get(request.userOpId)
        if record is None or record.appId != app.appId:
            raise not_found(USER_OP_NOT_FOUND, "No user operation with this id in this app")
        network, op = _network(record.chainId), _op(record)
        owner_id, cost = record.ownerId, charges.charge(network, op.max_cost_wei())
        targets = build.targets_of(op.call_data)
    else:
        assert request.accountId is not None and request.to is not None
        account, owner, network = _account(app, request.accountId)
        call = build.transaction(request.to, int(request.value), bytes.fromhex(request.callData[2:]))
        built = _build(network, account, owner, call, sign=False)
        owner_id, cost = owner.id, charges.charge(network, built.op.max_cost_wei())
        targets = call.targets
    judged = sponsorship.Operation(app.appId, owner_id, network.name, _calls(targets), cost.total)
    seen = sponsorship.standing(app.appId, owner_id)
    refusal = sponsorship.judge(judged, seen)
    return SponsorshipCheck(
        sponsored=refusal is None,
        rule=refusal.rule if refusal else None,
        reason=refusal.reason if refusal else None,
        requiredGasTankBalance=str(cost.total),
        gasTankBalance=str(tanks.client_tank_balance(app.clientId)),
        remaining=SponsorshipRemaining.model_validate(sponsorship.remaining(judged, seen)),
    )


class _SponsorshipRefusedError(Exception):
    def __init__(self, refusal: sponsorship.Refusal) -> None:
        super().__init__(refusal.reason)
        self.refusal = refusal


def _sponsorship_of(
    app: App, record: UserOpRecord, network: Network, op: packing.UserOp, cost: int
) -> sponsorship.Operation:
    return sponsorship.Operation(app.appId, record.ownerId, network.name, _calls(build.targets_of(op.call_data)), cost)


def _calls(targets: tuple[build.Target, ...]) -> tuple[tuple[str, bytes], ...]:
    return tuple((target.to, target.data) for target in targets)


def _build(network: Network, account: SmartAccount, owner: Owner, call: build.Call, sign: bool = True) -> build.Built:
    if account.accountType == "eip7702" and not network.supports_eip7702_accounts:
        raise ApiError(422, NETWORK_WITHOUT_GAS_TANKS, "The account's network no longer has EIP-7702 accounts")
    return build.build(
        network,
        owner.ownerId,
        call,
        sign=sign,
        known_deployed=_deployed(account),
        account_type="eip7702" if account.accountType == "eip7702" else "simple",
    )


def _authorization(
    network: Network, record: UserOpRecord, op: packing.UserOp, given: AuthorizationListEntry | None
) -> dict[str, Any] | None:
    """The eip7702Auth a delegating operation is sent with, as bundlers take it; None for any other operation. It
    must be the owner's authorization of the network's Simple7702Account, for this chain (or any), at the wallet's
    nonce now: checked here, before anything is charged (the bundler would refuse it, or the chain skip it)."""
    if op.factory != packing.EIP7702_MARKER:
        return None
    if given is None:
        raise bad_request(
            AUTHORIZATION_REQUIRED,
            "This operation delegates the wallet (EIP-7702): submit it with eip7702Auth, the wallet's authorization "
            "of the network's Simple7702Account at its current nonce (POST /api/v1/wallet/sign-authorization)",
            errors=[_field("eip7702Auth", "required")],
        )
    try:
        signed = SignedAuthorization.from_wire(given.model_dump(exclude={"hash"}))
    except ValueError as exc:
        raise _bad_authorization(str(exc)) from None
    if signed.address.lower() != str(network.eip7702Account).lower():
        raise _bad_authorization(f"it delegates to {signed.address}, not the network's {network.eip7702Account}")
    if signed.chain_id not in (0, network.chainId):
        raise _bad_authorization(f"signed for chain {signed.chain_id}, not {network.chainId} (or 0, any)")
    if (
        given.hash is not None
        and given.hash.lower() != "0x" + digests.authorization_hash(signed.chain_id, signed.address, signed.nonce).hex()
    ):
        raise _bad_authorization("hash is not the tuple's")
    if (digests.authority(signed) or "").lower() != record.ownerAddress.lower():
        raise _bad_authorization("it was not signed by the account's wallet")
    try:
        nonce = transaction_count(network, record.ownerAddress, "latest")
    except RpcError as exc:
        raise upstream_unavailable(UPSTREAM_UNAVAILABLE, "The node refused eth_getTransactionCount") from exc
    if signed.nonce != nonce:
        raise ApiError(
            422,
            AUTHORIZATION_NONCE_MISMATCH,
            f"eip7702Auth names nonce {signed.nonce}; the wallet's nonce is {nonce}: sign it again at that nonce",
        )
    return signed.rpc()


def _bad_authorization(reason: str) -> ApiError:
    return bad_request(INVALID_AUTHORIZATION, f"eip7702Auth: {reason}", errors=[_field("eip7702Auth", reason)])


def _field(name: str, message: str) -> dict[str, str]:
    return {"field": name, "message": message[:300], "type": "value_error"}


def get(app: App, user_op_id: str) -> UserOperation:
    record = store.get(user_op_id)
    if record is None or record.appId != app.appId:
        raise not_found(USER_OP_NOT_FOUND, "No user operation with this id in this app")
    return view(record)


def page_for_app(app: App, query: PageQuery) -> UserOperationPage:
    entries, total = store.app_list(app.appId).page(query)
    records = store.many([str(e["userOpId"]) for e in entries])
    usage = _usage_of(records)
    return UserOperationPage(data=[view(r, usage.get(r.id)) for r in records], pagination=pagination(total, query))


def page_for_owner(app: App, owner_id: str, query: PageQuery) -> UserOperationPage:
    owner = smart_accounts.owner_of(app, owner_id)
    entries, total = store.owner_list(owner.id).page(query)
    records = store.many([str(e["userOpId"]) for e in entries])
    return UserOperationPage(data=[view(r) for r in records], pagination=pagination(total, query))


def _usage_of(records: list[UserOpRecord]) -> dict[str, dict[str, Any]]:
    refs = [(r.payerTankId, r.usageSeq) for r in records if r.payerTankId is not None and r.usageSeq is not None]
    return {str(u["userOpId"]): u for u in tanks.usage_records(refs)}


def _account(app: App, account_id: str) -> tuple[SmartAccount, Owner, Network]:
    found = accounts_store.account_by_id(account_id)
    if found is None or found[1].appId != app.appId:
        raise not_found(ACCOUNT_NOT_FOUND, "No smart account with this id in this app")
    account, owner = found
    return account, owner, _network(account.chainId)


def _deployed(account: SmartAccount) -> bool:
    return account.status == smart_accounts.DEPLOYED


def _head(network: Network) -> int:
    try:
        return block_number(network)
    except RpcError as exc:
        raise upstream_unavailable(UPSTREAM_UNAVAILABLE, "The node refused eth_blockNumber") from exc


def _network(chain_id: int) -> Network:
    network = registry().by_chain_id(chain_id)
    if network is None or not network.supports_smart_accounts:
        raise ApiError(422, NETWORK_WITHOUT_GAS_TANKS, "The account's network no longer has smart accounts")
    return network


def _op(record: UserOpRecord) -> packing.UserOp:
    return packing.from_wire(json.loads(record.op))


def _fail_unsent(record: UserOpRecord, reason: str) -> None:
    now = iso_now()
    with contextlib.suppress(aws.ConditionFailedError):  # submitted or failed meanwhile
        aws.write(transition(record, "failed", failedReason=reason, failedAt=now, updatedAt=now))
