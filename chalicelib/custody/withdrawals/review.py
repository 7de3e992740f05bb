"""An operator's review of a withdrawal kept held (`failed` with `released: false`: `needs_review`,
`policy_refused`): what the chain shows at its nonce, and the one decision the chain allows, made through the
worker's own settle and release (sending.succeed / sending.fail: each one transaction with the withdrawal's move,
its journal entry and its event). The admin command `review-withdrawal` runs it.

The chain decides (`verdict`):
* `paid`: the transaction at the withdrawal's nonce from the key's address is mined with the network's
  confirmations, succeeded, calls the deposit address with exactly this withdrawal's `execute` call and (ERC-20)
  its receipt holds the token's Transfer of the amount to `to`; and no other withdrawal of the account is `sent`
  or `success` at that nonce (two withdrawals with one call could share a signature). Only then it is settled.
* `not_paid`: the nonce is used, with the confirmations, by a transaction that does not pay it, or that another
  withdrawal claims. The cosigner signs a withdrawal at one nonce only (cosigner_check.py): nothing can pay it now.
  Only then it is released.
* `undecided`: anything else (the nonce not used yet: a signature at it could still pay; too few confirmations;
  the transaction at the nonce not found); neither is allowed.

On Bitcoin there is no nonce: `paid` when the withdrawal's recorded transaction is in a main-chain block with the
confirmations (settled with the account's spendable outputs updated); `not_paid` when the cosigner never signed an
input of it (released with the outputs it reserved); `undecided` otherwise.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from chalicelib.bitcoin import rpc as bitcoin_rpc
from chalicelib.custody.store import indexed_page
from chalicelib.custody.tokens import TokenOnNetwork, accepted
from chalicelib.custody.withdrawals import lifecycle as withdrawals
from chalicelib.custody.withdrawals import sending
from chalicelib.custody.withdrawals.cosigner_check import expected_call, signed_for
from chalicelib.custody.withdrawals.records import Withdrawal
from chalicelib.evm.rpc import RpcError, block_number, quantity, rpc_call, transaction_count
from chalicelib.platform.errors import ApiError
from chalicelib.platform.networks import BitcoinNetwork, Network

OTHERS_LIMIT = 10_000  # withdrawals of the account read for another claim on the nonce
MOVED_ON = "nothing done: the withdrawal moved on meanwhile"


class ReviewRefusedError(Exception):
    """The chain (or the withdrawal's state) does not allow the decision asked for; `report` says what it shows."""

    def __init__(self, message: str, report: dict[str, Any]) -> None:
        super().__init__(message)
        self.report = report


@dataclass
class Findings:
    verdict: str = "undecided"
    why: str = ""
    chain: dict[str, Any] = field(default_factory=dict)
    paying: dict[str, Any] | None = None  # the paying transaction as sending.succeed takes it


def inspect(withdrawal_id: str) -> dict[str, Any]:
    """What the chain shows for the withdrawal (any state); changes nothing."""
    record = _record(withdrawal_id)
    return _report(record, _findings(record))


def settle(withdrawal_id: str) -> dict[str, Any]:
    """Debit a kept withdrawal that the chain shows paid (`withdraw.success`)."""
    record = _record(withdrawal_id)
    found = _findings(record)
    _must_be_kept(record, found)
    if found.verdict != "paid" or found.paying is None:
        raise ReviewRefusedError(f"not settled: the chain does not show it paid ({found.why})", _report(record, found))
    if not sending.succeed(record, found.paying):
        raise ReviewRefusedError(
            "not settled: the withdrawal moved on meanwhile", _report(_record(withdrawal_id), found)
        )
    return _report(_record(withdrawal_id), found)


def release(withdrawal_id: str) -> dict[str, Any]:
    """Give a kept withdrawal's hold back to `activeBalance` when the chain shows nothing can pay it any more
    (`withdraw.failed` with `release`)."""
    record = _record(withdrawal_id)
    found = _findings(record)
    _must_be_kept(record, found)
    if found.verdict != "not_paid":
        shown = "it paid" if found.verdict == "paid" else "that nothing can pay it any more"
        raise ReviewRefusedError(f"not released: the chain does not show {shown} ({found.why})", _report(record, found))
    if not sending.fail(record, record.failedReason or "needs_review"):
        raise ReviewRefusedError(
            "not released: the withdrawal moved on meanwhile", _report(_record(withdrawal_id), found)
        )
    return _report(_record(withdrawal_id), found)


def _bitcoin_findings(record: Withdrawal, network: BitcoinNetwork) -> Findings:
    """On Bitcoin: paid when its recorded transaction is in a main-chain block with the confirmations; not paid
    when the cosigner never signed an input of it (no transaction of it can exist); undecided otherwise."""
    chain: dict[str, Any] = {"network": network.name, "txHash": record.txHash, "mined": False}
    if record.txHash:
        found = bitcoin_rpc.transaction(network, record.txHash)
        mined_in = found.get("blockhash") if found else None
        chain["known"] = found is not None
        if found is not None and mined_in:
            head = bitcoin_rpc.head(network)
            height = head - int(found.get("confirmations", 0)) + 1
            canonical = bitcoin_rpc.block_hashes(network, [height])[0] == mined_in
            chain.update({"mined": canonical, "blockNumber": height, "confirmations": head - height + 1})
            if canonical and head - height + 1 >= max(network.confirmations, 1):
                paid = {"hash": record.txHash, "blockNumber": height, "blockHash": mined_in}
                return Findings("paid", "its recorded transaction is mined with the confirmations", chain, paid)
            return Findings(why="its transaction is not deep enough in the main chain yet", chain=chain)
    if not signed_for(record.id):
        return Findings("not_paid", "the cosigner never signed an input of it: no transaction of it exists", chain)
    why = "the cosigner signed for it and its transaction is not mined: broadcast its rawTx, or wait"
    return Findings(why=why, chain=chain)


def _record(withdrawal_id: str) -> Withdrawal:
    record = withdrawals.read(withdrawal_id)
    if record is None:
        raise ReviewRefusedError(f"no withdrawal {withdrawal_id}", {})
    return record


def _must_be_kept(record: Withdrawal, found: Findings) -> None:
    if not record.kept_for_review:
        raise ReviewRefusedError(
            f"only a withdrawal kept for review is settled or released here; this one is {record.status}"
            + (" and released" if record.released else "")
            + " (the worker decides the others)",
            _report(record, found),
        )


def _report(record: Withdrawal, found: Findings) -> dict[str, Any]:
    return {
        "withdrawal": {
            **withdrawals.public(record),
            "keyAddress": record.keyAddress,
            "nonce": record.nonce,
            "released": record.released,
            "reviewedAt": record.reviewedAt,
        },
        "chain": found.chain,
        "verdict": found.verdict,
        "why": found.why,
    }


def _findings(record: Withdrawal) -> Findings:
    pair = accepted(record.network, record.tokenCode)
    if isinstance(pair.network, BitcoinNetwork):
        try:
            return _bitcoin_findings(record, pair.network)
        except (RpcError, ApiError, KeyError, TypeError, ValueError) as exc:
            return Findings(why=f"the node could not say: {str(exc)[:200]}", chain={"txHash": record.txHash})
    network = pair.evm
    sender = record.keyAddress
    if record.nonce is None:
        return Findings(why="no nonce was ever taken for it: nothing was signed at one")
    nonce = record.nonce
    try:
        return _read_chain(record, pair, network, sender, nonce)
    except (RpcError, ApiError, KeyError, TypeError, ValueError) as exc:
        return Findings(why=f"the node could not say: {str(exc)[:200]}", chain={"nonce": nonce})


def _read_chain(record: Withdrawal, pair: TokenOnNetwork, network: Network, sender: str, nonce: int) -> Findings:
    head = block_number(network)
    mined = transaction_count(network, sender, "latest")
    own = _own(record, pair, network)
    chain: dict[str, Any] = {
        "network": network.name,
        "keyAddress": sender,
        "nonce": nonce,
        "minedNonce": mined,
        "nonceUsed": mined > nonce,
        "nonceUsedBy": None,
        "ownTransaction": own,
    }
    if mined <= nonce:
        return Findings(why="its nonce is not used yet: a signature at it could still pay it", chain=chain)
    tx = _at_nonce(network, sender, nonce, record.txHash or "")
    if tx is None:
        why = (
            "the transaction at its nonce was not found (the node keeps no state of those blocks: ask an archive node)"
        )
        return Findings(why=why, chain=chain)
    receipt = rpc_call(network, "eth_getTransactionReceipt", [tx["hash"]])
    height = quantity(tx["blockNumber"])
    confirmations = head - height + 1
    paying = _pays_this(record, pair, tx, receipt)
    others = _others_at(record, nonce) if paying else []
    chain["nonceUsedBy"] = {
        "txHash": tx["hash"],
        "blockNumber": height,
        "confirmations": confirmations,
        "status": receipt.get("status") if isinstance(receipt, dict) else None,
        "paysThisWithdrawal": paying and not others,
        "claimedBy": others,
    }
    if confirmations < max(network.confirmations, 1):
        return Findings(why=f"{confirmations} of {network.confirmations} confirmations", chain=chain)
    if paying and not others:
        paid = {"hash": tx["hash"], "blockNumber": height, "blockHash": receipt["blockHash"]}
        return Findings("paid", "the transaction at its nonce pays it", chain, paid)
    if others:
        return Findings("not_paid", f"the transaction at its nonce is the payment of withdrawal {others[0]}", chain)
    return Findings("not_paid", "its nonce was used by a transaction that does not pay it", chain)


def _own(record: Withdrawal, pair: TokenOnNetwork, network: Network) -> dict[str, Any] | None:
    """The withdrawal's own recorded transaction as the chain has it."""
    if not record.txHash:
        return None
    receipt = rpc_call(network, "eth_getTransactionReceipt", [record.txHash])
    mined = isinstance(receipt, dict)
    return {
        "txHash": record.txHash,
        "mined": mined,
        "status": receipt.get("status") if mined else None,
        "blockNumber": quantity(receipt["blockNumber"]) if mined else None,
        "transferLog": (pair.token.native or sending.pays(receipt, pair, record)) if mined else False,
    }


def _at_nonce(network: Network, sender: str, nonce: int, hint: str) -> dict[str, Any] | None:
    """The mined transaction from `sender` at `nonce`: the withdrawal's own when it is that one, else found on
    chain: the first block after which the sender's transaction count passed `nonce` (a binary search over past
    blocks' state), and in it the sender's transaction with that nonce."""
    if hint:
        tx = rpc_call(network, "eth_getTransactionByHash", [hint])
        if isinstance(tx, dict) and tx.get("blockNumber") and quantity(tx["nonce"]) == nonce:
            return tx

    def used_by(block: int) -> bool:
        return transaction_count(network, sender, hex(block)) > nonce

    low, high = 0, block_number(network)
    if not used_by(high):
        return None
    while low < high:
        middle = (low + high) // 2
        if used_by(middle):
            high = middle
        else:
            low = middle + 1
    block = rpc_call(network, "eth_getBlockByNumber", [hex(high), True])
    for tx in block.get("transactions", []) if isinstance(block, dict) else []:
        if str(tx.get("from", "")).lower() == sender.lower() and quantity(tx["nonce"]) == nonce:
            return dict(tx)
    return None


def _pays_this(record: Withdrawal, pair: TokenOnNetwork, tx: dict[str, Any], receipt: Any) -> bool:
    data = str(tx.get("input") or tx.get("data") or "0x").removeprefix("0x")
    return (
        isinstance(receipt, dict)
        and receipt.get("status") == "0x1"
        and str(tx.get("to") or "").lower() == record.fromAddress.lower()
        and bytes.fromhex(data) == expected_call(record.to_item())
        and (pair.token.native or sending.pays(receipt, pair, record))
    )


def _others_at(record: Withdrawal, nonce: int) -> list[str]:
    """Other withdrawals of the account that are `sent` or `success` at the same nonce of the same key and chain."""
    others: list[str] = []
    for status in ("sent", "success"):
        found, _ = indexed_page(
            "account-status", "accountStatusKey", f"WITHDRAWAL#{record.accountId}#{status}", 1, OTHERS_LIMIT
        )
        others += [
            other.id
            for other in map(Withdrawal.from_item, found)
            if other.id != record.id
            and other.nonce == nonce
            and other.chainId == record.chainId
            and other.keyAddress.lower() == record.keyAddress.lower()
        ]
    return others
