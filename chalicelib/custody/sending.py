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
  one nonce per withdrawal, policy.py), and no other send of the key's address can be handed it;
* the signed transaction is recorded (evm tracking) in ONE transaction with the withdrawal's move to `sent`
  (`txHash`): never broadcast without that record, never recorded twice;
* `sent`: the EVM tracker follows the transaction; once it is mined with the network's confirmations (block hash
  and, for a token, its Transfer re-checked) the held amount is debited (`withdraw.success`); reverted or refused:
  the hold is released (`withdraw.failed`); dropped before its broadcast: back to `pending`; its nonce used by
  another transaction: `failed` and kept held for review (it may be another signature of the same payment), which
  an operator settles or releases through `succeed`/`fail` as well (review.py);
* the transaction that ends a withdrawal also ends its nonce's reservation, giving the nonce back when no
  transaction of the withdrawal used it.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass
from typing import Any

from chalicelib.custody import ledger, policy, withdrawals
from chalicelib.custody.policy import deploy_call, expected_call
from chalicelib.custody.store import Event, Plan, commit, get
from chalicelib.custody.tokens import Accepted, accepted
from chalicelib.evm import nonces, pipeline, tracking
from chalicelib.evm.transactions import UnsignedTx
from chalicelib.mpc.service import MpcRunError
from chalicelib.platform import aws, clock, followups
from chalicelib.platform.chain import RpcError, rpc_call
from chalicelib.platform.errors import ApiError
from chalicelib.platform.logging import logger
from chalicelib.platform.networks import Network

LEASE_S = nonces.LEASE_S  # a worker holds a withdrawal as long as a send may hold its nonce
CHECK_DELAYS_S = (2, 4, 8, 15, 30, 60, 120, 300, 900)
EXECUTE_GAS = 200_000  # estimated against an undeployed account the call would look free: fixed instead
DEPLOY_GAS = 400_000
GAS_RETRIES = 10  # the gas wallet without native coin: retried this many times (a minute apart), then failed


@dataclass(frozen=True)
class CustodySigner:
    """The pool's custody key as an evm.Signer: A with the cosigner, which checks the transaction (policy.py)."""

    key_id: str
    key_address: str
    kind: str
    withdrawal_id: str

    @property
    def address(self) -> str:
        return self.key_address

    def sign_digest(self, digest: bytes, tx: UnsignedTx | None = None) -> bytes:
        from chalicelib.mpc import service as mpc

        if tx is None:
            raise ValueError("custody keys sign transactions only")
        payload = {"kind": self.kind, "id": self.withdrawal_id, "tx": policy.describe(tx)}
        return mpc.sign(self.key_id, self.key_address, digest, "custody-withdrawals", policy=payload)


def process(withdrawal_id: str) -> None:
    record = get(**withdrawals.key(withdrawal_id))
    if record is None or record["status"] in ("success", "failed"):
        return
    if record["status"] == "sent":
        settle(record)
        return
    if record["status"] == "sending" and int(record.get("leaseUntil", 0)) > clock.epoch():
        withdrawals.enqueue(withdrawal_id, 30)  # another worker holds it: look again later
        return
    record = _claim(record)
    if record is None:
        return
    _send(record)


def _claim(record: dict[str, Any]) -> dict[str, Any] | None:
    attempt = int(record.get("attempts", 0)) + 1
    values = {"attempts": attempt, "leaseUntil": clock.epoch() + LEASE_S}
    seen = aws.Condition(
        "#s = :s AND attempts = :a", {"#s": "status"}, {":s": record["status"], ":a": int(record.get("attempts", 0))}
    )
    try:
        aws.write(withdrawals.move(record, "sending", seen, values))
    except aws.ConditionFailedError:
        return None  # another worker claimed it
    return {**record, **values, "status": "sending"}


def _send(record: dict[str, Any]) -> None:
    pair = accepted(str(record["network"]), str(record["tokenCode"]))
    network = pair.network
    amount = int(record["amountInDecimals"])
    deposit_address = str(record["fromAddress"])
    key_address = str(record["keyAddress"])
    try:
        if not _holds(network, pair, deposit_address, amount):
            fail(record, "insufficient_funds_on_chain")  # (a nonce an earlier attempt reserved is given back)
            return
        if _code(network, deposit_address) in ("0x", "", None):
            _deploy(record, network, key_address)
        allocation = _allocation(record, network, key_address)
        if allocation is None:
            return
        signer = CustodySigner(str(record["keyId"]), key_address, "withdrawal", str(record["id"]))
        call = pipeline.Call(deposit_address, 0, expected_call(record))
        sent = pipeline.send(
            network,
            signer,
            call,
            owner=f"custody:{record['keyId']}",
            kind="withdrawal",
            gas=EXECUTE_GAS,
            allocation=allocation,
            also=lambda signed: [_sent_item(record, signed.hash)],
        )
        logger.info(
            "withdrawal sent",
            extra={"withdrawalId": record["id"], "hash": sent.signed.hash, "confirmed": sent.confirmed},
        )
        withdrawals.enqueue(str(record["id"]), CHECK_DELAYS_S[0])
    except ApiError as exc:
        _retry_or_fail(record, exc.code, exc.message)
    except MpcRunError as exc:
        _retry_or_fail(record, exc.code, exc.message)


def _retry_or_fail(record: dict[str, Any], code: str, message: str) -> None:
    if code == "POLICY_REFUSED":
        # The cosigner read the records differently: never paid, kept held for an operator to look at.
        logger.error("withdrawal refused by the cosigner's policy", extra={"withdrawalId": record["id"], "alert": True})
        fail(record, "policy_refused", release=False)
        return
    if code == pipeline.INSUFFICIENT_FUNDS and int(record.get("attempts", 0)) >= GAS_RETRIES:
        fail(record, "gas_wallet_unfunded")
        return
    logger.warning("withdrawal attempt failed; retried", extra={"withdrawalId": record["id"], "code": code})
    _unclaim(record)
    withdrawals.enqueue(str(record["id"]), 60 if code == pipeline.INSUFFICIENT_FUNDS else 10)


def _unclaim(record: dict[str, Any]) -> None:
    with contextlib.suppress(aws.ConditionFailedError):
        aws.write(withdrawals.move(record, "pending", _holding(record), {"leaseUntil": 0}))


def _holding(record: dict[str, Any]) -> aws.Condition:
    """This worker's hold of the withdrawal: still `sending` at the attempt it claimed."""
    return aws.Condition(
        "#s = :sending AND attempts = :a", {"#s": "status"}, {":sending": "sending", ":a": int(record["attempts"])}
    )


def _allocation(record: dict[str, Any], network: Network, sender: str) -> nonces.Allocation | None:
    """The withdrawal's one nonce: reserved on its first attempt in the same write that keeps it on the record, and
    the withdrawal's until it ends (no lease that runs out while the gas wallet waits for funds or a worker is
    down), so every attempt signs at it."""
    holder = f"withdrawal:{record['id']}"
    chain_id = network.chainId
    if "nonce" in record:
        mine = nonces.Allocation(sender, chain_id, int(record["nonce"]), holder, reserved=True)
        if record.get("reservation") == holder and nonces.holds(mine):
            return mine
        return _reclaim(record, network, mine)
    pending = int(rpc_call(network, "eth_getTransactionCount", [sender, "pending"]), 16)

    def keep(allocation: nonces.Allocation) -> list[aws.TxItem]:
        values = {"nonce": allocation.nonce, "reservation": holder}
        return [withdrawals.move(record, "sending", _holding(record), values)]

    try:
        allocation = nonces.reserve(sender, chain_id, pending, holder, keep)
    except aws.TransactionCancelledError:
        raise ApiError(409, "WITHDRAWAL_TAKEN", "Another worker took the withdrawal") from None
    record.update({"nonce": allocation.nonce, "reservation": holder})
    return allocation


def _reclaim(record: dict[str, Any], network: Network, mine: nonces.Allocation) -> nonces.Allocation | None:
    """A withdrawal that kept its nonce without a reservation (under the lease of an earlier version): reserved
    again if it is still free for it. If the chain has used it, by a transaction not recorded here (it may even be
    this withdrawal's own signature, broadcast by someone else), it is held for review; else looked at later."""
    latest = int(rpc_call(network, "eth_getTransactionCount", [mine.address, "latest"]), 16)
    if latest > mine.nonce:
        logger.error(
            "withdrawal nonce used elsewhere; held for review", extra={"withdrawalId": record["id"], "alert": True}
        )
        fail(record, "needs_review", release=False)
        return None
    lease = record.get("lease")
    values = {"reservation": mine.lease}
    again = nonces.reclaim(
        mine.address,
        mine.chain_id,
        mine.nonce,
        mine.lease,
        str(lease) if lease else None,
        lambda _: [withdrawals.move(record, "sending", _holding(record), values, remove=("lease",))],
    )
    if again is not None:
        record.update(values)
        return again
    _unclaim(record)
    withdrawals.enqueue(str(record["id"]), 30)  # its nonce is someone else's for now
    return None


def _deploy(record: dict[str, Any], network: Network, key_address: str) -> None:
    assert network.accountFactory is not None
    signer = CustodySigner(str(record["keyId"]), key_address, "deploy", str(record["id"]))
    call = pipeline.Call(network.accountFactory, 0, deploy_call(key_address, str(record["accountId"])))
    pipeline.send(network, signer, call, owner=f"custody:{record['keyId']}", kind="deploy", gas=DEPLOY_GAS)


def _sent_item(record: dict[str, Any], tx_hash: str) -> aws.TxItem:
    return withdrawals.move(record, "sent", _holding(record), {"txHash": tx_hash, "sentAt": clock.iso_now()})


def settle(record: dict[str, Any]) -> None:
    """A sent withdrawal: success once mined with its confirmations; failed on proof it never paid."""
    tx = tracking.get(str(record["txHash"]))
    pair = accepted(str(record["network"]), str(record["tokenCode"]))
    if tx is None:
        withdrawals.enqueue(str(record["id"]), 30)
        return
    status = tx["status"]
    if status == "mined":
        verdict = _confirmation(pair, record, tx)
        if verdict == "confirmed":
            succeed(record, tx)
        elif verdict == "reverted":
            fail(record, "reverted")
        elif verdict == "not_paid":
            fail(record, "token_transfer_missing")  # mined, status 1, but no Transfer of the amount: nothing moved
        else:
            _check_later(record)
        return
    if status == "failed":
        fail(record, "reverted" if "reverted" in str(tx.get("failedReason", "")) else "refused")
        return
    if status == "dropped":
        if "before the broadcast" in str(tx.get("failedReason", "")):
            _back_to_pending(record)  # never reached the chain: try again (at the same nonce)
        else:
            # Another transaction took the nonce: it could be another signature of this very payment (a retry's,
            # at the same nonce): held for review, never released blindly.
            logger.error(
                "withdrawal's nonce used by another transaction; held for review",
                extra={"withdrawalId": record["id"], "alert": True},
            )
            fail(record, "needs_review", release=False)
        return
    _check_later(record)


def _confirmation(pair: Accepted, record: dict[str, Any], tx: dict[str, Any]) -> str:
    """`confirmed`, `wait`, `reverted` or `not_paid`. The receipt and its block are read again: a reorg that took the
    transaction out is handed back to the EVM tracker (pending again: it re-broadcasts and follows it)."""
    network = pair.network
    try:
        head = int(rpc_call(network, "eth_blockNumber", []), 16)
        receipt = rpc_call(network, "eth_getTransactionReceipt", [tx["hash"]])
        height = int(receipt["blockNumber"], 16) if isinstance(receipt, dict) else None
        block = rpc_call(network, "eth_getBlockByNumber", [hex(height), False]) if height is not None else None
    except (ApiError, RpcError, TypeError, ValueError):
        return "wait"
    if not isinstance(receipt, dict) or not isinstance(block, dict) or block.get("hash") != receipt.get("blockHash"):
        if receipt is None:
            _retrack(tx, {"status": "pending"})  # out of the chain: the tracker takes it up again
        return "wait"
    if receipt.get("blockHash") != tx.get("blockHash"):
        _retrack(tx, {"blockNumber": height, "blockHash": receipt["blockHash"]})  # re-mined elsewhere: follow
        return "wait"
    if height is None or head - height + 1 < max(network.confirmations, 1):
        return "wait"
    if receipt.get("status") != "0x1":  # re-mined after a reorg, and failing there
        return "reverted"
    if not pair.token.native and not pays(receipt, pair, record):
        return "not_paid"
    return "confirmed"


def _retrack(tx: dict[str, Any], values: dict[str, Any]) -> None:
    with contextlib.suppress(aws.ItemBusyError, aws.ConditionFailedError):
        if tracking._update(tx, values) and values.get("status") == "pending":
            tracking.enqueue(str(tx["hash"]), int(tx.get("checks", 0)), tracking.FIRST_CHECK_S)


def pays(receipt: dict[str, Any], pair: Accepted, record: dict[str, Any]) -> bool:
    """The receipt holds the token's Transfer of exactly the amount from the deposit address to `to` (a token that
    answers `false` instead of reverting would otherwise count as paid)."""
    from chalicelib.custody.watcher import TRANSFER_TOPIC

    def topic(address: str) -> str:
        return "0x" + address.lower().removeprefix("0x").rjust(64, "0")

    wanted = [TRANSFER_TOPIC, topic(str(record["fromAddress"])), topic(str(record["to"]))]
    for log in receipt.get("logs", []):
        if (
            str(log.get("address", "")).lower() == pair.token.tokenAddress.lower()
            and [str(t).lower() for t in log.get("topics", [])] == wanted
            and int(log.get("data") or "0x0", 16) == int(record["amountInDecimals"])
        ):
            return True
    return False


def _check_later(record: dict[str, Any]) -> None:
    checks = int(record.get("checks", 0))
    sent = aws.Condition("#s = :sent", {"#s": "status"}, {":sent": "sent"})
    with contextlib.suppress(aws.ConditionFailedError):
        aws.write(withdrawals.move(record, "sent", sent, {"checks": checks + 1}))
    withdrawals.enqueue(str(record["id"]), followups.stepped(CHECK_DELAYS_S, checks + 1))


def _back_to_pending(record: dict[str, Any]) -> None:
    sent = aws.Condition("#s = :sent AND txHash = :h", {"#s": "status"}, {":sent": "sent", ":h": record["txHash"]})
    with contextlib.suppress(aws.ConditionFailedError):
        aws.write(withdrawals.move(record, "pending", sent, remove=("txHash", "lease")))
        withdrawals.enqueue(str(record["id"]))


# Failures whose nonce no transaction of the withdrawal used: it is given back when the withdrawal ends.
NONCE_UNUSED = ("insufficient_funds_on_chain", "gas_wallet_unfunded", "policy_refused", "refused")


def succeed(record: dict[str, Any], tx: dict[str, Any]) -> bool:
    """Paid: `success` in one transaction with the `debit` entry and `withdraw.success`. `tx` is the paying
    transaction (hash, blockNumber, blockHash). From `sent` (the worker), or from a withdrawal kept for review
    (an operator, review.py). False when the withdrawal moved on meanwhile."""
    pair = accepted(str(record["network"]), str(record["tokenCode"]))
    amount = int(record["amountInDecimals"])
    now = clock.iso_now()
    kept = ("failedReason", "failedAt", "released")  # a withdrawal kept for review is not a failed one any more
    paid = {**{k: v for k, v in record.items() if k not in kept}, "status": "success", "txHash": tx["hash"]}
    values = {"completedAt": now, "txHash": tx["hash"], "blockNumber": int(tx["blockNumber"]), **_reviewed(record, now)}

    def plan() -> Plan:
        balance, entry = ledger.post(
            str(record["accountId"]),
            pair,
            ledger.Movement(held=-amount),
            "debit",
            "withdrawal paid on chain",
            ("withdrawal", str(record["id"])),
        )
        change = withdrawals.move(
            record,
            "success",
            _as_read(record),
            {**values, "blockHash": tx["blockHash"]},
            remove=("reservation", *(k for k in kept if k in record)),
        )
        extra = {k: v for k, v in values.items() if k in ("completedAt", "reviewedAt")}
        data = withdrawals.event_data(paid, pair, **extra, transaction=_transaction(record, pair, tx))
        event = Event(str(record["appId"]), "withdraw.success", f"withdraw.success:{record['id']}", data)
        items = [change, balance, withdrawals.closed_marker(str(record["id"])), *_end_reservation(record, False)]
        return Plan(items, [entry], event)

    try:
        return commit(plan) is not None
    except aws.TransactionCancelledError:  # settled by another worker
        return False


def fail(record: dict[str, Any], reason: str, release: bool = True) -> bool:
    """Definitively not paid: `failed` with `withdraw.failed`, and (unless kept for review) the hold goes back to
    activeBalance in the same transaction. A kept one (`released` false) is released by an operator through here
    too (review.py): its second `withdraw.failed` has the id's revision suffix `:r1`. False when the withdrawal
    moved on meanwhile."""
    pair = accepted(str(record["network"]), str(record["tokenCode"]))
    amount = int(record["amountInDecimals"])
    now = clock.iso_now()
    reviewed = _reviewed(record, now)
    values = {"failedReason": reason, "failedAt": record.get("failedAt") or now, "released": release, **reviewed}

    def plan() -> Plan:
        items: list[aws.TxItem] = [
            withdrawals.move(record, "failed", _as_read(record), values, remove=("reservation",)),
            withdrawals.closed_marker(str(record["id"])),
            *_end_reservation(record, reason in NONCE_UNUSED),
        ]
        lists = []
        if release:
            balance, entry = ledger.post(
                str(record["accountId"]),
                pair,
                ledger.Movement(active=amount, held=-amount),
                "release",
                f"withdrawal failed: {reason}",
                ("withdrawal", str(record["id"])),
            )
            items.append(balance)
            lists.append(entry)
        extra = {k: v for k, v in values.items() if k != "failedReason"}
        data = withdrawals.event_data({**record, "status": "failed"}, pair, reason=reason, **extra)
        event_id = f"withdraw.failed:{record['id']}" + (":r1" if reviewed else "")
        return Plan(items, lists, Event(str(record["appId"]), "withdraw.failed", event_id, data))

    try:
        return commit(plan) is not None
    except aws.TransactionCancelledError:  # moved on meanwhile
        return False


def _as_read(record: dict[str, Any]) -> aws.Condition:
    """The withdrawal is still as read: in its status (a worker's), or failed and kept for review (an operator's)."""
    if record["status"] == "failed":
        names = {"#s": "status", "#r": "released"}
        return aws.Condition("#s = :s AND #r = :kept", names, {":s": "failed", ":kept": False})
    return aws.Condition("#s = :s", {"#s": "status"}, {":s": record["status"]})


def _reviewed(record: dict[str, Any], now: str) -> dict[str, Any]:
    return {"reviewedAt": now} if record["status"] == "failed" else {}


def _end_reservation(record: dict[str, Any], give_back: bool) -> list[aws.TxItem]:
    """The end of the withdrawal's nonce reservation, for the transaction that ends the withdrawal."""
    if not record.get("reservation"):
        return []
    allocation = nonces.Allocation(
        str(record["keyAddress"]), int(record["chainId"]), int(record["nonce"]), str(record["reservation"]), True
    )
    return [nonces.end_item(allocation, give_back)]


def _transaction(record: dict[str, Any], pair: Accepted, tx: dict[str, Any]) -> dict[str, Any]:
    return {
        "txHash": tx["hash"],
        "chainId": pair.network.chainId,
        "networkCode": pair.network.name,
        "from": record["fromAddress"],
        "to": record["to"],
        "tokenAddress": pair.token.tokenAddress,
        "tokenSymbol": pair.token.symbol,
        "value": record["amountInDecimals"],
        "valueDecimals": pair.token.decimals,
        "blockchainType": "evm",
        "blockNumber": int(tx["blockNumber"]),
    }


def _holds(network: Network, pair: Accepted, address: str, amount: int) -> bool:
    from chalicelib.evm import abi

    if pair.token.native:
        return int(rpc_call(network, "eth_getBalance", [address, "latest"]), 16) >= amount
    result = rpc_call(
        network, "eth_call", [{"to": pair.token.tokenAddress, "data": "0x" + abi.balance_of(address).hex()}, "latest"]
    )
    return abi.decode_uint(abi.result_bytes(result)) >= amount


def _code(network: Network, address: str) -> str:
    # `pending`: a deployment already sent and not yet mined counts (no second createAccount).
    return str(rpc_call(network, "eth_getCode", [address, "pending"]))
