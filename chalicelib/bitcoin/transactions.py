"""Bitcoin transactions as a withdrawal builds them: the outputs it spends (P2WPKH or P2PKH of a compressed key),
the outputs it pays, each input's signing hash, and the signed transaction assembled from external signatures.

The signing hash of a P2WPKH input is BIP 143's (its script code is the key's P2PKH script); of a P2PKH input the
legacy one; both SIGHASH_ALL. They are embit's (`sighash_segwit`, `sighash_legacy`). A signature comes from the
threshold signer as 65 bytes r || s || recovery id (low s) and is DER-encoded (`cryptography`) with the sighash
byte. `wire()`/`from_wire()` give the JSON form the parties are shown (mpc payloads), from which each computes the
signing hash itself. Pure: no I/O.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from embit.transaction import Transaction, TransactionInput

# embit is imported where it is used: an API function that never builds a Bitcoin transaction does not load it.

SPENDABLE = frozenset({"p2wpkh", "p2pkh"})
MAX_SATS = 21_000_000 * 100_000_000
_PLACEHOLDER_SIGNATURE = b"\x30" + b"\x00" * 71 + b"\x01"  # the longest DER signature and its sighash byte


@dataclass(frozen=True)
class Spend:
    """An input: the output it spends, and the compressed public key that controls it."""

    txid: str  # hex, as nodes show it
    vout: int
    value: int  # satoshis
    script_pubkey: bytes  # the spent output's script (P2WPKH or P2PKH of `public_key`)
    public_key: bytes  # 33 bytes
    # The transaction that made the output, serialised: whoever signs checks the output's amount and script
    # against it (`check_previous`), as a PSBT's non-witness UTXO (a legacy signature does not commit to the amount).
    previous: bytes | None = None

    def __post_init__(self) -> None:
        if len(bytes.fromhex(self.txid)) != 32 or not 0 <= self.vout < 2**32 or not 0 < self.value <= MAX_SATS:
            raise ValueError("a spend is a 32-byte txid, an output index and a positive amount")
        if len(self.public_key) != 33:
            raise ValueError("a spend's key is a compressed public key")
        from embit import script

        kind = script.Script(self.script_pubkey).script_type()
        expected = {"p2wpkh": script.p2wpkh, "p2pkh": script.p2pkh}
        if kind not in SPENDABLE or expected[kind](_key(self.public_key)).data != self.script_pubkey:
            raise ValueError("a spend's script is the P2WPKH or P2PKH script of its key")

    @property
    def segwit(self) -> bool:
        from embit import script

        return bool(script.Script(self.script_pubkey).script_type() == "p2wpkh")

    def check_previous(self) -> None:
        """ValueError unless `previous` is the transaction `txid` names and its output `vout` is this amount paid
        to this script."""
        if self.previous is None:
            raise ValueError("the spent output's transaction is missing")
        from embit.transaction import Transaction

        try:
            made = Transaction.parse(self.previous)
        except Exception:  # noqa: BLE001 - embit raises several types for malformed bytes
            raise ValueError("the spent output's transaction does not parse") from None
        if bytes(made.txid()).hex() != self.txid or self.vout >= len(made.vout):
            raise ValueError("the spent output's transaction is not the one its txid names")
        output = made.vout[self.vout]
        if output.value != self.value or bytes(output.script_pubkey.data) != self.script_pubkey:
            raise ValueError("the spent output is not this amount paid to this script")


@dataclass(frozen=True)
class Pay:
    """An output."""

    script_pubkey: bytes
    value: int

    def __post_init__(self) -> None:
        if not 0 < self.value <= MAX_SATS or not self.script_pubkey:
            raise ValueError("an output pays a positive amount to a script")


@dataclass(frozen=True)
class UnsignedBitcoinTx:
    inputs: tuple[Spend, ...]
    outputs: tuple[Pay, ...]
    version: int = 2
    locktime: int = 0

    def __post_init__(self) -> None:
        if not self.inputs or not self.outputs:
            raise ValueError("a transaction spends at least one output and pays at least one")
        if len({(i.txid, i.vout) for i in self.inputs}) != len(self.inputs):
            raise ValueError("an output is spent twice")
        if self.fee < 0:
            raise ValueError("the outputs pay more than the inputs hold")

    @property
    def fee(self) -> int:
        return sum(i.value for i in self.inputs) - sum(o.value for o in self.outputs)

    @property
    def payment_id(self) -> str:
        """The unsigned transaction's id: the same for every signature of the same inputs and outputs (the signed
        transaction's txid equals it when every input is SegWit)."""
        return bytes(self._embit().txid()).hex()

    def sighash(self, index: int) -> bytes:
        """The 32-byte signing hash of input `index` (BIP 143 for P2WPKH, legacy for P2PKH; SIGHASH_ALL)."""
        from embit import script
        from embit.transaction import SIGHASH

        spend = self.inputs[index]
        tx = self._embit()
        if spend.segwit:
            code = script.p2pkh(_key(spend.public_key))
            return bytes(tx.sighash_segwit(index, code, spend.value, SIGHASH.ALL))
        return bytes(tx.sighash_legacy(index, script.Script(spend.script_pubkey), SIGHASH.ALL))

    def assemble(self, signatures: Sequence[bytes]) -> SignedBitcoinTx:
        """The signed transaction from one 65-byte signature (r || s || recovery id) per input, in order."""
        if len(signatures) != len(self.inputs):
            raise ValueError("one signature per input")
        from embit.transaction import SIGHASH

        return self._signed([_der(s) + bytes([SIGHASH.ALL]) for s in signatures])

    def vsize(self) -> int:
        """Virtual size once signed (with the longest signatures: an upper bound by at most a byte per input)."""
        return self._signed([_PLACEHOLDER_SIGNATURE] * len(self.inputs)).vsize

    def wire(self) -> dict[str, Any]:
        return {
            "version": self.version,
            "locktime": self.locktime,
            "inputs": [
                {
                    "txid": i.txid,
                    "vout": i.vout,
                    "value": str(i.value),
                    "scriptPubKey": i.script_pubkey.hex(),
                    "publicKey": i.public_key.hex(),
                    **({"previousTx": i.previous.hex()} if i.previous is not None else {}),
                }
                for i in self.inputs
            ],
            "outputs": [{"scriptPubKey": o.script_pubkey.hex(), "value": str(o.value)} for o in self.outputs],
        }

    @classmethod
    def from_wire(cls, body: Mapping[str, Any]) -> UnsignedBitcoinTx:
        """ValueError for anything malformed."""
        try:
            return cls(
                inputs=tuple(
                    Spend(
                        str(i["txid"]),
                        int(i["vout"]),
                        int(str(i["value"])),
                        bytes.fromhex(str(i["scriptPubKey"])),
                        bytes.fromhex(str(i["publicKey"])),
                        bytes.fromhex(str(i["previousTx"])) if "previousTx" in i else None,
                    )
                    for i in body["inputs"]
                ),
                outputs=tuple(
                    Pay(bytes.fromhex(str(o["scriptPubKey"])), int(str(o["value"]))) for o in body["outputs"]
                ),
                version=int(body.get("version", 2)),
                locktime=int(body.get("locktime", 0)),
            )
        except (KeyError, TypeError) as exc:
            raise ValueError(f"malformed Bitcoin transaction: {type(exc).__name__}") from None

    def _embit(self) -> Transaction:
        from embit import script
        from embit.transaction import Transaction, TransactionInput, TransactionOutput

        return Transaction(
            version=self.version,
            vin=[TransactionInput(bytes.fromhex(i.txid), i.vout) for i in self.inputs],
            vout=[TransactionOutput(o.value, script.Script(o.script_pubkey)) for o in self.outputs],
            locktime=self.locktime,
        )

    def _signed(self, signatures: Sequence[bytes]) -> SignedBitcoinTx:
        from embit import script
        from embit.transaction import Transaction

        tx = self._embit()
        for position, (spend, signature) in enumerate(zip(self.inputs, signatures, strict=True)):
            if spend.segwit:
                tx.vin[position].witness = script.Witness([signature, spend.public_key])
            else:
                unlocking = script.Script()
                unlocking.push(signature)
                unlocking.push(spend.public_key)
                tx.vin[position].script_sig = unlocking
        raw = bytes(tx.serialize())
        stripped = Transaction(
            version=tx.version, vin=[_without_witness(i) for i in tx.vin], vout=tx.vout, locktime=tx.locktime
        )
        base = len(stripped.serialize())
        return SignedBitcoinTx(raw=raw, txid=bytes(tx.txid()).hex(), vsize=(base * 3 + len(raw) + 3) // 4)


def input_payload(tx: UnsignedBitcoinTx, index: int) -> dict[str, Any]:
    """What a party signing input `index` is shown (an mpc payload's `bitcoinInput`): the whole transaction."""
    return {"transaction": tx.wire(), "index": index}


def input_of(body: Mapping[str, Any]) -> tuple[UnsignedBitcoinTx, int]:
    """The transaction and the input index of a `bitcoinInput` payload; ValueError for anything malformed."""
    try:
        tx, index = UnsignedBitcoinTx.from_wire(body["transaction"]), int(body["index"])
    except (KeyError, TypeError):
        raise ValueError("a Bitcoin input payload is a transaction and an input index") from None
    if not 0 <= index < len(tx.inputs):
        raise ValueError("no such input")
    return tx, index


def input_digest(body: Mapping[str, Any]) -> bytes:
    """The signing hash of a `bitcoinInput` payload, computed from the transaction itself."""
    tx, index = input_of(body)
    return tx.sighash(index)


@dataclass(frozen=True)
class SignedBitcoinTx:
    raw: bytes
    txid: str
    vsize: int


def _without_witness(tx_input: TransactionInput) -> TransactionInput:
    from embit.transaction import TransactionInput

    return TransactionInput(tx_input.txid, tx_input.vout, script_sig=tx_input.script_sig, sequence=tx_input.sequence)


def _key(public_key: bytes) -> Any:
    from embit import ec

    try:
        return ec.PublicKey.parse(public_key)
    except Exception:  # noqa: BLE001 - embit's ECError and others for bytes that are no point
        raise ValueError("a spend's key is not a valid public key") from None


def _der(signature: bytes) -> bytes:
    """r || s (|| recovery id) from the threshold signer as DER (BIP 66), s already low."""
    from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature

    if len(signature) not in (64, 65):
        raise ValueError("a signature is r || s (|| recovery id)")
    r, s = int.from_bytes(signature[:32], "big"), int.from_bytes(signature[32:64], "big")
    return bytes(encode_dss_signature(r, s))
