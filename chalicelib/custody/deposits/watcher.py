"""The chain watcher: per custody network, a block cursor in DynamoDB and bounded forward scans.

One step on a network runs under its lease (cursor.py), so overlapping runs do not both scan (a rescan would still
not duplicate anything: deposits are recorded once per id): the head, then the scan of the blocks after the
cursor, then the re-check of the deposits due for confirmation, then the head is saved for operators and
invoices. The scan and the re-check are the network family's (`FAMILIES`: EVM in scan.py and confirm.py,
Bitcoin in bitcoin_watch.py); a new family adds its pair there, and the records, lifecycle and events stay.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from chalicelib.custody import cursor
from chalicelib.custody.deposits import bitcoin_watch, confirm, scan
from chalicelib.custody.deposits.scan import RangeError, StepReport
from chalicelib.custody.tokens import all_custody_networks
from chalicelib.evm.rpc import NO_ANSWER
from chalicelib.platform import clock
from chalicelib.platform.logging import logger
from chalicelib.platform.networks import AnyNetwork

# Per network family (`kind`): its forward scan and its re-check of deposits due, each (network, report).
FAMILIES: dict[str, tuple[Callable[[Any, StepReport], None], Callable[[Any, StepReport], None]]] = {
    "evm": (scan.scan, confirm.confirm),
    "bitcoin": (bitcoin_watch.scan, bitcoin_watch.confirm),
}

__all__ = ["StepReport", "run", "step"]


def run(time_left_s: Callable[[], float], loop_s: float, pause_s: float = 2.0) -> list[StepReport]:
    """Steps on every custody network, again every `pause_s` while `loop_s` lasts and time is left."""
    reports: list[StepReport] = []
    started = clock.monotonic()
    while True:
        for network in all_custody_networks():
            if time_left_s() < 10:
                return reports
            try:
                report = step(network)
            except NO_ANSWER as exc:  # no usable answer from the network's nodes: the next pass tries again
                logger.warning("watcher step failed", extra={"network": network.name, "code": exc.code})
                continue
            except Exception as exc:  # noqa: BLE001 - one network's trouble must not stop the others
                logger.error("watcher step failed", extra={"network": network.name, "errorType": type(exc).__name__})
                continue
            if report is not None:
                reports.append(report)
        if clock.monotonic() - started + pause_s >= loop_s:
            return reports
        time.sleep(pause_s)


def step(network: AnyNetwork) -> StepReport | None:
    """One step on `network`; None when another run holds its lease."""
    token = cursor.lease(network.chainId)
    if token is None:
        return None
    scan_blocks, confirm_due = FAMILIES[network.kind]
    try:
        report = StepReport(network.name)
        report.head = cursor.chain_head(network)
        try:
            scan_blocks(network, report)
        except RangeError as exc:
            report.notes.append(str(exc))
        try:
            confirm_due(network, report)
        except RangeError as exc:  # a block of the re-check could not be read: no verdict this step
            report.notes.append(str(exc))
        cursor.save_head(network.chainId, report.head)
        return report
    finally:
        cursor.unlease(network.chainId, token)
