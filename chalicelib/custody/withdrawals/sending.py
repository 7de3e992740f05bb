"""The withdrawal worker: pays a withdrawal on chain from the account's own deposit address, then settles it.

The spending address is the account's deposit address (a SimpleAccount of the pool's custody key): the key's own
address (the pool's gas wallet, funded with the native coin by the operator) calls `execute` on it, so funds
never need sweeping and each account's money stays at its own address (docs/custody.md, "Withdrawals").
A deposit address not yet on chain is deployed first by the factory's `createAccount`, sent from the same
address just before (nonce order puts it first).

`process(id)` (SQS `custody-withdrawals`, also re-queued with delays):
* `pending` → `sending` under a lease (a worker that died leaves a lease that runs out; the next one retries);
* the nonce is reserved once per withdrawal (nonces.reserve, in one write with the record that keeps it) and
  stays the withdrawal's until it ends, however long it waits: a retry signs at the same nonce (the cosigner signs
  one nonce per withdrawal, cosigner_check.py), and no other send of the key's address can be handed it;
* the signed transaction is recorded (evm tracking) in ONE transaction with the withdrawal's move to `sent`
  (`txHash`): never broadcast without that record, never recorded twice;
* `sent`: the engine's tracker (evm/engine.py) follows the transaction, re-prices it while the chain prices it out
  (the custody key signs the same payment again at the withdrawal's nonce), and reports each step of the settled
  transaction to the withdrawal (`_on_settled`, registered as `WITHDRAWAL_SENDS`): ONE chain of follow-ups per
  transaction, custody's own queue only for the steps before it and for the sweep's safety net. Once it is mined
  with the network's confirmations (the mined hash's receipt, block hash and, for a token, its Transfer
  re-checked) the held amount is debited (`withdraw.success`, `txHash` the mined hash); reverted, or refused
  for another reason than its nonce while the key's mined nonce has not passed it: the hold is released
  (`withdraw.failed`); dropped before its broadcast: back to `pending`;
* its nonce used by another transaction (the tracker's proof, a broadcast refused for its nonce, or the key's
  mined nonce past it before anything of the withdrawal was mined, also when an attempt takes it up again):
  `failed` with `needs_review`, kept held and its nonce not given back (it may be another signature of the same
  payment), which an operator settles or releases through `succeed`/`fail` as well (review.py);
* the transaction that ends a withdrawal also ends its nonce's reservation, giving the nonce back when no
  transaction of the withdrawal used it.

The worker decides from the chain as a `ChainReader` answers (`NodeReader`: the network's nodes through
evm/rpc.py and evm/erc20.py); `confirmation` is its reading of a mined withdrawal.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass
from typing import Any, Literal, Protocol

from chalicelib.custody import ledger, utxos
from chalicelib.custody.store import busy
from chalicelib.custody.tokens import TRANSFER_TOPIC, TokenOnNetwork, accepted
from chalicelib.custody.withdrawals import lifecycle as withdrawals
from chalicelib.custody.withdrawals.cosigner_check import deploy_call, expected_call
from chalicelib.custody.withdrawals.records import Withdrawal
from chalicelib.evm import digests, engine, erc20, nonces, pipeline, rpc, tracking
from chalicelib.evm.tracking import EvmTransaction
from chalicelib.evm.transactions import UnsignedTx
from chalicelib.mpc import service as mpc
from chalicelib.mpc.service import MpcRunError
from chalicelib.platform import aws, clock, followups, unit_of_work
from chalicelib.platform.errors import ApiError
from chalicelib.platform.logging import logger
from chalicelib.platform.networks import Network
from chalicelib.platform.transitions import moved, transition
from chalicelib.platform.unit_of_work import Event, Plan

OWNER_PREFIX = "custody:"  # the engine's owner of a key's transactions: custody:<keyId>
LEASE_S = nonces.LEASE_S  # a worker holds a withdrawal as long as a send may hold its nonce
CHECK_DELAYS_S = (2, 4, 8, 15, 30, 60, 120, 300, 900)
EXECUTE_GAS = 200_000  # estimated against an undeployed account the call would look free: fixed instead
DEPLOY_GAS = 400_000
GAS_RETRIES = 10  # the gas wallet without native coin: retried this many times (a minute apart), then failed
WITHDRAWAL_TAKEN = "WITHDRAWAL_TAKEN"


class WithdrawalTakenError(Exception):
    """Another worker took the withdrawal while this one reserved its nonce."""

    code = WITHDRAWAL_TAKEN


class ChainReader(Protocol):
    """The chain reads the worker decides from (`NodeReader`: a network's nodes; tests stand in a fake)."""

    def head(self) -> int: ...
    def receipt(self, tx_hash: str) -> dict[str, Any] | None: ...
    def block_hash(self, number: int) -> str | None: ...
    def transaction_count(self, address: str, block: str) -> int: ...
    def holding(self, pair: TokenOnNetwork, address: str) -> int: ...
    def code(self, address: str) -> str: ...


@dataclass(frozen=True)
class NodeReader:
    """The chain as `network`'s nodes answer (evm/rpc.py, evm/erc20.py)."""

    network: Network

    def head(self) -> int:
        return rpc.block_number(self.network)

    def receipt(self, tx_hash: str) -> dict[str, Any] | None:
        receipt = rpc.rpc_call(self.network, "eth_getTransactionReceipt", [tx_hash])
        if receipt is not None and not isinstance(receipt, dict):
            raise ValueError(f"not a receipt: {str(receipt)[:80]!r}")
        return receipt

    def block_hash(self, number: int) -> str | None:
        block = rpc.rpc_call(self.network, "eth_getBlockByNumber", [hex(number), False])
        return str(block["hash"]) if isinstance(block, dict) and block.get("hash") else None

    def transaction_count(self, address: str, block: str) -> int:
        return rpc.transaction_count(self.network, address, block)

    def holding(self, pair: TokenOnNetwork, address: str) -> int:
        if pair.token.native:
            return rpc.native_balance(self.network, address)
        return erc20.balance_of(self.network, pair.token.tokenAddress, address)

    def code(self, address: str) -> str:
        # `pending`: a deployment already sent and not yet mined counts (no second createAccount).
        return str(rpc.rpc_call(self.network, "eth_getCode", [address, "pending"]))


@dataclass(frozen=True)
class CustodySigner:
    """The pool's custody key as an evm.Signer: A with the cosigner, which checks the payment (cosigner_check.py)."""

    key_id: str
    key_address: str
    kind: str
    withdrawal_id: str

    @property
    def address(self) -> str:
        return self.key_address

    def admit(self, time_left_s: float | None) -> None:
        mpc.admit(self.key_id, time_left_s)

    def sign_transaction(self, tx: UnsignedTx) -> bytes:
        context = {"purpose": self.kind, "id": self.withdrawal_id}
        return mpc.sign(self.key_id, self.key_address, digests.transaction(tx), "custody-withdrawals", policy=context)


def _tracker_signer(tx: EvmTransaction) -> CustodySigner:
    """The signer of a withdrawal's transaction (or its deployment) signed again at its nonce by the engine (a
    re-pricing); its cosigner signs only the same payment at the nonce it first signed for the withdrawal, and at
    most 3 deployments per withdrawal (cosigner_check.py)."""
    return CustodySigner(tx.walletId.removeprefix(OWNER_PREFIX), tx.sender, tx.kind, tx.ref or "")


def _on_settled(tx: EvmTransaction) -> bool:
    """The engine's tracker found the withdrawal's transaction settled (mined, failed, dropped): the withdrawal
    settles on it. Whether the withdrawal is done with it (the tracker then stops reporting)."""
    record = withdrawals.read(tx.ref) if tx.ref else None
    if record is None or record.status != "sent" or record.txHash != tx.hash:
        return True  # ended, or on another transaction now
    return settle(record, NodeReader(accepted(record.network, record.tokenCode).evm), tx, tracked=True)


# The withdrawals' transactions (and the deployments of their deposit addresses, which go just before): the engine
# re-prices them (never fills their gaps: a withdrawal's nonce is reserved) and reports each settled withdrawal
# transaction to its withdrawal, on the transaction's one chain of follow-ups.
WITHDRAWAL_SENDS = engine.Owner(
    kinds=frozenset({"withdrawal", "deploy"}), signer=_tracker_signer, fills_gaps=False, on_settled=_on_settled
)


def process(withdrawal_id: str) -> None:
    record = withdrawals.read(withdrawal_id)
    if record is None or record.status in Withdrawal.machine.final:
        return
    reader = NodeReader(accepted(record.network, record.tokenCode).evm)
    if record.status == "sent":
        settle(record, reader)
        return
    if record.status == "sending" and (record.leaseUntil or 0) > clock.epoch():
        withdrawals.enqueue(withdrawal_id, 30)  # another worker holds it: look again later
        return
    claimed = claim(record)
    if claimed is None:
        return
    _send(claimed, reader)


def claim(record: Withdrawal) -> Withdrawal | None:
    """`pending` (or `sending` after its lease ran out) → `sending` under this worker's lease, at the attempt read."""
    changes: dict[str, Any] = {"attempts": record.attempts + 1, "leaseUntil": clock.epoch() + LEASE_S}
    try:
        aws.write(transition(record, "sending", expect={"attempts": record.attempts}, **changes))
    except aws.ConditionFailedError:
        return None  # another worker claimed it
    return moved(record, "sending", **changes)


def _held(record: Withdrawal, to: str, *, remove: tuple[str, ...] = (), **changes: Any) -> aws.TxItem:
    """A move by the worker holding the withdrawal: still `sending` at the attempt it claimed."""
    return transition(record, to, remove=remove, expect={"attempts": record.attempts}, **changes)


def _send(record: Withdrawal, reader: ChainReader) -> None:
    pair = accepted(record.network, record.tokenCode)
    network = pair.evm
    try:
        enough = _holds(reader, pair, record.fromAddress, record.amount)
        if _nonce_passed(record, reader):  # read after the holding: a payment at the nonce that lowered it shows
            _keep(record, "the key's mined nonce passed the withdrawal's before an attempt")
            return
        if not enough:
            fail(record, "insufficient_funds_on_chain")  # (a nonce an earlier attempt reserved is given back)
            return
        if reader.code(record.fromAddress) in ("0x", ""):
            _deploy(record, network)
        record, allocation = _allocation(record, network, reader)
        signer = CustodySigner(record.keyId, record.keyAddress, "withdrawal", record.id)
        call = pipeline.Call(record.fromAddress, 0, expected_call(record.to_item()))
        holding = record  # as claimed, with its nonce: the move to `sent` is conditional on it
        sent = pipeline.send(
            network,
            signer,
            call,
            owner=f"{OWNER_PREFIX}{record.keyId}",
            kind="withdrawal",
            gas=EXECUTE_GAS,
            allocation=allocation,
            also=lambda signed: Plan(items=[_held(holding, "sent", txHash=signed.hash, sentAt=clock.iso_now())]),
            ref=record.id,
        )
        logger.info(
            "withdrawal sent",
            extra={"withdrawalId": record.id, "hash": sent.signed.hash, "confirmed": sent.confirmed},
        )  # from here the engine's tracker follows its transaction and reports it (`_on_settled`)
    except (ApiError, MpcRunError) as exc:
        retry_or_fail(record, exc.code, exc.message)
    except WithdrawalTakenError as exc:
        retry_or_fail(record, exc.code, str(exc))


def _holds(reader: ChainReader, pair: TokenOnNetwork, address: str, amount: int) -> bool:
    return reader.holding(pair, address) >= amount


def _nonce_passed(record: Withdrawal, reader: ChainReader) -> bool:
    """The key's mined nonce is past the withdrawal's: a transaction not recorded for it used the nonce, which may
    be another signature of this very payment."""
    return record.nonce is not None and reader.transaction_count(record.keyAddress, "latest") > record.nonce


def _keep(record: Withdrawal, why: str) -> None:
    """Possibly paid by another signature at its nonce: kept held for an operator's review, never released here,
    and its nonce not given back."""
    logger.error(
        "withdrawal's nonce used by another transaction; held for review",
        extra={"withdrawalId": record.id, "why": why, "alert": True},
    )
    fail(record, "needs_review", release=False)


def retry_or_fail(record: Withdrawal, code: str, message: str) -> None:
    if code == "POLICY_REFUSED":
        # The cosigner read the records differently: never paid, kept held for an operator to look at.
        logger.error("withdrawal refused by the cosigner's policy", extra={"withdrawalId": record.id, "alert": True})
        fail(record, "policy_refused", release=False)
        return
    if code == pipeline.INSUFFICIENT_FUNDS and record.attempts >= GAS_RETRIES:
        fail(record, "gas_wallet_unfunded")
        return
    logger.warning("withdrawal attempt failed; retried", extra={"withdrawalId": record.id, "code": code})
    _unclaim(record)
    withdrawals.enqueue(record.id, 60 if code == pipeline.INSUFFICIENT_FUNDS else 10)


def _unclaim(record: Withdrawal) -> None:
    with contextlib.suppress(aws.ConditionFailedError):
        aws.write(_held(record, "pending", leaseUntil=0))


def _allocation(record: Withdrawal, network: Network, reader: ChainReader) -> tuple[Withdrawal, nonces.Allocation]:
    """The withdrawal's one nonce: reserved on its first attempt in the same write that keeps it on the record, and
    the withdrawal's until it ends (no lease that runs out while the gas wallet waits for funds or a worker is
    down), so every attempt signs at it. A later attempt takes it from the record; the record's write is
    conditional on the reservation (nonces.commit_item)."""
    holder = f"withdrawal:{record.id}"
    sender = record.keyAddress
    if record.nonce is not None:
        return record, nonces.Allocation(sender, network.chainId, record.nonce, holder, reserved=True)
    pending = reader.transaction_count(sender, "pending")

    def keep(allocation: nonces.Allocation) -> list[aws.TxItem]:
        return [_held(record, "sending", nonce=allocation.nonce, reservation=holder)]

    try:
        allocation = nonces.reserve(sender, network.chainId, pending, holder, keep)
    except aws.TransactionCancelledError:
        raise WithdrawalTakenError("Another worker took the withdrawal") from None
    return moved(record, "sending", nonce=allocation.nonce, reservation=holder), allocation


def _deploy(record: Withdrawal, network: Network) -> None:
    assert network.accountFactory is not None
    signer = CustodySigner(record.keyId, record.keyAddress, "deploy", record.id)
    call = pipeline.Call(network.accountFactory, 0, deploy_call(record.keyAddress, record.accountId))
    pipeline.send(
        network, signer, call, owner=f"{OWNER_PREFIX}{record.keyId}", kind="deploy", gas=DEPLOY_GAS, ref=record.id
    )


def settle(record: Withdrawal, reader: ChainReader, tx: EvmTransaction | None = None, *, tracked: bool = False) -> bool:
    """A sent withdrawal: success once mined with its confirmations; failed on proof it never paid. Whether the
    withdrawal is done with its transaction (ended, kept, or back to `pending`); False while it waits.

    `tx`: its transaction's record as the engine's tracker read it; `tracked`: called by that tracker's step
    (`on_settled`), which follows the transaction on: otherwise (a duplicate message, the sweep) a withdrawal that
    waits asks the tracker for a step, whose message ends at once if the record's chain is alive."""
    assert record.txHash is not None
    tx = tx or tracking.read(record.txHash)
    if tx is None:
        withdrawals.enqueue(record.id, 30)
        return False
    pair = accepted(record.network, record.tokenCode)
    if tx.status == "cancelled":  # never signed for a withdrawal (its cosigner signs only its payment): look
        _keep(record, "its transaction was replaced by a no-op")
        return True
    if tx.status == "mined":
        found = confirmation(pair, record, tx, reader)
        if found.verdict == "confirmed":
            succeed(record, paying(tx))
            return True
        if found.verdict in ("reverted", "not_paid"):
            # not_paid: mined, status 1, but no Transfer of the amount: nothing moved
            fail(record, "reverted" if found.verdict == "reverted" else "token_transfer_missing")
            return True
        if found.verdict == "out_of_chain":
            tracking.reorged_out(tx)  # the tracker takes it up again
        elif found.verdict == "remined" and found.block is not None:
            tracking.remined(tx, *found.block)  # follow it to its new block
        _check_later(record, None if tracked else tx)
        return False
    if tx.status == "failed":
        if "reverted" in (tx.failedReason or ""):
            fail(record, "reverted")  # its own transaction used the nonce
        elif pipeline.refused_for_nonce(tx.failedReason):
            # The node has another transaction at the nonce: it could be another signature of this very payment.
            _keep(record, "its broadcast was refused for its nonce")
        elif _nonce_passed(record, reader):
            _keep(record, "refused at broadcast, and the key's mined nonce passed the withdrawal's")
        else:
            fail(record, "refused")
        return True
    if tx.status == "dropped":
        if "before the broadcast" in (tx.failedReason or ""):
            _back_to_pending(record)  # never reached the chain: try again (at the same nonce)
        else:
            # Another transaction took the nonce: it could be another signature of this very payment (a retry's,
            # at the same nonce): held for review, never released blindly.
            _keep(record, "the tracker found its nonce used by another transaction")
        return True
    _check_later(record, None if tracked else tx)
    return False


@dataclass(frozen=True)
class Confirmation:
    """What the chain says of a mined withdrawal transaction: `confirmed`, `wait`, `reverted`, `not_paid`, or a
    reorg the EVM tracker has to follow: `out_of_chain` or `remined` (at `block`: number, hash)."""

    verdict: Literal["confirmed", "wait", "reverted", "not_paid", "out_of_chain", "remined"]
    block: tuple[int, str] | None = None


def confirmation(pair: TokenOnNetwork, record: Withdrawal, tx: EvmTransaction, reader: ChainReader) -> Confirmation:
    """The receipt and its block read again (a reorg may have moved the transaction since the tracker saw it)."""
    network = pair.evm
    try:
        head = reader.head()
        receipt = reader.receipt(tx.minedHash or tx.hash)
        height = rpc.quantity(receipt["blockNumber"]) if receipt is not None else None
        block_hash = reader.block_hash(height) if height is not None else None
    except (ApiError, rpc.RpcError, KeyError, TypeError, ValueError):
        return Confirmation("wait")
    if receipt is None:
        return Confirmation("out_of_chain")
    if height is None or block_hash is None or block_hash != receipt.get("blockHash"):
        return Confirmation("wait")
    if receipt.get("blockHash") != tx.blockHash:
        return Confirmation("remined", (height, str(receipt["blockHash"])))
    if head - height + 1 < max(network.confirmations, 1):
        return Confirmation("wait")
    if receipt.get("status") != "0x1":  # re-mined after a reorg, and failing there
        return Confirmation("reverted")
    if not pair.token.native and not pays(receipt, pair, record):
        return Confirmation("not_paid")
    return Confirmation("confirmed")


def paying(tx: EvmTransaction) -> dict[str, Any]:
    """The paying transaction as `succeed` takes it."""
    return {"hash": tx.minedHash or tx.hash, "blockNumber": tx.blockNumber, "blockHash": tx.blockHash}


def pays(receipt: dict[str, Any], pair: TokenOnNetwork, record: Withdrawal) -> bool:
    """The receipt holds the token's Transfer of exactly the amount from the deposit address to `to` (a token that
    answers `false` instead of reverting would otherwise count as paid). A malformed amount is the node's fault:
    ValueError (looked at again), never "not paid"."""

    def topic(address: str) -> str:
        return "0x" + address.lower().removeprefix("0x").rjust(64, "0")

    wanted = [TRANSFER_TOPIC, topic(record.fromAddress), topic(record.to)]
    for log in receipt.get("logs", []):
        if (
            str(log.get("address", "")).lower() == pair.token.tokenAddress.lower()
            and [str(t).lower() for t in log.get("topics", [])] == wanted
            and rpc.quantity(log.get("data") or "0x0") == record.amount
        ):
            return True
    return False


def _check_later(record: Withdrawal, kick: EvmTransaction | None) -> None:
    """The withdrawal waits on its transaction: counted (which keeps it out of the sweep's hands for a while). The
    engine's tracker reports the transaction's next step (`on_settled`); `kick`: its record, when this look was not
    the tracker's (then a tracker step is asked for, in case the record's chain of follow-ups was lost: a duplicate
    of a live chain's step ends at its step check)."""
    checks = (record.checks or 0) + 1
    with contextlib.suppress(aws.ConditionFailedError):
        aws.write(transition(record, "sent", checks=checks))
    if kick is not None:
        tracking.enqueue(kick.hash, kick.checks, followups.stepped(CHECK_DELAYS_S, checks))


def _back_to_pending(record: Withdrawal) -> None:
    with contextlib.suppress(aws.ConditionFailedError):
        aws.write(transition(record, "pending", expect={"txHash": record.txHash}, remove=("txHash",)))
        withdrawals.enqueue(record.id)


# Failures whose nonce no transaction of the withdrawal used: it is given back when the withdrawal ends.
NONCE_UNUSED = ("insufficient_funds_on_chain", "gas_wallet_unfunded", "policy_refused", "refused")
KEPT = ("failedReason", "failedAt", "released")  # a withdrawal kept for review and then paid is not a failed one


def succeed(record: Withdrawal, tx: dict[str, Any]) -> bool:
    """Paid: `success` in one transaction with the `debit` entry and `withdraw.success`. `tx` is the paying
    transaction (hash, blockNumber, blockHash). From `sent` (the worker), or from a withdrawal kept for review
    (an operator, review.py). False when the withdrawal moved on meanwhile."""
    pair = accepted(record.network, record.tokenCode)
    now = clock.iso_now()
    reviewed = _reviewed(record, now)
    values = {"completedAt": now, "txHash": tx["hash"], "blockNumber": int(tx["blockNumber"]), **reviewed}
    kept = record.to_item()

    def plan() -> Plan:
        balance, entry = ledger.post(
            record.accountId,
            pair,
            ledger.Movement(held=-record.debit),
            "debit",
            "withdrawal paid on chain",
            ("withdrawal", record.id),
        )
        change = transition(
            record,
            "success",
            remove=("reservation", *(k for k in KEPT if k in kept)),
            **values,
            blockHash=tx["blockHash"],
        )
        data = withdrawals.event_data(
            record,
            pair,
            status="success",
            txHash=tx["hash"],
            reason=None,
            completedAt=now,
            **reviewed,
            transaction=_transaction(record, pair, tx),
        )
        event = Event(record.appId, "withdraw.success", f"withdraw.success:{record.id}", data)
        items = [change, balance, *_end_reservation(record, False), *_outputs_spent(record)]
        return Plan(items, [entry], event, replan_on=frozenset({"balance"}))

    try:
        return unit_of_work.commit(plan, on_busy=busy) is not None
    except aws.TransactionCancelledError:  # settled by another worker
        return False


def fail(record: Withdrawal, reason: str, release: bool = True) -> bool:
    """Definitively not paid: `failed` with `withdraw.failed`, and (unless kept for review) the hold goes back to
    activeBalance in the same transaction. A kept one (`released` false) is released by an operator through here
    too (review.py): its second `withdraw.failed` has the id's revision suffix `:r1`. False when the withdrawal
    moved on meanwhile."""
    pair = accepted(record.network, record.tokenCode)
    now = clock.iso_now()
    reviewed = _reviewed(record, now)
    failed_at = record.failedAt or now

    def plan() -> Plan:
        items: list[aws.TxItem] = [
            transition(
                record,
                "failed",
                remove=("reservation",),
                failedReason=reason,
                failedAt=failed_at,
                released=release,
                **reviewed,
            ),
            *_end_reservation(record, reason in NONCE_UNUSED),
            *(_outputs_released(record) if release else []),
        ]
        lists = []
        if release:
            balance, entry = ledger.post(
                record.accountId,
                pair,
                ledger.Movement(active=record.debit, held=-record.debit),
                "release",
                f"withdrawal failed: {reason}",
                ("withdrawal", record.id),
            )
            items.append(balance)
            lists.append(entry)
        data = withdrawals.event_data(
            record, pair, status="failed", reason=reason, failedAt=failed_at, released=release, **reviewed
        )
        event_id = f"withdraw.failed:{record.id}" + (":r1" if reviewed else "")
        event = Event(record.appId, "withdraw.failed", event_id, data)
        return Plan(items, lists, event, replan_on=frozenset({"balance"}))

    try:
        return unit_of_work.commit(plan, on_busy=busy) is not None
    except aws.TransactionCancelledError:  # moved on meanwhile
        return False


def _outputs_spent(record: Withdrawal) -> list[aws.TxItem]:
    """On a UTXO network, a paid withdrawal's outputs: the spent ones leave the account's set, the change (its
    transaction's second output, when there is change) joins it."""
    if not record.inputs or record.txHash is None:
        return []
    items = [
        utxos.spend_item(
            f"spent-{n}", utxos.utxo_key(record.chainId, record.accountId, str(i["txid"]), int(i["vout"])), record.id
        )
        for n, i in enumerate(record.inputs or [])
    ]
    change = int(record.change or 0)
    if change:
        items.append(
            utxos.add_item(
                "change",
                record.chainId,
                record.accountId,
                record.txHash,
                1,
                change,
                record.fromAddress,
                "native-segwit",
            )
        )
    return items


def _outputs_released(record: Withdrawal) -> list[aws.TxItem]:
    """On a UTXO network, the outputs a released withdrawal reserved, given back: it ended without a transaction
    that could spend them."""
    return [
        utxos.release_item(
            f"released-{n}", utxos.utxo_key(record.chainId, record.accountId, str(i["txid"]), int(i["vout"])), record.id
        )
        for n, i in enumerate(record.inputs or [])
    ]


def _reviewed(record: Withdrawal, now: str) -> dict[str, Any]:
    return {"reviewedAt": now} if record.status == "failed" else {}


def _end_reservation(record: Withdrawal, give_back: bool) -> list[aws.TxItem]:
    """The end of the withdrawal's nonce reservation, for the transaction that ends the withdrawal."""
    if not record.reservation or record.nonce is None:
        return []
    allocation = nonces.Allocation(record.keyAddress, record.chainId, record.nonce, record.reservation, True)
    return [nonces.end_item(allocation, give_back)]


def _transaction(record: Withdrawal, pair: TokenOnNetwork, tx: dict[str, Any]) -> dict[str, Any]:
    return {
        "txHash": tx["hash"],
        "chainId": pair.network.chainId,
        "networkCode": pair.network.name,
        "from": record.fromAddress,
        "to": record.to,
        "tokenAddress": pair.token.tokenAddress,
        "tokenSymbol": pair.token.symbol,
        "value": record.amountInDecimals,
        "valueDecimals": pair.token.decimals,
        "blockchainType": pair.blockchain_type,
        "blockNumber": int(tx["blockNumber"]),
    }
