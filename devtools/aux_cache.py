"""Aux-info sets for tests and the local stack, made fast with the crate's INSECURE fixture primes.

Generating a set for real costs minutes (safe primes); with the public fixture primes
in crates/dompet-mpc/testdata the protocol itself still runs for real (≈ 15 s). The
plaintext sets are cached under `.cache/insecure-aux/<build>/` (keyed by the compiled
module, so a rebuilt core never reuses stale blobs) and sealed into the pool through
the production code path (`aux_pool.store_set`). Every set made from the fixture
primes shares the same Paillier keys: never use them outside tests and `make dev`.
"""

from __future__ import annotations

import hashlib
import struct
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TEST_PRIMES = ROOT / "crates" / "dompet-mpc" / "testdata" / "insecure_test_primes.hex"
CACHE = ROOT / ".cache" / "insecure-aux"


def insecure_test_primes() -> list[bytes]:
    lines = [line.strip() for line in TEST_PRIMES.read_text().splitlines() if line.strip()]
    return [bytes.fromhex(line) for line in lines]


def _build_id() -> str:
    import dompet_mpc

    package = Path(dompet_mpc.__file__).parent
    digest = hashlib.sha256()
    for path in sorted(package.glob("*.so")):
        digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def _encode(parts: list[bytes]) -> bytes:
    return b"".join(struct.pack(">I", len(p)) + p for p in parts)


def _decode(blob: bytes) -> list[bytes]:
    parts, offset = [], 0
    while offset < len(blob):
        (size,) = struct.unpack_from(">I", blob, offset)
        parts.append(blob[offset + 4 : offset + 4 + size])
        offset += 4 + size
    return parts


def insecure_sets(count: int) -> list[list[bytes]]:
    """`count` distinct aux-info sets (distinct runs; same fixture primes), generated once and cached."""
    from chalicelib.mpc.aux_pool import generate_set

    folder = CACHE / _build_id()
    folder.mkdir(parents=True, exist_ok=True)
    files = sorted(folder.glob("set-*.bin"))
    while len(files) < count:
        path = folder / f"set-{len(files):03d}.bin"
        tmp = path.with_suffix(".tmp")
        tmp.write_bytes(_encode(generate_set(insecure_test_primes())))
        tmp.rename(path)
        files.append(path)
    return [_decode(f.read_bytes()) for f in files[:count]]


def fill_pool(count: int) -> list[str]:
    """Seal `count` cached sets into the (current stage's) pool; returns their aux ids."""
    from chalicelib.mpc.aux_pool import store_set

    return [store_set(parts) for parts in insecure_sets(count)]
