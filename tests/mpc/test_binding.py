"""dompet_mpc (Rust, cggmp21) through its Python binding, with an in-memory message router.

Needs the extension module, which `make deps` builds (`maturin develop --release`).

Prime generation (tens of seconds per party) is skipped by using the public, *insecure* fixture
primes in crates/dompet-mpc/testdata/insecure_test_primes.hex; all protocols run for real.
"""

from __future__ import annotations

import hashlib
from collections import defaultdict, deque
from collections.abc import Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from eth_account import Account
from eth_account.messages import _hash_eip191_message, encode_defunct
from eth_keys.datatypes import PublicKey, Signature
from eth_utils import keccak

if TYPE_CHECKING:
    from dompet_mpc import Session

import dompet_mpc as mpc  # built into the venv by `make deps`; a missing build must fail, not skip

REPO = Path(__file__).resolve().parents[2]
PRIMES_FILE = REPO / "crates" / "dompet-mpc" / "testdata" / "insecure_test_primes.hex"
SECP256K1_N = 0xFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFEBAAEDCE6AF48A03BBFD25E8CD0364141
KEY_0X11_ADDRESS = "0x19E7E376E7C213B7E7e7e46cc70A5dD086DAff2A"


def load_test_primes() -> list[bytes]:
    lines = [line.strip() for line in PRIMES_FILE.read_text().splitlines() if line.strip()]
    return [bytes.fromhex(line) for line in lines]


def route(sessions: Iterable[Session], msg: bytes) -> list[Session]:
    """Parties a message goes to: its recipient, or every other party for a broadcast."""
    to = mpc.recipient(msg)
    frm = mpc.sender(msg)
    return [s for s in sessions if (s.party_index == to if to is not None else s.party_index != frm)]


def run(sessions: list[Session]) -> list[bytes]:
    """Sequential in-memory transport: deliver until nobody sends anything."""
    queue: deque[bytes] = deque()
    for s in sessions:
        queue.extend(s.start())
    while queue:
        msg = queue.popleft()
        for s in route(sessions, msg):
            queue.extend(s.handle(msg))
    assert all(s.done() for s in sessions)
    return [s.result() for s in sessions]


def run_parallel(sessions: list[Session]) -> list[bytes]:
    """Like run(), but each wave of messages is handled with one thread per party.

    handle() releases the GIL, so the parties' heavy proofs run on all cores.
    """
    with ThreadPoolExecutor(max_workers=len(sessions)) as pool:
        pending = [m for batch in pool.map(lambda s: s.start(), sessions) for m in batch]
        while pending:
            inbox: dict[int, list[bytes]] = defaultdict(list)
            for msg in pending:
                for s in route(sessions, msg):
                    inbox[s.party_index].append(msg)

            def deliver(s: Session) -> list[bytes]:
                return [out for msg in inbox.get(s.party_index, []) for out in s.handle(msg)]

            pending = [m for batch in pool.map(deliver, sessions) for m in batch]
    assert all(s.done() for s in sessions)
    return [s.result() for s in sessions]


@dataclass(frozen=True)
class Group:
    aux: list[bytes]
    key_shares: list[bytes]


@pytest.fixture(scope="module")
def group() -> Group:
    primes = load_test_primes()
    assert len(primes) == 3
    aux = run_parallel([mpc.aux_info_session(b"py-aux", i, primes[i]) for i in range(3)])
    cores = run([mpc.keygen_session(b"py-keygen", i) for i in range(3)])
    key_shares = [mpc.complete_key_share(core, a) for core, a in zip(cores, aux, strict=True)]
    return Group(aux=aux, key_shares=key_shares)


def sign(key_shares: list[bytes], signers: list[int], digest: bytes, eid: bytes) -> tuple[int, int, int]:
    results = run([mpc.signing_session(eid, key_shares[i], signers, digest) for i in signers])
    assert len(set(results)) == 1, "signers must agree on the signature"
    assert len(results[0]) == mpc.SIGNATURE_LEN == 65
    r, s, v = mpc.decode_signature(results[0])
    return int(r), int(s), int(v)


@pytest.mark.parametrize("pair", [[0, 1], [0, 2], [1, 2]])
def test_keygen_then_sign_with_each_pair_recovers_the_wallet_address(group: Group, pair: list[int]) -> None:
    infos = [mpc.share_info(s) for s in group.key_shares]
    assert [i["party_index"] for i in infos] == [0, 1, 2]
    assert {(i["kind"], i["n"], i["threshold"]) for i in infos} == {("key_share", 3, 2)}
    address = infos[0]["address"]
    assert {i["address"] for i in infos} == {address} == {mpc.eth_address(s) for s in group.key_shares}
    public_key = mpc.public_key(group.key_shares[0])
    assert len(public_key) == 65 and public_key[0] == 4
    assert PublicKey(public_key[1:]).to_checksum_address() == address

    message = encode_defunct(text=f"dompet test signed by {pair}")
    digest = _hash_eip191_message(message)
    r, s, v = sign(group.key_shares, pair, digest, eid=f"py-sign-{pair}".encode())

    assert s <= SECP256K1_N // 2, "s must be low"
    assert v in (0, 1)
    assert Account.recover_message(message, vrs=(v + 27, r, s)) == address
    signature = Signature(vrs=(v, r, s))
    assert signature.recover_public_key_from_msg_hash(digest).to_checksum_address() == address


def test_trusted_dealer_import_of_known_key(group: Group) -> None:
    private_key = bytearray(b"\x11" * 32)
    try:
        cores = mpc.trusted_dealer_split(private_key)
    finally:
        private_key[:] = bytes(len(private_key))  # the caller wipes the key
    assert len(cores) == 3
    assert [mpc.share_info(c)["kind"] for c in cores] == ["core_share"] * 3
    assert {mpc.eth_address(c) for c in cores} == {KEY_0X11_ADDRESS}

    # The group's aux info completes imported shares as well (aux info is not tied to a key).
    shares = [mpc.complete_key_share(c, a) for c, a in zip(cores, group.aux, strict=True)]
    digest = keccak(b"transfer 1 ETH")
    r, s, v = sign(shares, [0, 2], digest, eid=b"py-import-sign")
    recovered = Account._recover_hash(digest, vrs=(v + 27, r, s))
    assert recovered == KEY_0X11_ADDRESS


def test_message_headers() -> None:
    sessions = [mpc.keygen_session(b"headers", i) for i in range(3)]
    first = sessions[0].start()
    assert first, "keygen starts with a broadcast"
    assert mpc.recipient(first[0]) is None
    assert mpc.sender(first[0]) == 0
    assert sessions[0].protocol == "keygen"
    assert sessions[0].parties == [0, 1, 2]
    assert "party=0" in repr(sessions[0])
    # Run to the end: the second round has peer-to-peer messages with a recipient.
    queue: deque[bytes] = deque(first)
    for s in sessions[1:]:
        queue.extend(s.start())
    seen_p2p = False
    while queue:
        msg = queue.popleft()
        seen_p2p |= mpc.recipient(msg) is not None
        for s in route(sessions, msg):
            queue.extend(s.handle(msg))
            assert s.handle(msg) == [], "an at-least-once redelivery is ignored"
    assert seen_p2p
    assert all(s.done() for s in sessions)
    assert len({mpc.eth_address(s.result()) for s in sessions}) == 1


def test_bad_input_raises_mpc_errors(group: Group) -> None:
    share = group.key_shares[0]
    digest = hashlib.sha256(b"x").digest()
    session = mpc.signing_session(b"bad", share, [0, 1], digest)

    with pytest.raises(mpc.SessionStateError):
        session.result()
    with pytest.raises(mpc.InvalidMessageError):
        session.handle(b"not a message")
    out = session.start()
    with pytest.raises(mpc.SessionStateError):
        session.start()

    peer = mpc.signing_session(b"bad", group.key_shares[1], [0, 1], digest)
    from_peer = peer.start()
    good = from_peer[0]
    for bad in [b"", b"\x00" * 40, good[:10], good[: len(good) // 2], good[:18] + b"\xff\xffjunk"]:
        with pytest.raises(mpc.InvalidMessageError):
            session.handle(bad)
    other_run = mpc.signing_session(b"other", group.key_shares[1], [0, 1], digest).start()[0]
    with pytest.raises(mpc.InvalidMessageError, match="another execution"):
        session.handle(other_run)
    assert not session.failed()

    # The session is intact: finish the protocol.
    results = run_pair(session, out, peer, from_peer)
    assert results[0] == results[1]

    with pytest.raises(mpc.InvalidInputError, match="32 bytes"):
        mpc.signing_session(b"e", share, [0, 1], b"short")
    with pytest.raises(mpc.InvalidInputError, match="signers"):
        mpc.signing_session(b"e", share, [1, 2], digest)
    with pytest.raises(mpc.InvalidInputError):
        mpc.signing_session(b"e", share, [0, 1, 2], digest)
    with pytest.raises(mpc.InvalidInputError, match="expected key share"):
        mpc.signing_session(b"e", group.aux[0], [0, 1], digest)
    with pytest.raises(mpc.InvalidInputError):
        mpc.complete_key_share(mpc.trusted_dealer_split(b"\x05" * 32)[0], group.aux[1])
    with pytest.raises(mpc.InvalidInputError):
        mpc.keygen_session(b"", 0)
    with pytest.raises(mpc.InvalidInputError):
        mpc.keygen_session(b"e", 3)
    with pytest.raises(mpc.InvalidInputError):
        mpc.aux_info_session(b"e", 0, b"not primes")
    with pytest.raises(mpc.InvalidInputError):
        mpc.decode_signature(b"\x00" * 64)
    with pytest.raises(mpc.MpcError):
        mpc.recipient(b"junk")
    with pytest.raises(TypeError):
        mpc.trusted_dealer_split("11" * 32)


def run_pair(a: Session, from_a: list[bytes], b: Session, from_b: list[bytes]) -> list[bytes]:
    """Finish a two-party run whose start() messages were already collected."""
    queue: deque[bytes] = deque([*from_a, *from_b])
    while queue:
        msg = queue.popleft()
        for s in route([a, b], msg):
            queue.extend(s.handle(msg))
    assert a.done() and b.done()
    return [a.result(), b.result()]


@pytest.mark.parametrize(
    "key",
    [b"\x00" * 32, b"\xff" * 32, b"\x01" * 31, SECP256K1_N.to_bytes(32, "big")],
    ids=["zero", "above-order", "short", "order"],
)
def test_trusted_dealer_rejects_invalid_keys_without_echoing_them(key: bytes) -> None:
    with pytest.raises(mpc.InvalidInputError) as excinfo:
        mpc.trusted_dealer_split(key)
    assert key.hex() not in str(excinfo.value)


def test_errors_form_a_hierarchy() -> None:
    for exc in (mpc.InvalidInputError, mpc.InvalidMessageError, mpc.ProtocolError, mpc.SessionStateError):
        assert issubclass(exc, mpc.MpcError)
    assert issubclass(mpc.MpcError, Exception)


# --- Presignatures: offline presigning, online partial signatures, combine + verify ---


def presign(key_shares: list[bytes], signers: list[int], eid: bytes) -> list[bytes]:
    return run([mpc.presign_session(eid, key_shares[i], signers) for i in signers])


def test_presignature_signature_recovers_the_wallet_address(group: Group) -> None:
    address = mpc.eth_address(group.key_shares[0])
    public_key = mpc.public_key(group.key_shares[0])
    sessions = [mpc.presign_session(b"py-presign", group.key_shares[i], [2, 1]) for i in (1, 2)]
    assert {s.protocol for s in sessions} == {"presigning"}
    assert all(s.parties == [1, 2] for s in sessions)
    presigs = run(sessions)

    infos = [mpc.presignature_info(p) for p in presigs]
    assert [i["party_index"] for i in infos] == [1, 2]
    assert {tuple(i["signers"]) for i in infos} == {(1, 2)}
    assert {i["address"] for i in infos} == {address}
    assert {i["public_key"] for i in infos} == {public_key}
    assert len(infos[0]["presignature_id"]) == 16
    assert infos[0]["presignature_id"] == infos[1]["presignature_id"]

    # A presignature share survives storage as plain bytes (e.g. hex in a database).
    stored = [p.hex() for p in presigs]
    loaded = [bytes.fromhex(p) for p in stored]
    assert loaded == presigs
    assert [mpc.presignature_info(p) for p in loaded] == infos

    message = encode_defunct(text="dompet presigned message")
    digest = _hash_eip191_message(message)
    partials = [mpc.issue_partial_signature(p, digest) for p in loaded]
    assert all(isinstance(p, bytes) for p in partials)
    sig = mpc.combine_signatures(partials, public_key, digest)
    assert len(sig) == mpc.SIGNATURE_LEN == 65
    r, s, v = mpc.decode_signature(sig)
    assert s <= SECP256K1_N // 2, "s must be low"
    assert v in (0, 1)
    assert Account.recover_message(message, vrs=(v + 27, r, s)) == address
    assert Signature(vrs=(v, r, s)).recover_public_key_from_msg_hash(digest).to_checksum_address() == address

    # Order of the partials and the key encoding (compressed SEC1) do not matter.
    compressed = PublicKey(public_key[1:]).to_compressed_bytes()
    assert mpc.combine_signatures(partials[::-1], compressed, digest) == sig


def test_presignature_of_imported_key(group: Group) -> None:
    cores = mpc.trusted_dealer_split(b"\x11" * 32)
    shares = [mpc.complete_key_share(c, a) for c, a in zip(cores, group.aux, strict=True)]
    presigs = presign(shares, [0, 2], b"py-presign-import")
    digest = keccak(b"transfer 2 ETH")
    sig = mpc.combine_signatures(
        [mpc.issue_partial_signature(p, digest) for p in presigs], mpc.public_key(shares[0]), digest
    )
    r, s, v = mpc.decode_signature(sig)
    assert Account._recover_hash(digest, vrs=(v + 27, r, s)) == KEY_0X11_ADDRESS


def test_mismatching_partials_are_refused(group: Group) -> None:
    public_key = mpc.public_key(group.key_shares[0])
    digest = keccak(b"pay the bundler")
    run_a = presign(group.key_shares, [0, 1], b"py-presign-a")
    run_b = presign(group.key_shares, [0, 1], b"py-presign-b")
    part_a = [mpc.issue_partial_signature(p, digest) for p in run_a]
    part_b = [mpc.issue_partial_signature(p, digest) for p in run_b]

    with pytest.raises(mpc.InvalidInputError, match="different presignatures"):
        mpc.combine_signatures([part_a[0], part_b[1]], public_key, digest)
    with pytest.raises(mpc.InvalidInputError, match="same party"):
        mpc.combine_signatures([part_a[0], part_a[0]], public_key, digest)
    with pytest.raises(mpc.InvalidInputError, match="each signer"):
        mpc.combine_signatures([part_a[0]], public_key, digest)
    with pytest.raises(mpc.InvalidInputError):
        mpc.combine_signatures([], public_key, digest)

    # One signer issued its partial for another digest: the combined signature does not verify.
    other = mpc.issue_partial_signature(run_b[1], keccak(b"something else"))
    with pytest.raises(mpc.ProtocolError, match=r"^signature verification failed$"):
        mpc.combine_signatures([part_b[0], other], public_key, digest)
    # Consistent partials checked against another wallet's key or another digest: refused too.
    with pytest.raises(mpc.ProtocolError, match="signature verification failed"):
        mpc.combine_signatures(part_a, mpc.public_key(mpc.trusted_dealer_split(b"\x09" * 32)[0]), digest)
    with pytest.raises(mpc.ProtocolError, match="signature verification failed"):
        mpc.combine_signatures(part_a, public_key, keccak(b"not what they signed"))
    # The genuine set combines.
    r, s, v = mpc.decode_signature(mpc.combine_signatures(part_a, public_key, digest))
    assert Account._recover_hash(digest, vrs=(v + 27, r, s)) == mpc.eth_address(group.key_shares[0])


def test_presignature_bad_input(group: Group) -> None:
    share = group.key_shares[0]
    digest = hashlib.sha256(b"y").digest()
    with pytest.raises(mpc.InvalidInputError, match="signers"):
        mpc.presign_session(b"e", share, [1, 2])
    with pytest.raises(mpc.InvalidInputError):
        mpc.presign_session(b"e", share, [0, 1, 2])
    with pytest.raises(mpc.InvalidInputError, match="expected key share"):
        mpc.presign_session(b"e", group.aux[0], [0, 1])
    with pytest.raises(mpc.InvalidInputError):
        mpc.presign_session(b"", share, [0, 1])

    presigs = presign(group.key_shares, [0, 1], b"py-presign-bad")
    partial = mpc.issue_partial_signature(presigs[0], digest)
    public_key = mpc.public_key(share)
    with pytest.raises(mpc.InvalidInputError, match="32 bytes"):
        mpc.issue_partial_signature(presigs[0], digest[:31])
    with pytest.raises(mpc.InvalidInputError, match="expected presignature"):
        mpc.issue_partial_signature(share, digest)
    with pytest.raises(mpc.InvalidInputError, match="expected presignature"):
        mpc.issue_partial_signature(partial, digest)
    with pytest.raises(mpc.InvalidInputError, match="expected partial signature"):
        mpc.combine_signatures(presigs, public_key, digest)
    with pytest.raises(mpc.InvalidInputError, match="32 bytes"):
        mpc.combine_signatures([partial], public_key, b"short")
    with pytest.raises(mpc.InvalidInputError, match="SEC1"):
        mpc.combine_signatures([partial], public_key[1:], digest)
    with pytest.raises(mpc.InvalidInputError, match="expected presignature"):
        mpc.presignature_info(share)
    with pytest.raises(mpc.InvalidInputError):
        mpc.share_info(presigs[0])
    with pytest.raises(TypeError):
        mpc.combine_signatures(["not bytes"], public_key, digest)  # type: ignore[list-item]

    # A signing message is not accepted by a presigning session (and does not break it).
    presigning = mpc.presign_session(b"py-mix", share, [0, 1])
    presigning.start()
    signing_msg = mpc.signing_session(b"py-mix", group.key_shares[1], [0, 1], digest).start()[0]
    with pytest.raises(mpc.InvalidMessageError, match="presigning"):
        presigning.handle(signing_msg)
    assert not presigning.failed()
