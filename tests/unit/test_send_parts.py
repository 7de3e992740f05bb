"""Pieces of the send path on their own: amounts, nonces, transaction encoding and the receipt shape."""

from __future__ import annotations

import threading

import pytest
from eth_account import Account
from eth_keys import keys as eth_keys

from chalicelib.evm import digests, nonces
from chalicelib.evm.transactions import (
    SECP256K1_HALF_N,
    SignedAuthorization,
    UnsignedTx,
    assemble,
    receipt,
    signing_hash,
)
from chalicelib.platform import clock
from chalicelib.platform.amounts import parse_amount
from chalicelib.platform.errors import ApiError

KEY = "0x" + "11" * 32
ADDRESS = "0x19E7E376E7C213B7E7e7e46cc70A5dD086DAff2A"


@pytest.mark.parametrize(
    ("text", "decimals", "base"),
    [
        ("1", 18, 10**18),
        ("0.25", 18, 25 * 10**16),
        ("1.5", 6, 1_500_000),
        ("0.000001", 6, 1),
        ("1.50", 6, 1_500_000),
        ("12345678901.123456789012345678", 18, 12345678901123456789012345678),  # beyond Decimal's 28 digits
    ],
)
def test_amounts_are_exact(text, decimals, base):
    assert parse_amount(text, decimals) == base


@pytest.mark.parametrize(
    "text", ["abc", "0", "0.000", "-1", "+1", "1e3", " 1", "1\n", "1.", ".5", "0.0000001", "1,5", "NaN", "9" * 101]
)
def test_bad_amounts_are_400(text):
    with pytest.raises(ApiError) as bad:
        parse_amount(text, 6)
    assert (bad.value.status, bad.value.code) == (400, "INVALID_AMOUNT")


def _sign_like_mpc(digest: bytes) -> bytes:
    """What the MPC service returns: r || s || recovery id, low s."""
    signature = eth_keys.PrivateKey(bytes.fromhex(KEY[2:])).sign_msg_hash(digest)
    return signature.r.to_bytes(32, "big") + signature.s.to_bytes(32, "big") + bytes([signature.v])


# An authorization signed by eth-account (a fixed key: the module's parameters are built at import).
_AUTHORITY = Account.from_key("0x" + "22" * 32)
_AUTHORIZATION = _AUTHORITY.sign_authorization({"chainId": 31337, "address": ADDRESS, "nonce": 4})
_AUTHORIZED = {
    "chain_id": 31337,
    "address": ADDRESS,
    "nonce": 4,
    "y_parity": _AUTHORIZATION.y_parity,
    "r": _AUTHORIZATION.r,
    "s": _AUTHORIZATION.s,
}


@pytest.mark.parametrize(
    "tx",
    [
        UnsignedTx(chain_id=31337, nonce=7, to=ADDRESS, value=10**18, data=b"", gas=21_000, gas_price=3 * 10**9),
        UnsignedTx(
            chain_id=1,
            nonce=0,
            to=ADDRESS,
            value=0,
            data=bytes.fromhex("a9059cbb" + "00" * 64),
            gas=60_000,
            max_fee=40 * 10**9,
            max_priority_fee=10**9,
        ),
        UnsignedTx(
            chain_id=31337,
            nonce=3,
            to=ADDRESS,
            value=5,
            data=b"\x01\x02",
            gas=90_000,
            max_fee=3 * 10**9,
            max_priority_fee=10**9,
            authorization_list=(
                SignedAuthorization(**_AUTHORIZED),
                SignedAuthorization(**{**_AUTHORIZED, "chain_id": 0, "nonce": 0}),
            ),
        ),
    ],
    ids=["legacy", "eip1559", "set_code"],
)
def test_assembled_transaction_equals_eth_accounts_own_signing(tx):
    signed = assemble(tx, ADDRESS, _sign_like_mpc(signing_hash(tx)))
    reference = Account.sign_transaction(tx.as_dict(), KEY)
    assert signed.raw == bytes(reference.raw_transaction)
    assert signed.hash == "0x" + bytes(reference.hash).hex()
    assert (signed.r, signed.s, signed.v) == (reference.r, reference.s, reference.v)

    body = receipt(signed)
    assert body["type"] == tx.type and body["nonce"] == tx.nonce and body["chainId"] == str(tx.chain_id)
    assert body["signature"]["v"] in (27, 28)
    assert body["signature"]["networkV"] == (str(reference.v) if tx.type == 0 else None)
    assert body["accessList"] == (None if tx.type == 0 else [])
    assert UnsignedTx.from_wire(tx.wire()) == tx
    if tx.type == 4:
        listed = body["authorizationList"]
        assert [entry["nonce"] for entry in listed] == [4, 0] and listed[0]["chainId"] == 31337
        assert listed[0]["r"] == f"0x{_AUTHORIZATION.r:064x}" and listed[0]["yParity"] == _AUTHORIZATION.y_parity
        assert digests.authority(tx.authorization_list[0]) == _AUTHORITY.address
        assert digests.authority(tx.authorization_list[1]) != _AUTHORITY.address  # signed for another tuple
    else:
        assert "authorizationList" not in body and "authorizationList" not in tx.wire()


@pytest.mark.parametrize(
    ("change", "why"),
    [
        ({"authorizationList": []}, "1 to 16"),
        ({"authorizationList": [{}] * 17}, "1 to 16"),
        ({"gasPrice": "1", "maxFee": None, "maxPriorityFee": None}, "EIP-1559 fees and a recipient"),
        ({"to": None}, "EIP-1559 fees and a recipient"),
        ({"entry": {"nonce": "4"}}, "non-negative integers"),
        ({"entry": {"yParity": True}}, "non-negative integers"),
        ({"entry": {"yParity": 2}}, "out of range"),
        ({"entry": {"chainId": 2**256}}, "out of range"),
        ({"entry": {"nonce": 2**64}}, "out of range"),
        ({"entry": {"r": "0x01"}}, "64 hex digits"),
        ({"entry": {"s": f"0x{SECP256K1_HALF_N + 1:064x}"}}, "low s"),
        ({"entry": {"v": 27}}, "exactly"),
        ({"entry": {"address": "0x1234"}}, "40 hex digits"),
    ],
)
def test_a_set_code_transactions_wire_form_is_read_strictly(change, why):
    base = UnsignedTx(
        31337,
        0,
        ADDRESS,
        0,
        b"",
        60_000,
        max_fee=2,
        max_priority_fee=1,
        authorization_list=(SignedAuthorization(**_AUTHORIZED),),
    ).wire()
    entry = {**base["authorizationList"][0], **change.pop("entry", {})}
    with pytest.raises(ValueError, match=why):
        UnsignedTx.from_wire({**base, "authorizationList": [entry], **change})


def test_a_high_s_or_bad_parity_signature_is_refused():
    tx = UnsignedTx(chain_id=1, nonce=0, to=ADDRESS, value=1, data=b"", gas=21_000, gas_price=1)
    good = _sign_like_mpc(signing_hash(tx))
    high_s = good[:32] + (2**256 - 1).to_bytes(32, "big") + good[64:]
    with pytest.raises(ValueError):
        assemble(tx, ADDRESS, high_s)
    with pytest.raises(ValueError):
        assemble(tx, ADDRESS, good[:64] + b"\x05")


def test_nonces_follow_the_chain_and_fill_gaps(aws_env):
    def take(chain_pending: int, chain_id: int = 1) -> nonces.Allocation:
        return nonces.allocate(ADDRESS, chain_id, chain_pending)

    assert take(5).nonce == 5  # first use: the chain's pending nonce
    assert take(5).nonce == 6  # the counter is ahead of the node
    assert take(9).nonce == 9  # the node is ahead (sent elsewhere)
    last = take(9)
    assert last.nonce == 10
    assert nonces.release(last)  # the last one: handed out again next
    assert take(10).nonce == 10
    gap = take(10)
    assert gap.nonce == 11
    twelve = take(10)
    assert twelve.nonce == 12
    assert nonces.release(gap)  # not the last: a gap, given back
    assert take(10).nonce == 11, "the gap is filled first"
    assert take(10).nonce == 13
    assert nonces.release(twelve)
    assert take(14).nonce == 14, "a given-back nonce the chain passed is dropped"
    assert take(0, chain_id=2).nonce == 0, "each chain has its own counter"


def test_a_nonce_held_by_a_send_that_died_is_given_back_after_its_lease(aws_env):
    from chalicelib.platform import aws

    settled = nonces.allocate(ADDRESS, 1, chain_pending=0)
    aws.transact([nonces.commit_item(settled)])  # this send recorded its transaction
    lost = nonces.allocate(ADDRESS, 1, chain_pending=1)  # this one dies: never recorded nor released
    assert (settled.nonce, lost.nonce) == (0, 1)
    kept = nonces.allocate(ADDRESS, 1, chain_pending=1)
    assert kept.nonce == 2, "within its lease the nonce stays taken"
    aws.transact([nonces.commit_item(kept)])
    clock.travel(nonces.LEASE_S + 1)
    try:
        assert nonces.allocate(ADDRESS, 1, chain_pending=1).nonce == 1, "the gap is filled"
        assert nonces.allocate(ADDRESS, 1, chain_pending=1).nonce == 3
    finally:
        clock.reset()


def test_concurrent_allocations_are_distinct_and_consecutive(aws_env):
    got: list[int] = []
    threads = [threading.Thread(target=lambda: got.append(nonces.allocate(ADDRESS, 1, 0).nonce)) for _ in range(20)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(got) == list(range(20))


def test_a_set_code_transaction_is_re_priced_with_its_authorizations_and_cancelled_without(aws_env):
    """A speed-up (or a bump) signs the same transaction at higher fees: its authorizations stay, valid at the same
    nonce. A cancel is the plain no-op at the nonce."""
    from chalicelib.evm import engine, tracking
    from chalicelib.evm.fees import Fees
    from chalicelib.platform.networks import Network

    network = Network.model_validate(
        {"name": "local-a", "chainId": 31337, "rpcUrls": ["http://127.0.0.1:9"], "nativeSymbol": "ETH"}
    )
    tx = UnsignedTx(
        31337,
        0,
        ADDRESS,
        0,
        b"",
        60_000,
        max_fee=2 * 10**9,
        max_priority_fee=10**9,
        authorization_list=(SignedAuthorization(**_AUTHORIZED),),
    )
    signed = assemble(tx, ADDRESS, _sign_like_mpc(signing_hash(tx)))
    tracking.record("w1", network, signed, "delegation", receipt(signed), None)
    record = tracking.read(signed.hash)
    assert record is not None and record.unsigned() == tx
    offered = Fees(max_fee=3 * 10**9, max_priority_fee=2 * 10**9)
    faster = engine._replacement_of(record, offered, cancel=False)
    assert faster.authorization_list == tx.authorization_list and faster.type == 4
    assert (faster.max_fee, faster.max_priority_fee, faster.nonce) == (3 * 10**9, 2 * 10**9, 0)
    cancel = engine._replacement_of(record, offered, cancel=True)
    assert cancel.authorization_list == () and cancel.type == 2 and (cancel.to, cancel.data) == (ADDRESS, b"")
