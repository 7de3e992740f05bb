"""The service's v0.7 packing against the real EntryPoint, VerifyingPaymaster and Alto: userOpHash and the
paymaster hash equal the contracts' own, estimation works with placeholder signatures, and an operation
sponsored by the service's KMS paymaster key deploys the account and does its call on chain."""

from __future__ import annotations

import secrets
import time
from typing import Any

import pytest
import requests
from eth_account import Account
from eth_account.messages import encode_defunct

from chalicelib.evm.aa import counterfactual, packing
from chalicelib.evm.abi import encode_call
from chalicelib.evm.kms_signer import KmsSigner
from chalicelib.evm.signatures import with_v27
from devtools import aa, chain

pytestmark = pytest.mark.integration


def bundler(url: str, method: str, params: list[Any]) -> Any:
    body = requests.post(url, json={"jsonrpc": "2.0", "id": 1, "method": method, "params": params}, timeout=30).json()
    assert "error" not in body, f"{method}: {body['error']}"
    return body["result"]


def test_a_kms_sponsored_operation_estimated_with_placeholders_runs_on_chain(aa_chains, aws_env) -> None:
    from web3 import Web3

    network = aa_chains.by_name("local-a")
    w3 = Web3(Web3.HTTPProvider(network["rpc"]))
    signer = KmsSigner("paymaster-signer")
    paymaster = aa.deploy_paymaster(network["rpc"], signer.address)
    owner, recipient = Account.create(), Account.create().address
    token = network["tokens"]["usdt18"]
    sender = counterfactual.account_address(network["accountFactory"], owner.address)
    mint = encode_call("mint(address,uint256)", recipient, 7 * 10**18)
    fees = bundler(network["bundlerUrl"], "pimlico_getUserOperationGasPrice", [])["fast"]
    valid_until = int(time.time()) + 600
    op = packing.UserOp(
        sender=sender,
        nonce=secrets.randbits(192) << 64,  # a fresh 2-D nonce key: sequence 0, no RPC needed
        call_data=encode_call("execute(address,uint256,bytes)", token, 0, mint),
        factory=network["accountFactory"],
        factory_data=counterfactual.factory_data(owner.address),
        max_fee_per_gas=int(fees["maxFeePerGas"], 16),
        max_priority_fee_per_gas=int(fees["maxPriorityFeePerGas"], 16),
        paymaster=paymaster,
        paymaster_verification_gas_limit=100_000,
        paymaster_data=packing.paymaster_data(valid_until, 0, packing.DUMMY_SIGNATURE),
        signature=packing.DUMMY_SIGNATURE,
    )
    estimate = bundler(network["bundlerUrl"], "eth_estimateUserOperationGas", [op.wire(), network["entryPoint"]])
    op = op.with_(
        call_gas_limit=int(estimate["callGasLimit"], 16),
        verification_gas_limit=int(estimate["verificationGasLimit"], 16),
        pre_verification_gas=int(estimate["preVerificationGas"], 16),
        paymaster_verification_gas_limit=int(estimate.get("paymasterVerificationGasLimit") or "0x186a0", 16),
        paymaster_post_op_gas_limit=int(estimate.get("paymasterPostOpGasLimit") or "0x0", 16),
    )
    digest = packing.paymaster_hash(op, network["chainId"], valid_until, 0)
    verifying = w3.eth.contract(address=paymaster, abi=aa.load_aa_artifact("VerifyingPaymaster")["abi"])
    assert verifying.functions.getHash(op.packed(), valid_until, 0).call() == digest
    op = op.with_(
        paymaster_data=packing.paymaster_data(
            valid_until, 0, with_v27(signer.sign_digest(packing.eth_signed_message_hash(digest)))
        )
    )
    assert len(op.paymaster_and_data()) == packing.PAYMASTER_DATA_LENGTH
    user_op_hash = packing.user_op_hash(op, network["entryPoint"], network["chainId"])
    entry_point = w3.eth.contract(address=network["entryPoint"], abi=aa.load_aa_artifact("EntryPoint")["abi"])
    assert entry_point.functions.getUserOpHash(op.packed()).call() == user_op_hash
    op = op.with_(signature=bytes(owner.sign_message(encode_defunct(primitive=user_op_hash)).signature))

    sent = bundler(network["bundlerUrl"], "eth_sendUserOperation", [op.wire(), network["entryPoint"]])
    assert sent == "0x" + user_op_hash.hex()
    deadline = time.monotonic() + 30
    while (receipt := bundler(network["bundlerUrl"], "eth_getUserOperationReceipt", [sent])) is None:
        assert time.monotonic() < deadline
        time.sleep(0.1)
    assert receipt["success"] is True and receipt["paymaster"].lower() == paymaster.lower()
    erc20 = w3.eth.contract(address=token, abi=chain.load_artifact("TestUSDT18")["abi"])
    assert erc20.functions.balanceOf(recipient).call() == 7 * 10**18  # the call ran
    assert w3.eth.get_code(sender)  # the first operation deployed the account
    assert int(receipt["actualGasCost"], 16) <= op.max_cost_wei()
