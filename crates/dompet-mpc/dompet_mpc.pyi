"""Type stubs for the dompet_mpc extension module (2-of-3 threshold ECDSA via cggmp21).

All byte strings called "share", "aux info", "primes" or "presignature" are secret (partial
signatures are not). A presignature is SINGLE USE: never issue two partial signatures from it.
Messages are opaque bytes that carry sender, recipient and payload; route them with `recipient()`.
"""

from collections.abc import Sequence
from typing import Final, TypedDict

__version__: Final[str]
SIGNATURE_LEN: Final[int]

class MpcError(Exception):
    """Any dompet_mpc failure. Messages never contain secret material."""

class InvalidInputError(MpcError):
    """An argument is invalid (length, blob kind, index, ...)."""

class InvalidMessageError(MpcError):
    """A received message is malformed, misaddressed or from another run; the session is unchanged."""

class ProtocolError(MpcError):
    """The protocol failed (e.g. a party misbehaved); the session cannot continue."""

class SessionStateError(MpcError):
    """A session method was called out of order, or the session failed earlier."""

class Session:
    """One party's run of one protocol."""

    @property
    def protocol(self) -> str: ...
    @property
    def party_index(self) -> int: ...
    @property
    def parties(self) -> list[int]: ...
    def start(self) -> list[bytes]: ...
    def handle(self, msg: bytes) -> list[bytes]: ...
    def done(self) -> bool: ...
    def failed(self) -> bool: ...
    def result(self) -> bytes: ...

class ShareInfo(TypedDict):
    kind: str
    party_index: int
    n: int
    threshold: int
    public_key: bytes
    address: str
    chain_code: bytes | None  # 32 bytes for a key generated with hd=True, else None

class PresignatureInfo(TypedDict):
    party_index: int
    signers: list[int]
    public_key: bytes  # uncompressed SEC1, 65 bytes
    address: str  # EIP-55
    presignature_id: bytes  # 16 bytes, equal for every signer's share of one presignature

def keygen_session(execution_id: bytes, party_index: int, n: int = 3, threshold: int = 2, hd: bool = False) -> Session:
    """Key generation; result() is this party's core share (secret). hd=True (the same for every party): the key
    gets a chain code and can sign for its non-hardened child keys; it never presigns."""

def aux_info_session(execution_id: bytes, party_index: int, primes: bytes, n: int = 3) -> Session: ...
def signing_session(
    execution_id: bytes,
    key_share: bytes,
    signers: Sequence[int],
    digest: bytes,
    derivation_path: Sequence[int] | None = None,
) -> Session:
    """Full signing run; result() is 65 bytes r || s || recovery_id (low s).

    derivation_path: sign with the BIP32/SLIP-10 child key at these non-hardened indices (< 2**31; the same on
    every signer) of a key generated with hd=True; the result is verified against that child key
    (derive_public_key). InvalidInputError for a key without a chain code or a hardened index.
    """

def presign_session(execution_id: bytes, key_share: bytes, signers: Sequence[int]) -> Session:
    """Presignature generation; result() is this party's presignature share (secret, single use).

    InvalidInputError for a key generated with hd=True: HD keys sign only in full runs.
    """

def issue_partial_signature(presignature: bytes, digest: bytes) -> bytes:
    """This party's partial signature (public) of a 32-byte digest. Use each presignature once."""

def combine_signatures(partials: Sequence[bytes], public_key: bytes, digest: bytes) -> bytes:
    """One partial per signer -> verified 65-byte r || s || recovery_id (like signing_session).

    public_key: the wallet's SEC1 key (33 or 65 bytes) as the caller knows it, e.g. public_key(share).
    Raises InvalidInputError for malformed/mismatching partials and
    ProtocolError("signature verification failed") if the combined signature does not verify.
    """

def presignature_info(presignature: bytes) -> PresignatureInfo: ...
def pregenerate_primes() -> bytes: ...
def complete_key_share(core_share: bytes, aux_info: bytes) -> bytes: ...
def trusted_dealer_split(private_key: bytes | bytearray, n: int = 3, threshold: int = 2) -> list[bytes]: ...
def public_key(share: bytes) -> bytes: ...
def eth_address(share: bytes) -> str: ...
def share_info(share: bytes) -> ShareInfo: ...
def derive_public_key(public_key: bytes, chain_code: bytes, path: Sequence[int]) -> bytes:
    """Compressed SEC1 key (33 bytes) of the non-hardened child at `path` below `public_key` (SEC1, 33 or 65 bytes)
    with `chain_code` (32 bytes): the key signing_session(..., derivation_path=path) signs for."""

def recipient(msg: bytes) -> int | None: ...
def sender(msg: bytes) -> int: ...
def decode_signature(sig: bytes) -> tuple[int, int, int]: ...
