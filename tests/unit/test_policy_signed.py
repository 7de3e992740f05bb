"""Signed policy documents: RFC 8785 canonical JSON (the RFC's own examples), Ed25519 with PyNaCl (RFC 8032
vectors, tampering, wrong keys), key ids and the parsing of registered public keys."""

from __future__ import annotations

import base64
import hashlib
import json
import struct

import pytest
from nacl.signing import SigningKey

from chalicelib.policies import signed
from chalicelib.policies.document import PolicyDocument
from chalicelib.policies.signed import PolicyKeyError

# RFC 8785 section 3.2.4 (after 3.2.2's rules for numbers, strings and literals).
RFC_INPUT = r"""{
  "numbers": [333333333.33333329, 1E30, 4.50, 2e-3, 0.000000000000000000000000001],
  "string": "\u20ac$\u000F\u000aA'\u0042\u0022\u005c\\\"\/",
  "literals": [null, true, false]
}"""
RFC_OUTPUT = (
    r"""{"literals":[null,true,false],"numbers":[333333333.3333333,1e+30,4.5,0.002,1e-27]"""
    r""","string":"€$\u000f\nA'B\"\\\\\"/"}"""
)

# RFC 8785 section 3.2.3: members sorted by their UTF-16 code units, so U+1F600 (D83D DE00) sorts before U+FB33.
SORT_INPUT = r"""{
  "\u20ac": "Euro Sign",
  "\r": "Carriage Return",
  "\ufb33": "Hebrew Letter Dalet With Dagesh",
  "1": "One",
  "\ud83d\ude00": "Emoji: Grinning Face",
  "\u0080": "Control",
  "\u00f6": "Latin Small Letter O With Diaeresis"
}"""
SORT_KEYS = ["\r", "1", "\u0080", "\u00f6", "\u20ac", "\U0001f600", "\ufb33"]

# RFC 8785 appendix B: IEEE 754 doubles and their JCS serialization (None: not representable).
NUMBERS = [
    ("0000000000000000", "0"),
    ("8000000000000000", "0"),
    ("0000000000000001", "5e-324"),
    ("8000000000000001", "-5e-324"),
    ("7fefffffffffffff", "1.7976931348623157e+308"),
    ("ffefffffffffffff", "-1.7976931348623157e+308"),
    ("4340000000000000", "9007199254740992"),
    ("c340000000000000", "-9007199254740992"),
    ("4430000000000000", "295147905179352830000"),
    ("7fffffffffffffff", None),
    ("7ff0000000000000", None),
    ("44b52d02c7e14af5", "9.999999999999997e+22"),
    ("44b52d02c7e14af6", "1e+23"),
    ("44b52d02c7e14af7", "1.0000000000000001e+23"),
    ("444b1ae4d6e2ef4e", "999999999999999700000"),
    ("444b1ae4d6e2ef4f", "999999999999999900000"),
    ("444b1ae4d6e2ef50", "1e+21"),
    ("3eb0c6f7a0b5ed8c", "9.999999999999997e-7"),
    ("3eb0c6f7a0b5ed8d", "0.000001"),
    ("41b3de4355555553", "333333333.3333332"),
    ("41b3de4355555554", "333333333.33333325"),
    ("41b3de4355555555", "333333333.3333333"),
    ("41b3de4355555556", "333333333.3333334"),
    ("41b3de4355555557", "333333333.33333343"),
    ("becbf647612f3696", "-0.0000033333333333333333"),
    ("43143ff3c1cb0959", "1424953923781206.2"),
]

# RFC 8032 section 7.1, tests 1 and 2: secret key, public key, message, signature.
ED25519 = [
    (
        "9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60",
        "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a",
        "",
        "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e06522490155"
        "5fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b",
    ),
    (
        "4ccd089b28ff96da9db6c346ec114e0f5b8a319f35aba624da8cf6ed4fb8a6fb",
        "3d4017c3e843895a92b70aa74d1b7ebc9c982ccf2ec4968cc0cd55f12af4660c",
        "72",
        "92a009a9f0d4cab8720e820b5f642540a2b27b5416503f8fb3762223ebdb69da"
        "085ac1e43e15996e458f3613d0f11d8c387b2eaeb4302aeeb00d291612bb0c00",
    ),
]

POLICY = {
    "version": 2,
    "default": "deny",
    "transactions": {
        "maxValue": {"native": "1000000000000000000"},
        "destinations": {"allow": ["0x5FbDB2315678afecb367f032d93F642f64180aa3"]},
    },
    "messages": {"personal": False, "typedData": [{"chainId": 31337, "primaryType": "Permit"}]},
}


def _key(seed: int = 1) -> SigningKey:
    return SigningKey(bytes([seed]) * 32)


def _public(key: SigningKey) -> bytes:
    return bytes(key.verify_key)


# Canonical JSON.


def test_the_rfc_example_canonicalizes_to_the_rfc_bytes():
    assert signed.canonical(json.loads(RFC_INPUT)) == RFC_OUTPUT.encode("utf-8")


def test_members_are_sorted_by_utf16_code_units():
    text = signed.canonical(json.loads(SORT_INPUT))
    assert list(json.loads(text)) == SORT_KEYS
    # The non-ASCII keys are written as UTF-8, not escaped; control characters are escaped.
    assert text.startswith(b'{"\\r":"Carriage Return","1":"One","\xc2\x80":"Control","\xc3\xb6":')
    assert "\U0001f600".encode() in text


@pytest.mark.parametrize(("ieee", "expected"), NUMBERS, ids=[n[0] for n in NUMBERS])
def test_numbers_are_written_as_ecmascript_does(ieee: str, expected: str | None):
    (number,) = struct.unpack(">d", bytes.fromhex(ieee))
    if expected is None:
        with pytest.raises(ValueError):
            signed.canonical(number)
    else:
        assert signed.canonical([number]) == f"[{expected}]".encode()


def test_what_json_cannot_carry_exactly_is_refused():
    assert signed.canonical(2**53 - 1) == b"9007199254740991"
    for value in (2**53, -(2**53), {"a": "\ud800"}, {1: "key"}, {"a": {1, 2}}):
        with pytest.raises(ValueError):
            signed.canonical(value)


def test_formatting_and_member_order_do_not_change_the_canonical_bytes():
    reordered = json.loads(json.dumps(POLICY, indent=4, sort_keys=True))
    reordered["transactions"] = dict(reversed(list(reordered["transactions"].items())))
    assert signed.canonical(reordered) == signed.canonical(POLICY)
    assert signed.canonical(POLICY) == json.dumps(POLICY, sort_keys=True, separators=(",", ":")).encode()


# Signatures.


@pytest.mark.parametrize(("secret", "public", "message", "signature"), ED25519)
def test_rfc8032_vectors(secret: str, public: str, message: str, signature: str):
    key = SigningKey(bytes.fromhex(secret))
    assert _public(key).hex() == public
    assert key.sign(bytes.fromhex(message)).signature.hex() == signature
    assert signed.verify(bytes.fromhex(public), bytes.fromhex(message), bytes.fromhex(signature))


def test_a_signed_policy_verifies_and_parses():
    key = _key()
    signature = key.sign(signed.canonical(POLICY)).signature
    assert signed.verify(_public(key), signed.canonical(POLICY), signature)
    # What the cosigner stores (the canonical text) reads back as the same document.
    stored = json.loads(signed.canonical(POLICY))
    assert PolicyDocument.parse(stored, networks=[]) == PolicyDocument.parse(POLICY, networks=[])


def test_a_tampered_policy_does_not_verify():
    key = _key()
    signature = key.sign(signed.canonical(POLICY)).signature
    looser = json.loads(json.dumps(POLICY))
    looser["transactions"]["maxValue"]["native"] = "1000000000000000001"
    replayed = {**POLICY, "version": 3}
    defaulted = {**POLICY, "default": "allow"}
    extended = {**POLICY, "networks": ["local-a"]}
    for document in (looser, replayed, defaulted, extended):
        assert not signed.verify(_public(key), signed.canonical(document), signature)


def test_a_wrong_key_or_a_broken_signature_does_not_verify():
    key, other = _key(1), _key(2)
    message = signed.canonical(POLICY)
    signature = key.sign(message).signature
    assert not signed.verify(_public(other), message, signature)
    assert not signed.verify(_public(key), message, other.sign(message).signature)
    flipped = bytes([signature[0] ^ 1]) + signature[1:]
    # Never raises, whatever it is given.
    for public_key, sig in (
        (_public(key), flipped),
        (_public(key), signature[:-1]),
        (_public(key), signature + b"\x00"),
        (_public(key), b""),
        (_public(key)[:-1], signature),
        (b"", signature),
        (bytes(32), signature),  # a point of small order
        (b"\xff" * 32, signature),  # not a point of the curve
        (_public(key), bytes(64)),
    ):
        assert signed.verify(public_key, message, sig) is False


def test_the_rotation_message():
    new = base64.b64encode(_public(_key(2))).decode()
    assert signed.rotation_message("app_1", new, 2) == (
        b'{"action":"rotate-policy-key","appId":"app_1","publicKey":"' + new.encode() + b'","sequence":2}'
    )
    signature = _key(1).sign(signed.rotation_message("app_1", new, 2)).signature
    assert signed.verify(_public(_key(1)), signed.rotation_message("app_1", new, 2), signature)
    # Another app, another sequence: another message.
    assert not signed.verify(_public(_key(1)), signed.rotation_message("app_2", new, 2), signature)
    assert not signed.verify(_public(_key(1)), signed.rotation_message("app_1", new, 3), signature)


# Keys.


def test_key_id_is_stable():
    public = bytes.fromhex(ED25519[0][1])
    assert signed.key_id(public) == "pk_21fe31dfa154a261"
    assert signed.key_id(public) == "pk_" + hashlib.sha256(public).hexdigest()[:16]
    assert signed.key_id(public) != signed.key_id(bytes.fromhex(ED25519[1][1]))


def test_parse_public_key():
    public = _public(_key())
    assert signed.parse_public_key(base64.b64encode(public).decode()) == public


@pytest.mark.parametrize(
    "text",
    [
        "",
        "not base64!",
        base64.b64encode(bytes(31) + b"\x01").decode().rstrip("="),  # padding missing
        base64.b64encode(b"\x01" * 31).decode(),
        base64.b64encode(b"\x01" * 33).decode(),
        base64.b64encode(bytes(32)).decode(),  # small order: nothing would ever verify
        base64.b64encode(b"\x01" + bytes(31)).decode(),  # the identity point
        base64.urlsafe_b64encode(bytes.fromhex("fb" * 32)).decode(),  # URL-safe alphabet
        " " + base64.b64encode(bytes.fromhex(ED25519[0][1])).decode(),
        "é" * 44,
    ],
)
def test_a_bad_public_key_is_refused(text: str):
    with pytest.raises(PolicyKeyError) as caught:
        signed.parse_public_key(text)
    assert caught.value.code == "INVALID_POLICY_KEY"


def test_a_non_string_public_key_is_refused():
    with pytest.raises(PolicyKeyError):
        signed.parse_public_key(None)  # type: ignore[arg-type]
