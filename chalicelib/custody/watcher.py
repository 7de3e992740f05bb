"""The chain watcher: per custody network, a block cursor in DynamoDB and bounded forward scans.

One step on a network (under a lease, so overlapping runs do not both scan; a rescan would still not
duplicate anything, deposits are recorded once per id):

1. the head, then the headers of the next blocks (at most `custodyScanBlocks`); they must chain onto the hashes
   the cursor kept, or the cursor steps back to the highest block it kept that is still canonical (a reorg);
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
5. each transfer is recorded (deposits.seen), then the cursor moves on (conditional on its version);
6. every watched deposit at or past its confirmations is re-checked against the chain (receipt, canonical
   block hash at its height, the log itself) and credited, followed to another block, or reverted. Credited
   deposits stay watched for REORG_WATCH_BLOCKS more blocks: a deeper reorg gets a correcting entry.
"""

from __future__ import annotations

import contextlib
import itertools
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from chalicelib.custody import accounts, deposits
from chalicelib.custody.store import TABLE, get
from chalicelib.custody.tokens import by_address, custody_networks
from chalicelib.evm.logs import LogsUnavailableError, logs_in_range
from chalicelib.evm.rpc import batch
from chalicelib.platform import aws, clock
from chalicelib.platform.chain import RpcError, rpc_call
from chalicelib.platform.errors import ApiError
from chalicelib.platform.logging import logger
from chalicelib.platform.networks import Network

TRANSFER_TOPIC = "0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef"
KEEP_HASHES = 128  # block hashes the cursor keeps: how deep a reorg it can step back over
REORG_WATCH_BLOCKS = 64  # how long credited deposits are still re-checked
LEASE_S = 60  # the function's timeout: a run that died frees its network for the next run
STEP_MARGIN_S = 8.0  # a step stops recording (the cursor stays) when less than this is left of the invocation
MAX_DUE_PER_STEP = 500  # deposits re-checked per step (the rest next step)


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


def cursor_key(chain_id: int) -> dict[str, str]:
    return {"pk": f"CURSOR#{chain_id}", "sk": "CURSOR"}


def run(time_left_s: Callable[[], float], loop_s: float, pause_s: float = 2.0) -> list[StepReport]:
    """Steps on every custody network, again every `pause_s` while `loop_s` lasts and time is left."""
    reports: list[StepReport] = []
    started = time.monotonic()
    while True:
        for network in custody_networks():
            if time_left_s() < 10:
                return reports
            try:
                report = step(network)
            except ApiError as exc:  # no node answered: the next pass tries again
                logger.warning("watcher step failed", extra={"network": network.name, "code": exc.code})
                continue
            except Exception as exc:  # noqa: BLE001 - one network's trouble must not stop the others
                logger.error("watcher step failed", extra={"network": network.name, "errorType": type(exc).__name__})
                continue
            if report is not None:
                reports.append(report)
        if time.monotonic() - started + pause_s >= loop_s:
            return reports
        time.sleep(pause_s)


def step(network: Network) -> StepReport | None:
    """One step on `network`; None when another run holds its lease."""
    token = _lease(network.chainId)
    if token is None:
        return None
    try:
        report = StepReport(network.name)
        report.head = _quantity(rpc_call(network, "eth_blockNumber", []))
        try:
            _scan(network, report)
        except RangeError as exc:
            report.notes.append(str(exc))
        try:
            _confirm(network, report)
        except RangeError as exc:  # a block of the re-check could not be read: no verdict this step
            report.notes.append(str(exc))
        _save_head(network.chainId, report.head)
        return report
    finally:
        _unlease(network.chainId, token)


# --- scanning ----------------------------------------------------------------------------------------------


_HAS_CURSOR: set[int] = set()


def ensure_cursor(network: Network, head: int | None = None) -> dict[str, Any]:
    """The network's cursor, made if missing: at `custodyStartBlock`, else at the head. Account creation calls
    this before its addresses exist, so no transfer to an address is ever before the watcher's start."""
    cursor = get(**cursor_key(network.chainId))
    if cursor is None:
        if network.custodyStartBlock is not None:
            start = network.custodyStartBlock
        else:
            start = head if head is not None else _quantity(rpc_call(network, "eth_blockNumber", []))
        _write_cursor({**cursor_key(network.chainId), "next": start, "hashes": {}, "version": 0}, None)
        cursor = get(**cursor_key(network.chainId))
        assert cursor is not None
    _HAS_CURSOR.add(network.chainId)
    return cursor


def ensure_cursors(networks: list[Network]) -> None:
    for network in networks:
        if network.chainId not in _HAS_CURSOR:
            ensure_cursor(network)


def _scan(network: Network, report: StepReport) -> None:
    cursor = ensure_cursor(network, report.head)
    first = int(cursor["next"])
    last = min(report.head, first + network.custodyScanBlocks - 1)
    if last < first:
        return
    hashes: dict[str, str] = {str(k): str(v) for k, v in dict(cursor.get("hashes", {})).items()}
    native = any(t.native for t in network.custodyTokens)
    headers = _blocks(network, range(first, last + 1), full=native)
    known_parent = hashes.get(str(first - 1))
    if known_parent is not None and headers[0]["parentHash"] != known_parent:
        report.stepped_back = _step_back(network, cursor, hashes)
        return
    for before, after in itertools.pairwise(headers):
        if after["parentHash"] != before["hash"]:
            raise RangeError("the chain moved while its blocks were read")
    report.scanned_from, report.scanned_to = first, last
    transfers = _token_transfers(network, headers) + (_native_transfers(network, headers) if native else [])
    report.transfers = len(transfers)
    matches = [m for m in _addressed(network, transfers) if _kept(network, m[0])]
    for transfer, account in _with_receipts(network, matches):
        if _out_of_time():
            raise RangeError("out of time: the range is scanned again next step (recorded deposits stay once)")
        if deposits.seen(transfer, account) in ("new", "again"):
            report.recorded += 1
    for header in headers:
        hashes[str(_quantity(header["number"]))] = header["hash"]
    kept = sorted(hashes, key=int)[-KEEP_HASHES:]
    _write_cursor(
        {
            **cursor,
            "next": last + 1,
            "hashes": {k: hashes[k] for k in kept},
            "scannedTime": _quantity(headers[-1]["timestamp"]),  # the expiry sweep waits for the watcher
            "version": int(cursor["version"]) + 1,
            "updatedAt": clock.iso_now(),
        },
        int(cursor["version"]),
    )


def _step_back(network: Network, cursor: dict[str, Any], hashes: dict[str, str]) -> int:
    """The next block does not chain onto the last one scanned: find the highest kept block still canonical."""
    heights = sorted((int(h) for h in hashes), reverse=True)
    canonical = _blocks(network, heights, full=False, allow_missing=True) if heights else []
    fork = None
    for height, block in zip(heights, canonical, strict=True):
        if block is not None and block["hash"] == hashes[str(height)]:
            fork = height
            break
    next_block = (fork + 1) if fork is not None else (min(heights) if heights else int(cursor["next"]))
    kept = {k: v for k, v in hashes.items() if int(k) < next_block}
    _write_cursor(
        {
            **cursor,
            "next": next_block,
            "hashes": kept,
            "version": int(cursor["version"]) + 1,
            "updatedAt": clock.iso_now(),
        },
        int(cursor["version"]),
    )
    logger.warning(
        "reorg: watcher cursor stepped back",
        extra={"network": network.name, "from": int(cursor["next"]), "to": next_block},
    )
    return int(cursor["next"]) - next_block


def _blocks(network: Network, numbers: Any, full: bool, allow_missing: bool = False) -> list[Any]:
    answers = batch(network, [("eth_getBlockByNumber", [hex(n), full]) for n in numbers])
    for answer in answers:
        if isinstance(answer, RpcError) or (answer is None and not allow_missing):
            raise RangeError("a block of the range could not be read")
    return answers


def _token_transfers(network: Network, headers: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The accepted tokens' Transfer logs of the range, each checked against its block's header."""
    tokens = [t.tokenAddress for t in network.custodyTokens if not t.native]
    if not tokens:
        return []
    by_number = {_quantity(h["number"]): h for h in headers}
    first, last = min(by_number), max(by_number)
    logs = _logs(network, {"address": tokens, "topics": [TRANSFER_TOPIC]}, first, last)
    seen_in: set[int] = set()
    found = []
    for log in logs:
        if log.get("removed"):
            continue
        number = _quantity(log["blockNumber"])
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
        value = int(log["data"], 16) if log.get("data") not in (None, "0x") else 0
        if pair is None or value == 0:
            continue  # zero-value transfers move nothing (and anyone can make them: they must not fail invoices)
        transfers.append(
            {
                "pair": pair,
                "txHash": log["transactionHash"],
                "logIndex": _quantity(log["logIndex"]),
                "from": _topic_address(topics[1]),
                "to": _topic_address(topics[2]),
                "value": value,
                "header": by_number[_quantity(log["blockNumber"])],
                "log": log,
            }
        )
    return transfers


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
            if not isinstance(tx, dict) or not tx.get("to") or int(tx.get("value", "0x0"), 16) == 0:
                continue
            found.append(
                {
                    "pair": pair,
                    "txHash": tx["hash"],
                    "logIndex": None,
                    "from": tx["from"],
                    "to": tx["to"],
                    "value": int(tx["value"], 16),
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


def _addressed(network: Network, transfers: list[dict[str, Any]]) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    """The transfers whose recipient is a deposit address, with its account (batch reads of the index)."""
    recipients = sorted({t["to"].lower() for t in transfers})
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
        (t, found[owners[t["to"].lower()]])
        for t in transfers
        if t["to"].lower() in owners and owners[t["to"].lower()] in found
    ]


def _with_receipts(
    network: Network, matches: list[tuple[dict[str, Any], dict[str, Any]]]
) -> list[tuple[deposits.Transfer, dict[str, Any]]]:
    """Receipts of the matched transfers' transactions: status 1 required (a reverted native send moved
    nothing), and the log's position within its transaction (the deposit's key)."""
    hashes = sorted({t["txHash"] for t, _ in matches})
    receipts = dict(zip(hashes, batch(network, [("eth_getTransactionReceipt", [h]) for h in hashes]), strict=True))
    out = []
    for transfer, account in matches:
        receipt = receipts[transfer["txHash"]]
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
                i for i, log in enumerate(receipt.get("logs", [])) if _quantity(log["logIndex"]) == transfer["logIndex"]
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
                    block_number=_quantity(header["number"]),
                    block_hash=header["hash"],
                    block_time=_quantity(header["timestamp"]),
                ),
                account,
            )
        )
    return out


# --- confirmations -----------------------------------------------------------------------------------------


def _confirm(network: Network, report: StepReport) -> None:
    from boto3.dynamodb.conditions import Key

    request: dict[str, Any] = {
        "KeyConditionExpression": Key("pk").eq(f"WATCH#{network.chainId}"),
        "ConsistentRead": True,
    }
    needed = max(network.confirmations, 1)
    due: list[dict[str, Any]] = []
    while len(due) < MAX_DUE_PER_STEP:
        answer = aws.table(TABLE).query(**request)
        due += [w for w in answer["Items"] if report.head - int(w["blockNumber"]) + 1 >= needed]
        if "LastEvaluatedKey" not in answer:
            break
        request["ExclusiveStartKey"] = answer["LastEvaluatedKey"]
    due = due[:MAX_DUE_PER_STEP]
    if not due:
        return
    records = {
        str(d["id"]): d for d in aws.batch_get(TABLE, [{"pk": f"DEPOSIT#{w['sk']}", "sk": "DEPOSIT"} for w in due])
    }
    hashes = sorted({str(r["txHash"]) for r in records.values()})
    receipts = dict(zip(hashes, batch(network, [("eth_getTransactionReceipt", [h]) for h in hashes]), strict=True))
    heights = sorted(
        {_quantity(r["blockNumber"]) for r in receipts.values() if isinstance(r, dict)}
        | {int(d["blockNumber"]) for d in records.values()}
    )
    canonical = dict(zip(heights, _blocks(network, heights, full=False, allow_missing=True), strict=True))
    owners = {
        str(a["id"]): a
        for a in aws.batch_get(
            TABLE,
            [{"pk": f"ACCOUNT#{i}", "sk": "ACCOUNT"} for i in sorted({str(r["accountId"]) for r in records.values()})],
        )
    }
    for watch in due:
        if _out_of_time():
            return
        deposit = records.get(str(watch["sk"]))
        if deposit is None or deposit["status"] not in ("pending", "credited"):
            with contextlib.suppress(Exception):
                deposits.stop_watching(network.chainId, str(watch["sk"]))
            continue
        account = owners.get(str(deposit["accountId"]))
        if account is not None:
            _check(network, report, deposit, account, receipts.get(str(deposit["txHash"])), canonical)


def _out_of_time() -> bool:
    from chalicelib.platform import deadline

    left = deadline.remaining_s()
    return left is not None and left < STEP_MARGIN_S


def _check(
    network: Network,
    report: StepReport,
    deposit: dict[str, Any],
    account: dict[str, Any],
    receipt: Any,
    canonical: dict[int, Any],
) -> None:
    if isinstance(receipt, RpcError):
        return  # no verdict
    credited = deposit["status"] == "credited"
    if receipt is None:
        # No receipt: proof that the transaction left the chain only if the deposit's block did too (a node that
        # lags, or is behind a load balancer, may answer null for a transaction it does not have yet).
        own_height = int(deposit["blockNumber"])
        block = canonical.get(own_height)
        gone = block["hash"] != deposit["blockHash"] if block is not None else report.head >= own_height
        if gone and deposits.revert(deposit, account):
            report.reverted += 1
        return
    height = _quantity(receipt["blockNumber"])
    block = canonical.get(height)
    if block is None or block["hash"] != receipt["blockHash"]:
        return  # the node's view is moving: next step
    if receipt.get("status") != "0x1" or not _log_matches(deposit, receipt):
        if deposits.revert(deposit, account):  # mined (canonically) again, but failing or not paying the address
            report.reverted += 1
        return
    if receipt["blockHash"] != deposit["blockHash"]:
        log_index = _log_index(deposit, receipt)
        deposits.follow(deposit, height, receipt["blockHash"], log_index)  # re-checked at its new height
        return
    confirmations = report.head - height + 1
    if credited:
        if report.head - height >= REORG_WATCH_BLOCKS:
            deposits.stop_watching(network.chainId, str(deposit["id"]))
        return
    if confirmations >= max(network.confirmations, 1) and deposits.credit(deposit, account, confirmations):
        report.credited += 1


def _log_matches(deposit: dict[str, Any], receipt: dict[str, Any]) -> bool:
    if deposit["ordinal"] == "native":
        return True  # the hash commits to the value and recipient
    logs = receipt.get("logs", [])
    position = int(deposit["ordinal"])
    if position >= len(logs):
        return False
    log = logs[position]
    pair = deposits.pair_of(deposit)
    topics = log.get("topics", [])
    return (
        log.get("address", "").lower() == pair.token.tokenAddress.lower()
        and len(topics) == 3
        and topics[0] == TRANSFER_TOPIC
        and _topic_address(topics[2]).lower() == str(deposit["to"]).lower()
        and int(log.get("data", "0x0") or "0x0", 16) == int(deposit["value"])
    )


def _log_index(deposit: dict[str, Any], receipt: dict[str, Any]) -> int | None:
    if deposit["ordinal"] == "native":
        return None
    return _quantity(receipt["logs"][int(deposit["ordinal"])]["logIndex"])


# --- cursor, lease, helpers --------------------------------------------------------------------------------


def _write_cursor(cursor: dict[str, Any], seen_version: int | None) -> None:
    condition = (
        aws.Condition("attribute_not_exists(pk)")
        if seen_version is None
        else aws.Condition("#v = :v", {"#v": "version"}, {":v": seen_version})
    )
    with contextlib.suppress(aws.ConditionFailedError):  # another run moved it: its view stands
        aws.write(aws.put("cursor", TABLE, cursor, condition))


def _save_head(chain_id: int, head: int) -> None:
    with contextlib.suppress(aws.ConditionFailedError):
        aws.write(
            aws.update(
                "cursor", TABLE, cursor_key(chain_id), aws.Changes(set={"head": head, "headSeenAt": clock.iso_now()})
            )
        )


def status(network: Network) -> dict[str, Any]:
    """What operators see of the watcher: cursor, head, lag."""
    cursor = get(**cursor_key(network.chainId)) or {}
    head = None
    with contextlib.suppress(ApiError, RpcError, TypeError, ValueError):
        head = _quantity(rpc_call(network, "eth_blockNumber", []))
    scanned = int(cursor["next"]) - 1 if "next" in cursor else None
    return {
        "network": network.name,
        "chainId": network.chainId,
        "cursor": scanned,
        "head": head,
        "lag": (head - scanned) if head is not None and scanned is not None else None,
        "confirmations": network.confirmations,
        "lastStepAt": cursor.get("headSeenAt"),
    }


def _lease(chain_id: int) -> str | None:
    token = secrets.token_hex(8)
    now = clock.epoch()
    item = {"pk": f"LEASE#{chain_id}", "sk": "LEASE", "token": token, "until": now + LEASE_S}
    try:
        aws.write(
            aws.put(
                "lease",
                TABLE,
                item,
                aws.Condition("attribute_not_exists(pk) OR #u < :now", {"#u": "until"}, {":now": now}),
            )
        )
        return token
    except aws.ConditionFailedError:
        return None


def _unlease(chain_id: int, token: str) -> None:
    with contextlib.suppress(Exception):
        aws.write(
            aws.delete(
                "lease",
                TABLE,
                {"pk": f"LEASE#{chain_id}", "sk": "LEASE"},
                aws.Condition("#t = :t", {"#t": "token"}, {":t": token}),
            )
        )


def _bloom_may_hold(bloom: str | None, tokens: list[str]) -> bool:
    if not bloom:
        return True  # no bloom: ask
    bits = int(bloom, 16)
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


def _topic_address(topic: str) -> str:
    return "0x" + topic[-40:]


def _checksum(address: str) -> str:
    from eth_utils import to_checksum_address

    return str(to_checksum_address(address))


def _quantity(value: Any) -> int:
    if isinstance(value, int):
        return value
    return int(str(value), 16)
