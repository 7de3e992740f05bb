"""The withdrawal queue's consumer: each withdrawal goes to its network family's worker (EVM: sending.py,
Bitcoin: bitcoin_sending.py); a new family adds its worker here."""

from __future__ import annotations

from collections.abc import Callable

from chalicelib.custody.withdrawals import bitcoin_sending, sending
from chalicelib.custody.withdrawals import lifecycle as withdrawals
from chalicelib.platform.networks import registry

FAMILIES: dict[str, Callable[[str], None]] = {"evm": sending.process, "bitcoin": bitcoin_sending.process}


def process(withdrawal_id: str) -> None:
    record = withdrawals.read(withdrawal_id)
    if record is None:
        return
    network = registry().any_by_chain_id(record.chainId)
    FAMILIES[network.kind if network is not None else "evm"](withdrawal_id)
