"""The watcher's cursor and lease per custody network, and what operators see of them.

The cursor (`CURSOR#<chainId>` / `CURSOR`) holds the next block to scan, the hashes of the blocks scanned last
(how deep a reorg the scan can step back over), the head last seen and the time of the last block scanned (the
invoice expiry sweep waits for it). Every move of the cursor is conditional on its version: of two runs, the
first to write wins and the other's view is dropped. The lease (`LEASE#<chainId>` / `LEASE`) keeps two runs from
stepping on one network at once; a run that died frees it after LEASE_S.

Accounts and invoices read the cursor here without importing the watcher's scan and confirmation.
"""

from __future__ import annotations

import contextlib
import secrets
from typing import Any

from chalicelib.bitcoin import rpc as bitcoin_rpc
from chalicelib.custody.store import TABLE, get
from chalicelib.evm.rpc import NO_ANSWER, RpcError, block_number
from chalicelib.platform import aws, clock
from chalicelib.platform.cache import TtlCache
from chalicelib.platform.networks import AnyNetwork, BitcoinNetwork

LEASE_S = 60  # the function's timeout: a run that died frees its network for the next run

# Networks whose cursor exists: a cursor is never deleted, so a warm function asks once.
_made: TtlCache[int, bool] = TtlCache("custody-cursors", None)


def chain_head(network: AnyNetwork) -> int:
    """The height of the network's newest block, whatever its family."""
    if isinstance(network, BitcoinNetwork):
        return bitcoin_rpc.head(network)
    return block_number(network)


def cursor_key(chain_id: int) -> dict[str, str]:
    return {"pk": f"CURSOR#{chain_id}", "sk": "CURSOR"}


def read(chain_id: int) -> dict[str, Any] | None:
    return get(**cursor_key(chain_id))


def ensure_cursor(network: AnyNetwork, head: int | None = None) -> dict[str, Any]:
    """The network's cursor, made if missing: at `custodyStartBlock`, else at the head. Account creation calls
    this before its addresses exist, so no transfer to an address is ever before the watcher's start."""
    cursor = read(network.chainId)
    if cursor is None:
        if network.custodyStartBlock is not None:
            start = network.custodyStartBlock
        else:
            start = head if head is not None else chain_head(network)
        write({**cursor_key(network.chainId), "next": start, "hashes": {}, "version": 0}, None)
        cursor = read(network.chainId)
        assert cursor is not None
    _made.put(network.chainId, True)
    return cursor


def ensure_cursors(networks: list[AnyNetwork]) -> None:
    for network in networks:
        if network.chainId not in _made:
            ensure_cursor(network)


def write(cursor: dict[str, Any], seen_version: int | None) -> None:
    """Put `cursor` if its version is still `seen_version` (None: if there is none yet); else another run moved
    it, and its view stands."""
    condition = (
        aws.Condition("attribute_not_exists(pk)")
        if seen_version is None
        else aws.Condition("#v = :v", {"#v": "version"}, {":v": seen_version})
    )
    with contextlib.suppress(aws.ConditionFailedError):
        aws.write(aws.put("cursor", TABLE, cursor, condition))


def save_head(chain_id: int, head: int) -> None:
    with contextlib.suppress(aws.ConditionFailedError):
        aws.write(
            aws.update(
                "cursor", TABLE, cursor_key(chain_id), aws.Changes(set={"head": head, "headSeenAt": clock.iso_now()})
            )
        )


def status(network: AnyNetwork) -> dict[str, Any]:
    """What operators see of the watcher: cursor, head, lag."""
    cursor = read(network.chainId) or {}
    head = None
    with contextlib.suppress(*NO_ANSWER, RpcError, TypeError, ValueError):  # the status answers without a node
        head = chain_head(network)
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


def lease(chain_id: int) -> str | None:
    """The network's lease for LEASE_S (its token), or None while another run holds it."""
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


def unlease(chain_id: int, token: str) -> None:
    with contextlib.suppress(Exception):
        aws.write(
            aws.delete(
                "lease",
                TABLE,
                {"pk": f"LEASE#{chain_id}", "sk": "LEASE"},
                aws.Condition("#t = :t", {"#t": "token"}, {":t": token}),
            )
        )
