"""EntryPoint v0.8 operations of EIP-7702 accounts, pure: the userOpHash (the EIP-712 digest of the document the owner
signs) against viem and eth-account, with and without the 0x7702 factory; Simple7702Account's executeBatch encoding
against viem; and the calls an operation makes read back from its call data, for either account."""

from __future__ import annotations

import json
import subprocess

from eth_account import Account
from eth_account.messages import encode_typed_data
from eth_utils import keccak

from chalicelib.evm.aa import packing
from chalicelib.evm.signatures import hash_signer
from chalicelib.user_ops import build
from tests.support.scripts import ROOT

ENTRY_POINT = "0x4337084D9E255Ff0702461CF8895CE9E3b5Ff108"
DELEGATE = "0xe6Cae83BdE06E4c305530e199D7217f42808555B"
PAYMASTER = "0x" + "9a" * 20
OWNER = Account.from_key("0x" + "42" * 32)
TOKEN = "0x" + "5f" * 20
TARGETS = [build.Target(TOKEN, 0, bytes.fromhex("a9059cbb") + bytes(64)), build.Target("0x" + "11" * 20, 7, b"")]


def _op(factory: str | None) -> packing.UserOp:
    call = build.batch(TARGETS)
    return packing.UserOp(
        sender=OWNER.address,
        nonce=(123 << 64) + 0,
        call_data=call.call_data("eip7702"),
        call_gas_limit=90_000,
        verification_gas_limit=80_000,
        pre_verification_gas=70_000,
        max_fee_per_gas=3 * 10**9,
        max_priority_fee_per_gas=10**9,
        factory=factory,
        paymaster=PAYMASTER,
        paymaster_verification_gas_limit=100_000,
        paymaster_post_op_gas_limit=1,
        paymaster_data=packing.paymaster_data(2**40, 0, packing.DUMMY_SIGNATURE),
        signature=packing.DUMMY_SIGNATURE,
    )


def _viem(ops: list[dict], batch: list[list]) -> dict:
    done = subprocess.run(
        ["node", str(ROOT / "tests" / "support" / "viem_user_op_v08.mjs")],
        input=json.dumps({"ops": ops, "batch": batch}),
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
        timeout=60,
    )
    return json.loads(done.stdout)


def test_the_v08_hash_is_the_eip712_digest_viem_and_eth_account_compute():
    delegating, delegated = _op(packing.EIP7702_MARKER), _op(None)
    ours = [
        packing.user_op_hash_v08(delegating, ENTRY_POINT, 31337, DELEGATE),
        packing.user_op_hash_v08(delegated, ENTRY_POINT, 31337, DELEGATE),
    ]
    batch = [[t.to, str(t.value), "0x" + t.data.hex()] for t in TARGETS]
    theirs = _viem(
        [
            {"chainId": 31337, "entryPoint": ENTRY_POINT, "userOp": delegating.wire(), "delegate": DELEGATE},
            {"chainId": 31337, "entryPoint": ENTRY_POINT, "userOp": delegated.wire()},
        ],
        batch,
    )
    assert ["0x" + h.hex() for h in ours] == theirs["hashes"]
    assert ours[0] != ours[1]  # the delegate's address is hashed in place of the marker
    assert "0x" + delegated.call_data.hex() == theirs["batch"]
    for op, digest in zip((delegating, delegated), ours, strict=True):
        message = encode_typed_data(full_message=packing.user_op_typed_data(op, ENTRY_POINT, 31337, DELEGATE))
        assert keccak(b"\x19" + message.version + message.header + message.body) == digest
    # On chain the marker is the whole initCode; the paymaster's hash covers those two bytes.
    assert delegating.init_code() == bytes.fromhex("7702") and delegating.wire()["factory"] == "0x7702"


def test_the_owner_signs_the_hash_itself_and_submit_recovers_it():
    digest = packing.user_op_hash_v08(_op(None), ENTRY_POINT, 31337, DELEGATE)
    signature = "0x" + bytes(OWNER.unsafe_sign_hash(digest).signature).hex()
    assert hash_signer(digest, signature) == OWNER.address.lower()
    assert hash_signer(keccak(b"other"), signature) != OWNER.address.lower()
    assert hash_signer(digest, signature[:-2]) is None and hash_signer(digest, "0x" + "00" * 65) is None


def test_an_operations_calls_are_read_back_for_either_account():
    for account_type in ("simple", "eip7702"):
        assert build.targets_of(build.batch(TARGETS).call_data(account_type)) == tuple(TARGETS)
    single = build.token(TOKEN, "0x" + "22" * 20, 5)
    assert build.targets_of(single.call_data()) == single.targets
    assert build.targets_of(build.activation().call_data()) == ()
    assert build.targets_of(bytes.fromhex("deadbeef")) == ()
