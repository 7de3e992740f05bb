"""A Bitcoin withdrawal's transaction: the account's outputs it spends (chosen when it is requested), its fee, its
change, and the unsigned transaction built from the record (the worker and the cosigner build the same one).

Choice: the account's available outputs largest first, until they cover the amount and the fee of a
transaction with a change output (the fee rate is the node's estimate within the network's bounds, times the
signed transaction's virtual size). Change below DUST_SATS is not made: it is left to the fee. The change goes to
the account's native SegWit address; the fee is debited from the account with the amount.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from chalicelib.bitcoin import addresses
from chalicelib.bitcoin.transactions import Pay, Spend, UnsignedBitcoinTx
from chalicelib.custody.ledger import INSUFFICIENT_BALANCE
from chalicelib.platform.errors import ApiError
from chalicelib.platform.networks import BitcoinNetwork

DUST_SATS = 546  # the highest dust threshold of a standard output: smaller change goes to the fee
CHANGE_OUTPUT_VBYTES = 31  # a P2WPKH output: what a transaction left without change saves
# Outputs one withdrawal may spend: each is signed in a full threshold run (about a second of two parties' CPU), all
# within one worker invocation.
MAX_INPUTS = 10
WITHDRAWAL_TOO_FRAGMENTED = "WITHDRAWAL_TOO_FRAGMENTED"


@dataclass(frozen=True)
class Spending:
    """What a withdrawal will spend and pay: `inputs` as the account's output records (txid, vout, value,
    address, addressType), the change (0: none) and the fee, in satoshis."""

    inputs: list[dict[str, Any]]
    change: int
    fee: int
    fee_rate: int


def spends(
    inputs: list[dict[str, Any]], child_key: bytes, previous: dict[str, bytes] | None = None
) -> tuple[Spend, ...]:
    """The inputs as spends of the account's child key (`previous`: each input's transaction, by txid)."""
    return tuple(
        Spend(
            str(i["txid"]),
            int(i["vout"]),
            int(str(i["value"])),
            bytes(
                addresses.deposit_script(child_key, "legacy" if i["addressType"] == "legacy" else "native-segwit").data
            ),
            child_key,
            (previous or {}).get(str(i["txid"])),
        )
        for i in inputs
    )


def unsigned(
    network: BitcoinNetwork,
    inputs: list[dict[str, Any]],
    child_key: bytes,
    to: str,
    amount: int,
    change: int,
    previous: dict[str, bytes] | None = None,
) -> UnsignedBitcoinTx:
    """The withdrawal's transaction: `amount` to `to`, then `change` (if any) to the account's native SegWit
    address."""
    outputs = [Pay(addresses.script_of(to, network.chain), amount)]
    if change:
        outputs.append(Pay(change_script(child_key), change))
    return UnsignedBitcoinTx(spends(inputs, child_key, previous), tuple(outputs))


def change_script(child_key: bytes) -> bytes:
    return bytes(addresses.deposit_script(child_key, "native-segwit").data)


def choose(
    network: BitcoinNetwork, available: list[dict[str, Any]], child_key: bytes, to: str, amount: int, fee_rate: int
) -> Spending:
    """The outputs that pay `amount` to `to` and the fee; 422 INSUFFICIENT_BALANCE when the account's confirmed
    outputs do not cover them, 422 WITHDRAWAL_TOO_FRAGMENTED when they would take more than MAX_INPUTS."""
    picked: list[dict[str, Any]] = []
    for output in sorted(available, key=lambda o: (-int(str(o["value"])), str(o["sk"]))):
        picked.append(output)
        total = sum(int(str(o["value"])) for o in picked)
        if total - amount > DUST_SATS:
            with_change = fee_rate * unsigned(network, picked, child_key, to, amount, 1).vsize()
            if total - amount - with_change >= DUST_SATS:
                return Spending(picked, total - amount - with_change, with_change, fee_rate)
        if total > amount:
            without = fee_rate * unsigned(network, picked, child_key, to, amount, 0).vsize()
            if total - amount >= without:
                return Spending(picked, 0, total - amount, fee_rate)  # the rest is below dust: it goes to the fee
        if len(picked) == MAX_INPUTS:
            raise ApiError(
                422,
                WITHDRAWAL_TOO_FRAGMENTED,
                f"The amount and the fee need more than {MAX_INPUTS} of the account's confirmed outputs; withdraw "
                "less at a time",
            )
    raise ApiError(
        422, INSUFFICIENT_BALANCE, "Not enough confirmed BTC at the account's addresses for the amount and the fee"
    )
