"""The owner's gas tank as the smart-account domain needs it: opened in the owner's creation transaction and shown
in the owner record.

Gas tanks build on smart accounts (a top-up or a user operation finds the owner's tank through the owner record),
so this domain does not import them: it declares what it asks (`OwnerTanks`) and `wiring.wire()` registers the
gas-tank domain's answer.
"""

from __future__ import annotations

from typing import Protocol

from chalicelib.platform import aws
from chalicelib.platform.hooks import Hooks
from chalicelib.smart_accounts.models import GasTank


class OwnerTanks(Protocol):
    def open(self, owner_record_id: str, now: str) -> tuple[aws.TxItem, GasTank]:
        """A new empty tank for the owner: its put (item `tank`, written with the owner) and its view."""
        ...

    def show(self, tank_id: str, owner_record_id: str) -> GasTank:
        """The owner's tank as it is now."""
        ...


OWNER_TANKS: Hooks[OwnerTanks] = Hooks("owner gas tanks")
_KEY = "tanks"


def register(tanks: OwnerTanks) -> None:
    """The gas-tank domain's answer (`wiring.wire()` registers it; a second registration replaces it)."""
    OWNER_TANKS.register(_KEY, tanks)


def registered() -> OwnerTanks:
    return OWNER_TANKS.require(_KEY)
