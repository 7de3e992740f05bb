"""The withdrawal worker: pays a withdrawal on chain from the account's own deposit address, then settles it.

The spending address is the account's deposit address (a SimpleAccount of the pool's custody key): the key's own
address (the pool's gas wallet, funded with the native coin by the operator) calls `execute` on it, so funds
never need sweeping and each account's money stays at its own address (docs/custody.md, "Withdrawals").
A deposit address not yet on chain is deployed first by the factory's `createAccount`, sent from the same
address just before (nonce order puts it first).

`process(id)` (SQS `custody-withdrawals`, also re-queued with delays):
* `pending` → `sending` under a lease (a worker that died leaves a lease that runs out; the next one retries);
* the nonce is leased once per withdrawal and kept on its record, so a retry signs at the same nonce (the
  cosigner signs one nonce per withdrawal, policy.py);
* the signed transaction is recorded (evm tracking) in ONE transaction with the withdrawal's move to `sent`
  (`txHash`): never broadcast without that record, never recorded twice;
* `sent`: the EVM tracker follows the transaction; once it is mined with the network's confirmations (block hash
  and, for a token, its Transfer re-checked) the held amount is debited (`withdraw.success`); reverted or refused:
  the hold is released (`withdraw.failed`); dropped before its broadcast: back to `pending`; its nonce used by
  another transaction: `failed` and kept held for review (it may be another signature of the same payment).
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
from chalicelib.platform import aws, clock
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
            _give_back_nonce(record)  # an earlier attempt may have leased one
            _fail(record, "insufficient_funds_on_chain")
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


def _give_back_nonce(record: dict[str, Any]) -> None:
    """A withdrawal that ends without a recorded transaction frees its leased nonce at once (a gap would hold up
    every later transaction of the gas wallet until the lease ran out)."""
    if record.get("nonce") is None or not record.get("lease"):
        return
    allocation = nonces.Allocation(
        str(record["keyAddress"]), int(record["chainId"]), int(record["nonce"]), str(record["lease"])
    )
    try:
        nonces.release(allocation)
    except Exception as exc:  # noqa: BLE001 - the lease runs out instead
        logger.warning(
            "withdrawal nonce not given back", extra={"withdrawalId": record["id"], "errorType": type(exc).__name__}
        )


def _retry_or_fail(record: dict[str, Any], code: str, message: str) -> None:
    if code in ("POLICY_REFUSED", pipeline.INSUFFICIENT_FUNDS) and (
        code == "POLICY_REFUSED" or int(record.get("attempts", 0)) >= GAS_RETRIES
    ):
        _give_back_nonce(record)
    if code == "POLICY_REFUSED":
        # The cosigner read the records differently: never paid, kept held for an operator to look at.
        logger.error("withdrawal refused by the cosigner's policy", extra={"withdrawalId": record["id"], "alert": True})
        _fail(record, "policy_refused", release=False)
        return
    if code == pipeline.INSUFFICIENT_FUNDS and int(record.get("attempts", 0)) >= GAS_RETRIES:
        _fail(record, "gas_wallet_unfunded")
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
    """The withdrawal's one nonce: leased on its first attempt and kept on its record; a later attempt takes the
    same nonce again (given back by the failed attempt, or still leased to it)."""
    pending = int(rpc_call(network, "eth_getTransactionCount", [sender, "pending"]), 16)
    if "nonce" in record:
        mine = int(record["nonce"])
        lease = record.get("lease")  # absent once a record took it (then dropped before its broadcast)
        item = aws.table(nonces.TABLE).get_item(Key=nonces.key(sender, network.chainId), ConsistentRead=True)
        if lease and str(lease) in item.get("Item", {}).get("inflight", set()):
            return nonces.Allocation(sender, network.chainId, mine, str(lease))
        again = nonces.allocate(sender, network.chainId, pending)
        if again.nonce == mine:
            return _keep(record, again)
        nonces.release(again)
        latest = int(rpc_call(network, "eth_getTransactionCount", [sender, "latest"]), 16)
        if latest > mine:
            # Its nonce was used by a transaction that is not recorded here: it may even be this withdrawal's own
            # signature, broadcast by someone else. Neither retried nor released: held for review.
            logger.error(
                "withdrawal nonce used elsewhere; held for review", extra={"withdrawalId": record["id"], "alert": True}
            )
            _fail(record, "needs_review", release=False)
            return None
        _unclaim(record)
        withdrawals.enqueue(str(record["id"]), 30)  # its nonce is still leased to an earlier attempt
        return None
    return _keep(record, nonces.allocate(sender, network.chainId, pending))


def _keep(record: dict[str, Any], allocation: nonces.Allocation) -> nonces.Allocation:
    values = {"nonce": allocation.nonce, "lease": allocation.lease}
    try:
        aws.write(withdrawals.move(record, "sending", _holding(record), values))
    except aws.ConditionFailedError:
        nonces.release(allocation)
        raise ApiError(409, "WITHDRAWAL_TAKEN", "Another worker took the withdrawal") from None
    record.update(values)
    return allocation


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
            _succeed(record, tx)
        elif verdict == "reverted":
            _fail(record, "reverted")
        elif verdict == "not_paid":
            _fail(record, "token_transfer_missing")  # mined, status 1, but no Transfer of the amount: nothing moved
        else:
            _check_later(record)
        return
    if status == "failed":
        _fail(record, "reverted" if "reverted" in str(tx.get("failedReason", "")) else "refused")
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
            _fail(record, "needs_review", release=False)
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
    if not pair.token.native and not _pays(receipt, pair, record):
        return "not_paid"
    return "confirmed"


def _retrack(tx: dict[str, Any], values: dict[str, Any]) -> None:
    with contextlib.suppress(aws.ItemBusyError, aws.ConditionFailedError):
        if tracking._update(tx, values) and values.get("status") == "pending":
            tracking.enqueue(str(tx["hash"]), int(tx.get("checks", 0)), tracking.FIRST_CHECK_S)


def _pays(receipt: dict[str, Any], pair: Accepted, record: dict[str, Any]) -> bool:
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
    withdrawals.enqueue(str(record["id"]), CHECK_DELAYS_S[min(checks + 1, len(CHECK_DELAYS_S) - 1)])


def _back_to_pending(record: dict[str, Any]) -> None:
    sent = aws.Condition("#s = :sent AND txHash = :h", {"#s": "status"}, {":sent": "sent", ":h": record["txHash"]})
    with contextlib.suppress(aws.ConditionFailedError):
        aws.write(withdrawals.move(record, "pending", sent, remove=("txHash", "lease")))
        withdrawals.enqueue(str(record["id"]))


def _succeed(record: dict[str, Any], tx: dict[str, Any]) -> None:
    pair = accepted(str(record["network"]), str(record["tokenCode"]))
    amount = int(record["amountInDecimals"])
    now = clock.iso_now()

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
            aws.Condition("#s = :sent", {"#s": "status"}, {":sent": "sent"}),
            {"completedAt": now, "blockNumber": int(tx["blockNumber"]), "blockHash": tx["blockHash"]},
        )
        data = withdrawals.event_data(
            {**record, "status": "success"}, pair, completedAt=now, transaction=_transaction(record, pair, tx)
        )
        event = Event(str(record["appId"]), "withdraw.success", f"withdraw.success:{record['id']}", data)
        return Plan([change, balance, withdrawals.closed_marker(str(record["id"]))], [entry], event)

    with contextlib.suppress(aws.TransactionCancelledError):  # settled by another worker
        commit(plan)


def _fail(record: dict[str, Any], reason: str, release: bool = True) -> None:
    """Definitively not paid: failed, and (unless held for review) the hold goes back to activeBalance."""
    pair = accepted(str(record["network"]), str(record["tokenCode"]))
    amount = int(record["amountInDecimals"])
    now = clock.iso_now()

    def plan() -> Plan:
        items: list[aws.TxItem] = [
            withdrawals.move(
                record,
                "failed",
                aws.Condition("#s = :was", {"#s": "status"}, {":was": record["status"]}),
                {"failedReason": reason, "failedAt": now, "released": release},
            ),
            withdrawals.closed_marker(str(record["id"])),
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
        data = withdrawals.event_data(
            {**record, "status": "failed"}, pair, reason=reason, failedAt=now, released=release
        )
        event = Event(str(record["appId"]), "withdraw.failed", f"withdraw.failed:{record['id']}", data)
        return Plan(items, lists, event)

    with contextlib.suppress(aws.TransactionCancelledError):  # moved on meanwhile
        commit(plan)


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
