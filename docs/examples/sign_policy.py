#!/usr/bin/env python3
"""Sign a Dompet signing policy with your app's policy key, ready for `PUT /api/v1/policies` (docs/policies.md).

The policy key is an Ed25519 key that only you hold. Dompet knows only its public key, which the operator registers
(`python -m chalicelib.operator set-policy-key --app-id APP --client-id CLIENT --public-key BASE64`). The
signature covers the RFC 8785 (JCS) canonical JSON of `{"appId": APP_ID, "policy": <the policy object>}`, so it sets
the policy of that app only, even where one key is registered for several apps. The body can be formatted any way
you like, because Dompet canonicalizes the policy it receives before it checks the signature.

    pip install pynacl rfc8785
    python sign_policy.py new-key > policy-key.b64                # once: the seed of a new key (keep it secret)
    python sign_policy.py sign APP_ID policy.json policy-key.b64 > body.json
    python sign_policy.py rotate APP_ID NEW_PUBLIC_KEY SEQUENCE policy-key.b64 > rotation.json

`sign` and `rotate` print the public key of the key they sign with on stderr, so you can register it or check it.
`rotate` signs a new public key with the current key, for `PUT /api/v1/policies/key`. SEQUENCE is the current
sequence + 1. The operator's registration is sequence 1, and each rotation's answer gives the new sequence.
"""

import base64
import json
import sys
from pathlib import Path

import rfc8785
from nacl.signing import SigningKey


def load_key(path: str) -> SigningKey:
    # The file holds the base64 of the 32-byte Ed25519 seed (what `new-key` prints).
    return SigningKey(base64.b64decode(Path(path).read_text().strip(), validate=True))


def sign(key: SigningKey, message: object) -> str:
    # Sign the canonical bytes, not the file's own formatting: the key order, spacing and escapes are fixed by JCS.
    return base64.b64encode(key.sign(rfc8785.dumps(message)).signature).decode()


def main(args: list[str]) -> None:
    if args[:1] == ["new-key"]:
        print(base64.b64encode(bytes(SigningKey.generate())).decode())
        return
    if args[:1] == ["sign"] and len(args) == 4:
        key = load_key(args[3])
        policy = json.loads(Path(args[2]).read_text(encoding="utf-8"))
        # The exact message Dompet verifies: this policy, for this app only.
        message = {"appId": args[1], "policy": policy}
        print(json.dumps({"policy": policy, "signature": sign(key, message)}))
    elif args[:1] == ["rotate"] and len(args) == 5:
        key = load_key(args[4])
        # The exact message Dompet verifies: the current key approves the new one, for this app, once (sequence).
        message = {"action": "rotate-policy-key", "appId": args[1], "publicKey": args[2], "sequence": int(args[3])}
        print(json.dumps({"publicKey": args[2], "signature": sign(key, message)}))
    else:
        sys.exit(__doc__)
    print("public key:", base64.b64encode(bytes(key.verify_key)).decode(), file=sys.stderr)


if __name__ == "__main__":
    main(sys.argv[1:])
