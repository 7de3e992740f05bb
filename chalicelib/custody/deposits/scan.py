"""The watcher's forward scan of one network: the blocks after the cursor, the transfers to deposit addresses in
them, each recorded once (deposits.seen), then the cursor moved on.

1. the headers of the next blocks (at most `custodyScanBlocks`) must chain onto the hashes the cursor kept, or
   the cursor steps back to the highest block it kept that is still canonical (a reorg);
2. `eth_getLogs` of the accepted ERC-20 tokens' `Transfer` events over the range (halved on a provider's range
   or size error), each log checked against the header hash of its block; a block whose `logsBloom` says it
   may hold such logs but for which the range query answered none (a node behind a load balancer that lags the
   head answers `[]`) is asked again by block hash, which a node without the block refuses instead;
3. with a native custody token, the blocks' plain transfers (empty call data) with value to a deposit address:
   only those leave the coin at the address (`_stays`); internal transfers (value sent by contracts) are not
   seen (docs/custody.md);
4. recipients are looked up in the address index (one batch read per 100 distinct recipients: the cost grows
   with the transfers, not with the number of deposit addresses), then each match's receipt gives its status
   (1 required) and its position within its transaction;
5. each transfer is recorded (deposits.seen), then the cursor moves on (conditional on its version).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, Protocol

from chalicelib.custody import accounts, cursor
from chalicelib.custody.deposits import lifecycle as deposits
from chalicelib.custody.store import TABLE, canonical_address
from chalicelib.custody.tokens import TRANSFER_TOPIC, by_address
from chalicelib.evm.logs import LogsUnavailableError, logs_in_range
from chalicelib.evm.rpc import RpcError, quantity, rpc_batch, rpc_call
from chalicelib.platform import aws, clock, deadline
from chalicelib.platform.logging import logger
from chalicelib.platform.networks import AnyNetwork, Network

KEEP_HASHES = 128  # block hashes the cursor keeps: how deep a reorg it can step back over
STEP_MARGIN_S = 8.0  # a step stops recording (the cursor stays) when less than this is left of the invocation


@dataclass
class StepReport:
    network: str
    head: int = 0
    scanned_from: int | None = None
    scanned_to: int | None = None
    transfers: int = 0
    recorded: int = 0
    credited: int = 0
    reverted: int = 0
    stepped_back: int = 0
    notes: list[str] = field(default_factory=list)


class RangeError(Exception):
    """The chain moved under the step (a log of a block that is not the header we read): retry later."""


@dataclass(frozen=True)
class Range:
    """The blocks a step scans: `first` to `last`, after the cursor as `saved` (its kept hashes by height)."""

    saved: dict[str, Any]
    first: int
    last: int
    hashes: dict[str, str]


def next_range(network: AnyNetwork, report: StepReport) -> Range | None:
    """The blocks after the cursor up to the report's head (at most `custodyScanBlocks`); None when caught up."""
    saved = cursor.ensure_cursor(network, report.head)
    first = int(saved["next"])
    last = min(report.head, first + network.custodyScanBlocks - 1)
    if last < first:
        return None
    return Range(saved, first, last, {str(k): str(v) for k, v in dict(saved.get("hashes", {})).items()})


def scan(network: Network, report: StepReport) -> None:
    """Scan the blocks after the cursor up to the head the report holds, and move the cursor on."""
    scanned = next_range(network, report)
    if scanned is None:
        return
    saved, first, last, hashes = scanned.saved, scanned.first, scanned.last, scanned.hashes
    native = any(t.native for t in network.custodyTokens)
    headers = blocks(network, range(first, last + 1), full=native)
    known_parent = hashes.get(str(first - 1))
    if known_parent is not None and headers[0]["parentHash"] != known_parent:
        report.stepped_back = step_back(network, saved, hashes, lambda heights: _canonical_hashes(network, heights))
        return
    for before, after in itertools.pairwise(headers):
        if after["parentHash"] != before["hash"]:
            raise RangeError("the chain moved while its blocks were read")
    report.scanned_from, report.scanned_to = first, last
    transfers = _token_transfers(network, headers) + (_native_transfers(network, headers) if native else [])
    report.transfers = len(transfers)
    matches = [m for m in addressed(network, transfers) if _kept(network, m[0])]
    for transfer, account in _with_receipts(network, matches):
        if out_of_time():
            raise RangeError("out of time: the range is scanned again next step (recorded deposits stay once)")
        if deposits.seen(transfer, account) in ("new", "again"):
            report.recorded += 1
    seen_hashes = {quantity(h["number"]): str(h["hash"]) for h in headers}
    advance(saved, hashes, seen_hashes, quantity(headers[-1]["timestamp"]))


def advance(saved: dict[str, Any], hashes: dict[str, str], scanned: dict[int, str], scanned_time: int) -> None:
    """Move the cursor past the blocks just scanned (height: hash), keeping the last KEEP_HASHES hashes."""
    hashes = {**hashes, **{str(height): block_hash for height, block_hash in scanned.items()}}
    kept = sorted(hashes, key=int)[-KEEP_HASHES:]
    cursor.write(
        {
            **saved,
            "next": max(scanned) + 1,
            "hashes": {k: hashes[k] for k in kept},
            "scannedTime": scanned_time,  # the expiry sweep waits for the watcher
            "version": int(saved["version"]) + 1,
            "updatedAt": clock.iso_now(),
        },
        int(saved["version"]),
    )


def _canonical_hashes(network: Network, heights: list[int]) -> list[str | None]:
    return [b["hash"] if b is not None else None for b in blocks(network, heights, full=False, allow_missing=True)]


def step_back(
    network: AnyNetwork,
    saved: dict[str, Any],
    hashes: dict[str, str],
    canonical_hashes: Callable[[list[int]], list[str | None]],
) -> int:
    """The next block does not chain onto the last one scanned: find the highest kept block still canonical
    (`canonical_hashes`: the chain's block hash at each height, None above its head)."""
    heights = sorted((int(h) for h in hashes), reverse=True)
    canonical = canonical_hashes(heights) if heights else []
    fork = None
    for height, block_hash in zip(heights, canonical, strict=True):
        if block_hash is not None and block_hash == hashes[str(height)]:
            fork = height
            break
    next_block = (fork + 1) if fork is not None else (min(heights) if heights else int(saved["next"]))
    kept = {k: v for k, v in hashes.items() if int(k) < next_block}
    cursor.write(
        {
            **saved,
            "next": next_block,
            "hashes": kept,
            "version": int(saved["version"]) + 1,
            "updatedAt": clock.iso_now(),
        },
        int(saved["version"]),
    )
    logger.warning(
        "reorg: watcher cursor stepped back",
        extra={"network": network.name, "from": int(saved["next"]), "to": next_block},
    )
    return int(saved["next"]) - next_block


class ChainReads(Protocol):
    """What the confirmation reads of a chain (a node, or a test's fake chain)."""

    def blocks(self, numbers: Iterable[int], full: bool, allow_missing: bool = False) -> list[Any]: ...

    def receipts(self, hashes: list[str]) -> dict[str, Any]: ...


@dataclass(frozen=True)
class NodeReads:
    """The network's nodes, read in batches (evm/rpc.py)."""

    network: Network

    def blocks(self, numbers: Iterable[int], full: bool, allow_missing: bool = False) -> list[Any]:
        return blocks(self.network, numbers, full, allow_missing)

    def receipts(self, hashes: list[str]) -> dict[str, Any]:
        return receipts(self.network, hashes)


def blocks(network: Network, numbers: Iterable[int], full: bool, allow_missing: bool = False) -> list[Any]:
    """The blocks at `numbers` (None for one the node does not have, when `allow_missing`); RangeError else."""
    answers = rpc_batch(network, [("eth_getBlockByNumber", [hex(n), full]) for n in numbers])
    for answer in answers:
        if isinstance(answer, RpcError) or (answer is None and not allow_missing):
            raise RangeError("a block of the range could not be read")
    return answers


def receipts(network: Network, hashes: list[str]) -> dict[str, Any]:
    """Each transaction's receipt: a dict, None (the node has none) or the node's RpcError."""
    return dict(zip(hashes, rpc_batch(network, [("eth_getTransactionReceipt", [h]) for h in hashes]), strict=True))


def out_of_time() -> bool:
    left = deadline.remaining_s()
    return left is not None and left < STEP_MARGIN_S


def _token_transfers(network: Network, headers: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The accepted tokens' Transfer logs of the range, each checked against its block's header."""
    tokens = [t.tokenAddress for t in network.custodyTokens if not t.native]
    if not tokens:
        return []
    by_number = {quantity(h["number"]): h for h in headers}
    first, last = min(by_number), max(by_number)
    logs = _logs(network, {"address": tokens, "topics": [TRANSFER_TOPIC]}, first, last)
    seen_in: set[int] = set()
    found = []
    for log in logs:
        if log.get("removed"):
            continue
        number = quantity(log["blockNumber"])
        header = by_number.get(number)
        if header is None or log["blockHash"] != header["hash"]:
            raise RangeError("a log's block is not the header read for its height")
        seen_in.add(number)
        found.append(log)
    # Blocks whose bloom says they may hold our logs, but the range answered none: ask by hash.
    for number, header in by_number.items():
        if number in seen_in or not _bloom_may_hold(header.get("logsBloom"), tokens):
            continue
        try:
            again = rpc_call(
                network, "eth_getLogs", [{"blockHash": header["hash"], "address": tokens, "topics": [TRANSFER_TOPIC]}]
            )
        except RpcError:
            raise RangeError(f"block {number} may hold transfers but its logs could not be read") from None
        if not isinstance(again, list):
            raise RangeError(f"eth_getLogs by hash of block {number} answered something other than a list")
        found += [log for log in again if not log.get("removed")]
    transfers = []
    for log in found:
        topics = log.get("topics", [])
        if len(topics) != 3 or topics[0] != TRANSFER_TOPIC:
            continue  # an ERC-721 Transfer (4 topics) or something else
        pair = by_address(network, log["address"])
        value = transfer_value(log)
        if pair is None or not value:
            continue  # zero-value transfers move nothing (and anyone can make them: they must not fail invoices)
        transfers.append(
            {
                "pair": pair,
                "txHash": log["transactionHash"],
                "logIndex": quantity(log["logIndex"]),
                "from": topic_address(topics[1]),
                "to": topic_address(topics[2]),
                "value": value,
                "header": by_number[quantity(log["blockNumber"])],
                "log": log,
            }
        )
    return transfers


def transfer_value(log: dict[str, Any]) -> int | None:
    """The amount of a Transfer log (its one data word; empty data: 0); None when the data is not one word."""
    data = log.get("data")
    if data in (None, "0x"):
        return 0
    try:
        return quantity(data)
    except ValueError:
        return None


def _logs(network: Network, query: dict[str, Any], first: int, last: int) -> list[dict[str, Any]]:
    """eth_getLogs over [first, last] (halved where the provider refuses the range's size)."""
    try:
        return logs_in_range(network, query, first, last)
    except LogsUnavailableError as exc:
        raise RangeError(str(exc)) from None


def _native_transfers(network: Network, headers: list[dict[str, Any]]) -> list[dict[str, Any]]:
    pair = by_address(network, "")
    if pair is None:
        return []
    found = []
    for header in headers:
        for tx in header.get("transactions", []):
            if not isinstance(tx, dict) or not tx.get("to"):
                continue
            value = quantity(tx.get("value", "0x0"))
            if value == 0:
                continue
            found.append(
                {
                    "pair": pair,
                    "txHash": tx["hash"],
                    "logIndex": None,
                    "from": tx["from"],
                    "to": tx["to"],
                    "value": value,
                    "header": header,
                    "log": None,
                    "plain": _stays(tx),
                }
            )
    return found


def _stays(tx: dict[str, Any]) -> bool:
    """Whether a transaction's value stays at its recipient: only a plain transfer (empty call data) is sure to.
    A deposit address is a SimpleAccount (deployed or not yet); with empty call data its `receive()` keeps the
    coin, while call data may run code that passes the value on (`addDeposit()` forwards it to the EntryPoint),
    and whether the account had code at that point of the block cannot be read from the block. The transaction
    hash commits to its call data, so the re-checks at confirmation need not read it again."""
    data = tx.get("input", tx.get("data")) or "0x"
    return str(data) in ("0x", "")


def _kept(network: Network, transfer: dict[str, Any]) -> bool:
    if transfer.get("plain", True):
        return True
    # Not credited; the operator may find the coin in the EntryPoint (the account's deposit there) or, for an
    # address without code, still at the address.
    logger.warning(
        "native value with call data to a deposit address: not a deposit",
        extra={"network": network.name, "txHash": transfer["txHash"]},
    )
    return False


def addressed(network: AnyNetwork, transfers: list[dict[str, Any]]) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    """The transfers whose recipient is a deposit address, with its account (batch reads of the index)."""
    recipients = sorted({canonical_address(t["to"]) for t in transfers})
    owners: dict[str, str] = {}
    for start in range(0, len(recipients), 100):
        keys = [accounts.address_key(network.chainId, r) for r in recipients[start : start + 100]]
        for item in aws.batch_get(TABLE, keys):
            owners[str(item["pk"]).split("#")[2]] = str(item["accountId"])
    wanted = sorted(set(owners.values()))
    found: dict[str, dict[str, Any]] = {}
    for start in range(0, len(wanted), 100):
        keys = [{"pk": f"ACCOUNT#{a}", "sk": "ACCOUNT"} for a in wanted[start : start + 100]]
        found.update({str(i["id"]): i for i in aws.batch_get(TABLE, keys)})
    return [
        (t, found[owners[canonical_address(t["to"])]])
        for t in transfers
        if canonical_address(t["to"]) in owners and owners[canonical_address(t["to"])] in found
    ]


def _with_receipts(
    network: Network, matches: list[tuple[dict[str, Any], dict[str, Any]]]
) -> list[tuple[deposits.Transfer, dict[str, Any]]]:
    """Receipts of the matched transfers' transactions: status 1 required (a reverted native send moved
    nothing), and the log's position within its transaction (the deposit's key)."""
    found = receipts(network, sorted({t["txHash"] for t, _ in matches}))
    out = []
    for transfer, account in matches:
        receipt = found[transfer["txHash"]]
        if isinstance(receipt, RpcError) or receipt is None:
            raise RangeError("a receipt of the range could not be read")
        if receipt.get("blockHash") != transfer["header"]["hash"]:
            raise RangeError("a receipt is not in the block read")
        if receipt.get("status") != "0x1":
            continue
        if transfer["log"] is None:
            ordinal = "native"
        else:
            positions = [
                i for i, log in enumerate(receipt.get("logs", [])) if quantity(log["logIndex"]) == transfer["logIndex"]
            ]
            if not positions:
                raise RangeError("a log is missing from its receipt")
            ordinal = str(positions[0])
        header = transfer["header"]
        out.append(
            (
                deposits.Transfer(
                    pair=transfer["pair"],
                    tx_hash=transfer["txHash"],
                    ordinal=ordinal,
                    log_index=transfer["logIndex"],
                    sender=_checksum(transfer["from"]),
                    to=_checksum(transfer["to"]),
                    value=transfer["value"],
                    block_number=quantity(header["number"]),
                    block_hash=header["hash"],
                    block_time=quantity(header["timestamp"]),
                ),
                account,
            )
        )
    return out


def _bloom_may_hold(bloom: str | None, tokens: list[str]) -> bool:
    if not bloom:
        return True  # no bloom: ask
    bits = int.from_bytes(bytes.fromhex(bloom[2:]), "big")  # 256 bytes of data, not a quantity
    return _in_bloom(bits, bytes.fromhex(TRANSFER_TOPIC[2:])) and any(
        _in_bloom(bits, bytes.fromhex(t[2:])) for t in tokens
    )


def _in_bloom(bits: int, value: bytes) -> bool:
    from eth_utils import keccak

    digest = keccak(value)
    for i in (0, 2, 4):
        bit = ((digest[i] << 8) | digest[i + 1]) & 2047
        if not (bits >> bit) & 1:
            return False
    return True


def topic_address(topic: str) -> str:
    return "0x" + topic[-40:]


def _checksum(address: str) -> str:
    from eth_utils import to_checksum_address

    return str(to_checksum_address(address))
