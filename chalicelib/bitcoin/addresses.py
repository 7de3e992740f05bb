"""Bitcoin addresses and the output scripts they stand for, on one chain (main, test or regtest).

A deposit address is a public key's native SegWit (P2WPKH, `bc1q…`/`tb1q…`/`bcrt1q…`) or legacy (P2PKH) address.
A destination may be any standard kind: P2WPKH, P2PKH, P2SH, P2WSH or P2TR. embit decodes an address whatever
chain it names, so every decoding here is checked by encoding the script again for the expected chain: an
address of another chain (or a malformed one) is refused.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    from embit import script

Chain = Literal["main", "test", "regtest"]
AddressType = Literal["native-segwit", "legacy"]
DESTINATION_KINDS = frozenset({"p2wpkh", "p2pkh", "p2sh", "p2wsh", "p2tr"})


class InvalidAddressError(ValueError):
    """Not an address of a standard kind on this chain."""


def deposit_address(public_key: bytes, address_type: AddressType, chain: Chain) -> str:
    """The deposit address of a compressed public key (33 bytes)."""
    from embit.networks import NETWORKS

    return str(deposit_script(public_key, address_type).address(NETWORKS[chain]))


def deposit_script(public_key: bytes, address_type: AddressType) -> script.Script:
    from embit import ec, script

    key = ec.PublicKey.parse(public_key)
    if not key.compressed:
        raise ValueError("deposit addresses are made from compressed keys")
    return script.p2wpkh(key) if address_type == "native-segwit" else script.p2pkh(key)


def script_of(address: str, chain: Chain) -> bytes:
    """The output script `address` pays; InvalidAddressError for a malformed address, one of another chain, or a
    kind outside DESTINATION_KINDS."""
    from embit import script
    from embit.networks import NETWORKS

    try:
        decoded = script.address_to_scriptpubkey(address)
        again = decoded.address(NETWORKS[chain])
    except Exception:  # noqa: BLE001 - embit raises several types for malformed input
        raise InvalidAddressError("not a Bitcoin address") from None
    if again != address or decoded.script_type() not in DESTINATION_KINDS:
        raise InvalidAddressError(f"not a standard address on {chain}")
    return bytes(decoded.data)


def address_of(script_pubkey: bytes, chain: Chain) -> str | None:
    """The address an output script pays, or None for a script no address stands for (e.g. OP_RETURN)."""
    from embit import script
    from embit.networks import NETWORKS

    parsed = script.Script(script_pubkey)
    if parsed.script_type() not in DESTINATION_KINDS:
        return None
    try:
        return str(parsed.address(NETWORKS[chain]))
    except Exception:  # noqa: BLE001 - a malformed script of a known shape
        return None


def kind_of(script_pubkey: bytes) -> str | None:
    """p2wpkh, p2pkh, p2sh, p2wsh, p2tr, or None."""
    from embit import script

    kind = script.Script(script_pubkey).script_type()
    return str(kind) if kind in DESTINATION_KINDS else None
