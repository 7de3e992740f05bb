"""EIP-7702 authorizations checked by viem (tests/support/viem_authorization.mjs), independent of the service."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
VIEM = ROOT / "tests" / "support" / "viem_authorization.mjs"


def viem(request: dict[str, object]) -> list[object]:
    """viem's hashes of authorization tuples ({"action": "hash", "tuples"}) or its verdicts on signed ones
    ({"action": "verify", "items"}); integers as decimal strings."""
    done = subprocess.run(
        ["node", str(VIEM)], input=json.dumps(request), cwd=ROOT, capture_output=True, text=True, check=True
    )
    answer: list[object] = json.loads(done.stdout)
    return answer


def eth_account_authority(signed: dict[str, Any]) -> str:
    """The address eth-account recovers from an answer of sign-authorization (or an `authorizationList` entry, which
    has no `hash`), over eth-account's own hash of the tuple (which must be the answer's `hash`)."""
    from eth_account.datastructures import SignedSetCodeAuthorization
    from eth_account.typed_transactions.set_code_transaction import Authorization
    from eth_keys import keys
    from eth_utils import to_checksum_address

    address = bytes.fromhex(signed["address"][2:])
    tuple_hash = Authorization(signed["chainId"], address, signed["nonce"]).hash()
    if "hash" in signed:
        assert "0x" + bytes(tuple_hash).hex() == signed["hash"], "the answer's hash is not the tuple's"
    y_parity, r, s = signed["yParity"], int(signed["r"], 16), int(signed["s"], 16)
    authorization = SignedSetCodeAuthorization(
        chain_id=signed["chainId"],
        address=address,
        nonce=signed["nonce"],
        y_parity=y_parity,
        r=r,
        s=s,
        signature=keys.Signature(vrs=(y_parity, r, s)),
        authorization_hash=tuple_hash,
    )
    return str(to_checksum_address(authorization.authority))


def viem_verifies(signer: str, signed: dict[str, Any]) -> bool:
    """viem's verifyAuthorization of an answer of sign-authorization for `signer`, and its recovered address."""
    (verdict,) = viem({"action": "verify", "items": [{"signer": signer, **{k: str(v) for k, v in signed.items()}}]})
    return verdict == {"valid": True, "recovered": signer}
