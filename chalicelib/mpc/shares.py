"""Where each key share lives, sealed for the one function that may open it.

* share A (party 0, the signer): table `signer-shares`, KMS key `share-a`;
* share B (party 1, the cosigner): table `cosigner-shares`, KMS key `share-b`;
* share C (party 2, the user): never stored in a table; sealed under KMS key `recovery`
  into the user's `secret0`, of which the service keeps a SHA-256 hash (the recovery
  file behind `secret0Link` holds a copy until the bucket's lifecycle deletes it).

Every seal binds the wallet id and the party in the KMS encryption context, so a
sealed share copied to another wallet or party does not open.

`secret0` format: `dompet-s0.1.<walletId>.<key>.<nonce>.<ciphertext>`, the last three
base64url without padding (the KMS-encrypted data key, the AES-GCM nonce and the
sealed share). The wallet id is in clear so the service can find the wallet and
compare hashes without opening anything.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import re

from chalicelib.platform import aws
from chalicelib.platform.kms_envelope import Sealed, open_sealed, seal

SIGNER, COSIGNER, USER = 0, 1, 2
PARTY_KEY = {SIGNER: "share-a", COSIGNER: "share-b", USER: "recovery"}
SHARE_TABLE = {SIGNER: "signer-shares", COSIGNER: "cosigner-shares"}

SECRET0_PREFIX = "dompet-s0"
SECRET0_VERSION = "1"
SECRET0_MAX_LENGTH = 64 * 1024
_WALLET_ID = re.compile(r"^[0-9a-f]{32}$")
_B64URL = re.compile(r"^[A-Za-z0-9_-]+$")


class Secret0Error(ValueError):
    """Not a secret0 this service issued (wrong shape or encoding, or it does not open)."""


def share_context(wallet_id: str, party: int) -> dict[str, str]:
    return {"purpose": "key-share", "walletId": wallet_id, "party": str(party)}


def store_share(wallet_id: str, party: int, key_share: bytes) -> None:
    aws.write(share_item(wallet_id, party, key_share))


def share_item(wallet_id: str, party: int, key_share: bytes) -> aws.TxItem:
    """The sealed share's put, written once per wallet (alone, or in a transaction with what must go with it)."""
    sealed = seal(PARTY_KEY[party], key_share, share_context(wallet_id, party))
    item = {"pk": f"WALLET#{wallet_id}", "sk": f"SHARE#{party}", **sealed.to_item()}
    return aws.put("share", SHARE_TABLE[party], item)  # NEW_ITEM: a wallet's share is written once


def load_share(wallet_id: str, party: int) -> bytes:
    item = aws.table(SHARE_TABLE[party]).get_item(
        Key={"pk": f"WALLET#{wallet_id}", "sk": f"SHARE#{party}"}, ConsistentRead=True
    )["Item"]
    return open_sealed(PARTY_KEY[party], Sealed.from_item(item), share_context(wallet_id, party))


def seal_secret0(wallet_id: str, key_share: bytes, recovery_for: str | None = None) -> str:
    """Share C sealed for its holder. A key governed by a signing policy (`recovery_for`, the policy's name: e.g.
    `use: <name>-recovery`) is sealed under another encryption context, which `open_secret0` never uses: the user
    party cannot sign with it (such a key signs only with the cosigner and its policy); only an operator's recovery
    procedure, with that context, could open it."""
    context = {**share_context(wallet_id, USER), **({"use": f"{recovery_for}-recovery"} if recovery_for else {})}
    sealed = seal(PARTY_KEY[USER], key_share, context)
    parts = [_b64(sealed.encrypted_key), _b64(sealed.nonce), _b64(sealed.ciphertext)]
    return ".".join([SECRET0_PREFIX, SECRET0_VERSION, wallet_id, *parts])


def wallet_id_of(secret0: str) -> str:
    """The wallet a secret0 names; Secret0Error if it is not shaped like one."""
    return _parse(secret0)[0]


def open_secret0(secret0: str) -> tuple[str, bytes]:
    """Wallet id and share C; raises Secret0Error, or a KMS error if it was not sealed here."""
    from botocore.exceptions import ClientError
    from cryptography.exceptions import InvalidTag

    wallet_id, sealed = _parse(secret0)
    try:
        return wallet_id, open_sealed(PARTY_KEY[USER], sealed, share_context(wallet_id, USER))
    except ClientError as exc:
        if exc.response.get("Error", {}).get("Code") not in ("InvalidCiphertextException", "IncorrectKeyException"):
            raise
    except InvalidTag:
        pass
    raise Secret0Error("not sealed by this service for this wallet")


def secret0_hash(secret0: str) -> str:
    return hashlib.sha256(secret0.strip().encode()).hexdigest()


def secret0_matches(secret0: str, expected_hash: str) -> bool:
    return hmac.compare_digest(secret0_hash(secret0), expected_hash)


def _parse(secret0: str) -> tuple[str, Sealed]:
    text = secret0.strip()  # a file saved by an editor may end with a newline
    if len(text) > SECRET0_MAX_LENGTH:
        raise Secret0Error("too long")
    fields = text.split(".")
    if len(fields) != 6 or fields[0] != SECRET0_PREFIX or fields[1] != SECRET0_VERSION:
        raise Secret0Error("not a secret0")
    wallet_id, *encoded = fields[2:]
    if not _WALLET_ID.match(wallet_id) or not all(_B64URL.match(p) for p in encoded):
        raise Secret0Error("not a secret0")
    try:
        key, nonce, ciphertext = (base64.urlsafe_b64decode(p + "=" * (-len(p) % 4)) for p in encoded)
    except (binascii.Error, ValueError):
        raise Secret0Error("not a secret0") from None
    if len(nonce) != 12 or len(ciphertext) < 16:
        raise Secret0Error("not a secret0")
    return wallet_id, Sealed(key, nonce, ciphertext)


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).decode().rstrip("=")
