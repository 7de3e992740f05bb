"""EIP-7702 authorizations as the parties are shown them (evm/digests.py): the hash every party computes itself,
against the public vector, viem's `hashAuthorization` and an RLP encoding written here from the EIP; and the
bodies that are not one."""

from __future__ import annotations

import pytest
import rlp
from eth_account import Account
from eth_utils import keccak
from hypothesis import given, settings
from hypothesis import strategies as st

from chalicelib.evm import digests
from chalicelib.evm.digests import Signable
from tests.support.authorizations import viem

DELEGATE = "0x1234567890123456789012345678901234567890"


def from_the_eip(chain_id: int, address: str, nonce: int) -> bytes:
    """keccak256(MAGIC ‖ rlp([chain_id, address, nonce])), MAGIC = 0x05."""
    return bytes(keccak(b"\x05" + rlp.encode([chain_id, bytes.fromhex(address[2:]), nonce])))


def viem_hashes(tuples: list[tuple[int, str, int]]) -> list[str]:
    tuples_in = [{"chainId": str(c), "address": a, "nonce": str(n)} for c, a, n in tuples]
    return [str(h).removeprefix("0x") for h in viem({"action": "hash", "tuples": tuples_in})]


def test_the_public_vector() -> None:
    payload = digests.authorization(8545, DELEGATE, 1)
    expected = "b847dee5b33802280f3279d57574e1eb6bf5d628d7f63049e3cb20bad211056c"
    assert digests.digest_of(payload).hex() == expected


def test_hashes_agree_with_viem_and_the_eip_including_any_chain_and_revocation() -> None:
    tuples = [
        (8545, DELEGATE, 1),
        (0, DELEGATE, 0),  # any chain
        (31337, "0x0000000000000000000000000000000000000000", 7),  # a revocation
        (1, "0x5cE9454909639D2D17A3F753ce7d93fa0b9aB12E", 2**32),  # mixed case: the address's bytes count
        (2**53 - 1, DELEGATE, 2**53 - 1),  # viem takes numbers: its largest exact one
    ]
    ours = [digests.digest_of(digests.authorization(*t)).hex() for t in tuples]
    assert ours == viem_hashes(tuples)
    assert ours == [from_the_eip(*t).hex() for t in tuples]


@settings(max_examples=200, deadline=None)
@given(
    chain_id=st.integers(0, digests.MAX_AUTHORIZATION_CHAIN_ID),
    address=st.binary(min_size=20, max_size=20),
    nonce=st.integers(0, digests.MAX_AUTHORIZATION_NONCE),
)
def test_every_tuple_within_the_eips_bounds_hashes_as_the_eip_says(chain_id: int, address: bytes, nonce: int) -> None:
    hex_address = "0x" + address.hex()
    assert digests.digest_of(digests.authorization(chain_id, hex_address, nonce)) == from_the_eip(
        chain_id, hex_address, nonce
    )


def test_a_signature_of_the_digest_is_the_authorization_eth_account_signs() -> None:
    key = "0x" + "aa" * 32
    signed = Account.sign_authorization({"chainId": 1337, "address": DELEGATE, "nonce": 3}, key)
    assert digests.digest_of(digests.authorization(1337, DELEGATE, 3)) == bytes(signed.authorization_hash)


@pytest.mark.parametrize(
    "body",
    [
        {"chainId": 1, "address": DELEGATE},  # no nonce
        {"chainId": 1, "address": DELEGATE, "nonce": 0, "extra": 1},
        {"chainId": "1", "address": DELEGATE, "nonce": 0},  # a string is not a number
        {"chainId": 1, "address": DELEGATE, "nonce": True},  # nor is a bool
        {"chainId": -1, "address": DELEGATE, "nonce": 0},
        {"chainId": 2**256, "address": DELEGATE, "nonce": 0},
        {"chainId": 1, "address": DELEGATE, "nonce": 2**64},
        {"chainId": 1, "address": DELEGATE[:-2], "nonce": 0},
        {"chainId": 1, "address": DELEGATE[2:] + "00", "nonce": 0},
        {"chainId": 1, "address": 1234, "nonce": 0},
    ],
)
def test_a_body_that_is_not_an_authorization_hashes_to_nothing(body: dict[str, object]) -> None:
    with pytest.raises(ValueError):
        digests.digest_of(Signable(kind="authorization", authorization=body))


def test_an_authorization_payload_carries_only_its_own_body() -> None:
    with pytest.raises(ValueError):
        Signable(kind="authorization", message="0x00", authorization={"chainId": 1, "address": DELEGATE, "nonce": 0})
    with pytest.raises(ValueError):
        Signable(kind="personal_message", authorization={"chainId": 1, "address": DELEGATE, "nonce": 0})
