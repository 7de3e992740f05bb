"""The withdrawal worker on Bitcoin: signs the withdrawal's transaction with the account's child of the pool's
Bitcoin key, records it, broadcasts it, and settles the withdrawal once it has the network's confirmations.

* `pending` → `sending` under a lease (as on EVM: sending.claim);
* the transaction is built from the record (the outputs reserved at the request, the amount to `to`, the change to
  the account's native SegWit address: bitcoin_spends.unsigned) with each spent output's own transaction, which
  the cosigner checks the output against; each input is signed in a full run (an HD child never presigns);
* the signed transaction is recorded (`rawTx`, `txHash` the txid, and the marker by which the watcher knows the
  change output for the withdrawal's own) in ONE write with the move to `sent`, and only then broadcast: a crash
  between signing and the record leaves nothing on the chain (the next attempt signs again); a crash after it
  is followed by the SAME transaction broadcast again, never a new one;
* `sent`: the node's `getrawtransaction` (txindex) says where it is. In a block on the main chain with the
  network's confirmations: `success` (the amount and the fee leave the held balance, the spent outputs leave
  the account's set and the change joins it, `withdraw.success`), in one transaction. Unknown to the node (dropped,
  or a reorg's casualty): broadcast again as it is; refused while an output it spends is spent by another
  transaction, on MAX_CONFLICTS checks: `failed` with `needs_review`, kept held for an operator (any other refusal,
  or no node answering, is tried again).
"""

from __future__ import annotations

import contextlib
from typing import Any, Literal

from chalicelib.bitcoin import rpc
from chalicelib.bitcoin.transactions import input_payload
from chalicelib.custody import pool_keys, utxos
from chalicelib.custody.store import TABLE
from chalicelib.custody.tokens import accepted
from chalicelib.custody.withdrawals import bitcoin_spends, sending
from chalicelib.custody.withdrawals import lifecycle as withdrawals
from chalicelib.custody.withdrawals.records import Withdrawal
from chalicelib.mpc import payloads
from chalicelib.mpc import service as mpc
from chalicelib.mpc.service import MpcRunError
from chalicelib.platform import aws, clock, followups
from chalicelib.platform.errors import ApiError
from chalicelib.platform.logging import logger
from chalicelib.platform.networks import BitcoinNetwork
from chalicelib.platform.transitions import transition

CHECK_DELAYS_S = (5, 10, 20, 30, 60, 120, 300)
MAX_CONFLICTS = 3  # refusals with an output spent elsewhere, seen on separate checks, before it is held for review
ALREADY_KNOWN = ("already have transaction", "already in block chain", "already exists", "txn-already")
ALREADY_KNOWN_CODES = (-27,)  # Bitcoin Core: RPC_VERIFY_ALREADY_IN_CHAIN


def process(withdrawal_id: str) -> None:
    record = withdrawals.read(withdrawal_id)
    if record is None or record.status in Withdrawal.machine.final:
        return
    if record.status == "sent":
        settle(record)
        return
    if record.status == "sending" and (record.leaseUntil or 0) > clock.epoch():
        withdrawals.enqueue(withdrawal_id, 30)  # another worker holds it: look again later
        return
    claimed = sending.claim(record)
    if claimed is not None:
        _send(claimed)


def network_of(record: Withdrawal) -> BitcoinNetwork:
    network = accepted(record.network, record.tokenCode).network
    if not isinstance(network, BitcoinNetwork):
        raise TypeError(f"{record.network} is not a Bitcoin network")
    return network


def _send(record: Withdrawal) -> None:
    network = network_of(record)
    try:
        previous = {}
        for txid in sorted({str(i["txid"]) for i in record.inputs or []}):
            raw = rpc.raw_transaction(network, txid)
            if raw is None:
                raise ApiError(503, "OUTPUT_UNKNOWN", f"the node has no transaction {txid}")
            previous[txid] = raw
        child = bytes.fromhex(str(record.childKey))
        tx = bitcoin_spends.unsigned(
            network, list(record.inputs or []), child, record.to, record.amount, int(record.change or 0), previous
        )
        path = pool_keys.bitcoin_path(record.accountId, record.chainId)
        context = {"purpose": "withdrawal", "id": record.id}
        signatures = [
            mpc.sign(
                record.keyId,
                record.keyAddress,
                payloads.bitcoin_input(input_payload(tx, index)),
                "custody-withdrawals",
                policy=context,
                derivation=path,
            )
            for index in range(len(tx.inputs))
        ]
        signed = tx.assemble(signatures)
    except (ApiError, MpcRunError) as exc:
        sending.retry_or_fail(record, exc.code, exc.message)
        return
    except rpc.RpcError as exc:  # the node refused a read: tried again
        sending.retry_or_fail(record, f"NODE_ERROR_{exc.code}", str(exc))
        return
    now = clock.iso_now()
    try:
        aws.transact(
            [
                transition(
                    record,
                    "sent",
                    expect={"attempts": record.attempts},
                    txHash=signed.txid,
                    rawTx=signed.raw.hex(),
                    sentAt=now,
                ),
                aws.put(
                    "marker",
                    TABLE,
                    {
                        **utxos.spend_key(record.chainId, signed.txid),
                        "withdrawalId": record.id,
                        "accountId": record.accountId,
                    },
                ),
            ]
        )
    except aws.TransactionCancelledError:
        return  # another worker took it meanwhile: its own transaction stands, this one was never broadcast
    logger.info("bitcoin withdrawal signed", extra={"withdrawalId": record.id, "txid": signed.txid})
    _broadcast(network, record.id, signed.raw)  # whatever it answers, the check that follows decides
    withdrawals.enqueue(record.id, CHECK_DELAYS_S[0])


def _broadcast(network: BitcoinNetwork, withdrawal_id: str, raw: bytes) -> Literal["sent", "refused", "unreachable"]:
    """`sent` once the node has the transaction; `refused` by the node; `unreachable`: no node answered."""
    try:
        rpc.broadcast(network, raw)
    except rpc.RpcError as exc:
        if exc.code in ALREADY_KNOWN_CODES or any(known in str(exc).lower() for known in ALREADY_KNOWN):
            return "sent"
        logger.warning("bitcoin broadcast refused", extra={"withdrawalId": withdrawal_id, "code": exc.code})
        return "refused"
    except ApiError:
        return "unreachable"
    return "sent"


def _conflicted(network: BitcoinNetwork, record: Withdrawal) -> bool:
    """Whether an output the withdrawal spends is spent (in a block or the mempool) by another transaction: then
    its own can never be mined. A refusal for anything else (a node that restarted, its mempool's minimum fee) is
    tried again."""
    for spent in record.inputs or []:
        if rpc.unspent(network, str(spent["txid"]), int(spent["vout"]), mempool=True) is None:
            return True
    return False


def settle(record: Withdrawal) -> bool:
    """A sent withdrawal: `success` once its transaction has the network's confirmations on the main chain, or
    broadcast again while the node does not have it. Whether the withdrawal ended."""
    assert record.txHash is not None and record.rawTx is not None
    network = network_of(record)
    try:
        found = rpc.transaction(network, record.txHash)
        head = rpc.head(network)
    except (ApiError, rpc.RpcError):
        _check_later(record)
        return False
    mined_in = found.get("blockhash") if found else None
    if found is None:  # dropped, or never reached the node: the same bytes again
        if _broadcast(network, record.id, bytes.fromhex(record.rawTx)) == "refused" and _conflicted(network, record):
            conflicts = (record.conflicts or 0) + 1
            if conflicts >= MAX_CONFLICTS:
                logger.error(
                    "bitcoin withdrawal's outputs spent by another transaction; held for review",
                    extra={"withdrawalId": record.id, "alert": True},
                )
                return sending.fail(record, "needs_review", release=False)
            _check_later(record, conflicts=conflicts)
            return False
        _check_later(record)
        return False
    if not mined_in:
        _check_later(record)  # in the mempool
        return False
    height = head - int(found.get("confirmations", 0)) + 1
    if height < 0 or rpc.block_hashes(network, [height])[0] != mined_in:
        _check_later(record)  # the node's view is moving
        return False
    if head - height + 1 < max(network.confirmations, 1):
        _check_later(record)
        return False
    return sending.succeed(record, {"hash": record.txHash, "blockNumber": height, "blockHash": mined_in})


def _check_later(record: Withdrawal, **changes: Any) -> None:
    checks = (record.checks or 0) + 1
    with contextlib.suppress(aws.ConditionFailedError):
        aws.write(transition(record, "sent", checks=checks, **changes))
    withdrawals.enqueue(record.id, followups.stepped(CHECK_DELAYS_S, checks))
