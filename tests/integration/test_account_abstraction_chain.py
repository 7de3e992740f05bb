"""ERC-4337 v0.7 on the local chains, checked on the chain: the canonical contracts, the paymaster,
the Alto bundlers, and one user operation from a new SimpleAccount through Alto to its receipt."""

from __future__ import annotations

import os
import time
from typing import Any

import pytest
import requests
from eth_abi import decode, encode
from eth_abi.packed import encode_packed
from eth_account import Account
from eth_account.messages import encode_defunct
from web3 import Web3
from web3.exceptions import ContractCustomError, ContractLogicError

from devtools import aa, chain

pytestmark = pytest.mark.integration

SENDER_ADDRESS_RESULT = Web3.keccak(text="SenderAddressResult(address)")[:4]


def _w3(network: dict[str, Any]) -> Web3:
    return Web3(Web3.HTTPProvider(network["rpc"]))


def _contract(w3: Web3, address: str, name: str) -> Any:
    return w3.eth.contract(address=Web3.to_checksum_address(address), abi=aa.load_aa_artifact(name)["abi"])


def _calldata(signature: str, types: list[str], args: list[Any]) -> bytes:
    return Web3.keccak(text=signature)[:4] + encode(types, args)


def _bundler(url: str, method: str, params: list[Any]) -> Any:
    answer = requests.post(url, json={"jsonrpc": "2.0", "id": 1, "method": method, "params": params}, timeout=30)
    body = answer.json()
    assert "error" not in body, f"{method}: {body['error']}"
    return body["result"]


def _factory_init_code(factory: str, owner: str, salt: int) -> bytes:
    factory_data = _calldata("createAccount(address,uint256)", ["address", "uint256"], [owner, salt])
    return encode_packed(["address", "bytes"], [factory, factory_data])


def _sender_address(w3: Web3, entry_point: str, init_code: bytes) -> str:
    """EntryPoint.getSenderAddress always reverts, with SenderAddressResult(sender)."""
    data = _calldata("getSenderAddress(bytes)", ["bytes"], [init_code])
    with pytest.raises((ContractCustomError, ContractLogicError)) as reverted:
        w3.eth.call({"to": Web3.to_checksum_address(entry_point), "data": data})
    revert = bytes.fromhex(str(reverted.value.data).removeprefix("0x"))
    assert revert[:4] == SENDER_ADDRESS_RESULT, revert.hex()
    (sender,) = decode(["address"], revert[4:])
    return Web3.to_checksum_address(sender)


def test_canonical_contracts_on_both_chains(aa_chains) -> None:
    assert [c["chainId"] for c in aa_chains] == [31337, 31338]
    for network in aa_chains:
        w3 = _w3(network)
        assert network["entryPoint"] == aa.ENTRY_POINT == "0x0000000071727De22E5E9d8BAf0edAc6f37da032"
        assert network["accountFactory"] == aa.ACCOUNT_FACTORY == "0x91E60e0613810449d098b0b5Ec8b51A0FE8c8985"
        for address in (network["entryPoint"], network["accountFactory"], network["paymaster"]):
            assert w3.eth.get_code(address), f"no code at {address} on {network['name']}"
        factory = _contract(w3, network["accountFactory"], "SimpleAccountFactory")
        assert factory.functions.accountImplementation().call() != "0x" + "00" * 20
        # v0.8 for EIP-7702 accounts, canonical too: Simple7702Account names that EntryPoint in its code.
        assert network["entryPointV08"] == aa.ENTRY_POINT_V08 == "0x4337084D9E255Ff0702461CF8895CE9E3b5Ff108"
        assert network["eip7702Account"] == aa.SIMPLE_7702_ACCOUNT
        account = w3.eth.contract(
            address=network["eip7702Account"], abi=aa.load_aa_artifact("Simple7702Account", "0.8")["abi"]
        )
        assert account.functions.entryPoint().call() == aa.ENTRY_POINT_V08
        # A second deployment changes nothing.
        assert aa.deploy_core(network["rpc"]) == {
            "entryPoint": network["entryPoint"],
            "accountFactory": network["accountFactory"],
            "entryPointV08": network["entryPointV08"],
            "eip7702Account": network["eip7702Account"],
        }


def test_factory_address_matches_entry_point(aa_chains) -> None:
    owner = Account.create().address
    for network in aa_chains:
        w3 = _w3(network)
        factory = _contract(w3, network["accountFactory"], "SimpleAccountFactory")
        for salt in (0, 7):
            predicted = factory.functions.getAddress(owner, salt).call()
            init_code = _factory_init_code(network["accountFactory"], owner, salt)
            assert _sender_address(w3, network["entryPoint"], init_code) == predicted
            assert not w3.eth.get_code(predicted)  # counterfactual: nothing deployed yet


def test_the_services_counterfactual_address_is_the_factorys(aa_chains) -> None:
    """evm/aa/counterfactual.py computes, without an RPC call, what the factory and the EntryPoint say."""
    from chalicelib.evm.aa import counterfactual

    artifact = aa.load_aa_artifact("SimpleAccountFactory")["deployedBytecode"]
    assert bytes.fromhex(artifact[2:])[1188:2235] == counterfactual.PROXY_CREATION_CODE  # the pinned artifact's
    for network in aa_chains:
        w3 = _w3(network)
        factory = _contract(w3, network["accountFactory"], "SimpleAccountFactory")
        assert factory.functions.accountImplementation().call() == counterfactual.implementation(
            network["accountFactory"]
        )
        for _ in range(3):
            owner = Account.create().address
            ours = counterfactual.account_address(network["accountFactory"], owner)
            assert ours == factory.functions.getAddress(owner, counterfactual.SALT).call()
            init_code = encode_packed(
                ["address", "bytes"], [network["accountFactory"], counterfactual.factory_data(owner)]
            )
            assert ours == _sender_address(w3, network["entryPoint"], init_code)


def test_paymaster_signer_and_deposit(aa_chains) -> None:
    for network in aa_chains:
        w3 = _w3(network)
        paymaster = _contract(w3, network["paymaster"], "VerifyingPaymaster")
        assert paymaster.functions.verifyingSigner().call() == w3.eth.accounts[1]
        assert paymaster.functions.entryPoint().call() == network["entryPoint"]
        assert paymaster.functions.owner().call() == w3.eth.accounts[0]
        entry_point = _contract(w3, network["entryPoint"], "EntryPoint")
        assert entry_point.functions.balanceOf(network["paymaster"]).call() == 100 * 10**18
        assert paymaster.functions.getDeposit().call() == 100 * 10**18


def test_deploy_paymaster_for_another_signer(aa_chains) -> None:
    network = aa_chains[1]
    signer = Account.create().address
    address = aa.deploy_paymaster(network["rpc"], signer, deposit_wei=3 * 10**18)
    w3 = _w3(network)
    assert address != network["paymaster"] and Web3.is_checksum_address(address)
    assert _contract(w3, address, "VerifyingPaymaster").functions.verifyingSigner().call() == signer
    assert _contract(w3, network["entryPoint"], "EntryPoint").functions.balanceOf(address).call() == 3 * 10**18


def test_pool_address_is_a_fixed_anvil_account(aa_chains) -> None:
    for network in aa_chains:
        w3 = _w3(network)
        assert network["poolAddress"] == w3.eth.accounts[-1] == aa.pool_address(network["rpc"])


def test_bundlers_answer_per_chain(aa_chains) -> None:
    assert aa_chains[0]["bundlerUrl"] != aa_chains[1]["bundlerUrl"]
    for network in aa_chains:
        url = network["bundlerUrl"]
        supported = [Web3.to_checksum_address(e) for e in _bundler(url, "eth_supportedEntryPoints", [])]
        assert supported == [aa.ENTRY_POINT, aa.ENTRY_POINT_V08]
        assert int(_bundler(url, "eth_chainId", []), 16) == network["chainId"]


def test_usdt18_has_18_decimals(aa_chains) -> None:
    for network in aa_chains:
        w3 = _w3(network)
        assert set(network["tokens"]) == set(chain.TEST_CONTRACTS)
        usdt18 = w3.eth.contract(address=network["tokens"]["usdt18"], abi=chain.load_artifact("TestUSDT18")["abi"])
        assert (usdt18.functions.symbol().call(), usdt18.functions.decimals().call()) == ("USDT", 18)
    assert aa_chains[0]["tokens"]["usdt18"] != aa_chains[1]["tokens"]["usdt18"]


def test_networks_registry_file(aa_chains, tmp_path) -> None:
    import json

    path = aa_chains.write_networks(tmp_path / "networks.json", {"local-b": {"paymaster": "0x" + "11" * 20}})
    entries = {n["name"]: n for n in json.loads(path.read_text())["networks"]}
    assert entries["local-a"]["bundlerUrls"] == [aa_chains[0]["bundlerUrl"]]
    assert entries["local-a"]["paymaster"] == aa_chains[0]["paymaster"]
    assert entries["local-b"]["paymaster"] == "0x" + "11" * 20
    for entry in entries.values():
        assert entry["entryPoint"] == aa.ENTRY_POINT and entry["nativeToGasTankRate"] == "2000"
        assert (entry["clientFeeBps"], entry["serviceFeeBps"]) == (0, 0)


def test_alto_stop_ends_the_process(aa_chains) -> None:
    network = aa_chains[0]
    port = chain.free_port()
    alto = aa.start_alto(network["rpc"], port)
    assert alto.running()
    assert int(_bundler(alto.url, "eth_chainId", []), 16) == network["chainId"]
    pid = alto.pid
    alto.stop()
    alto.stop()  # idempotent
    assert not alto.running()
    with pytest.raises(ProcessLookupError):
        os.killpg(pid, 0)  # no process of its group is left
    with pytest.raises(requests.ConnectionError):
        requests.post(alto.url, json={"jsonrpc": "2.0", "id": 1, "method": "eth_chainId", "params": []}, timeout=2)


def test_alto_refuses_a_busy_port(aa_chains) -> None:
    busy = int(aa_chains[0]["bundlerUrl"].rsplit(":", 1)[1])
    with pytest.raises(chain.ChainError, match="in use"):
        aa.start_alto(aa_chains[0]["rpc"], busy)


# Anvil account 1's well-known key: the verifying signer of the aa_chains paymasters.
PAYMASTER_SIGNER_KEY = "0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d"


def _init_code(op: dict[str, Any]) -> bytes:
    return encode_packed(["address", "bytes"], [op["factory"], op["factoryData"]]) if op.get("factory") else b""


def _paymaster_gas(op: dict[str, Any]) -> bytes:
    return encode_packed(["uint128", "uint128"], [op["paymasterVerificationGasLimit"], op["paymasterPostOpGasLimit"]])


def _paymaster_and_data(op: dict[str, Any]) -> bytes:
    if not op.get("paymaster"):
        return b""
    return encode_packed(["address", "bytes", "bytes"], [op["paymaster"], _paymaster_gas(op), op["paymasterData"]])


def _packed(op: dict[str, Any]) -> tuple[Any, ...]:
    """The PackedUserOperation tuple (EntryPoint.getUserOpHash, VerifyingPaymaster.getHash)."""
    return (
        op["sender"],
        op["nonce"],
        _init_code(op),
        op["callData"],
        encode_packed(["uint128", "uint128"], [op["verificationGasLimit"], op["callGasLimit"]]),
        op["preVerificationGas"],
        encode_packed(["uint128", "uint128"], [op["maxPriorityFeePerGas"], op["maxFeePerGas"]]),
        _paymaster_and_data(op),
        op["signature"],
    )


def _user_op_hash(op: dict[str, Any], entry_point: str, chain_id: int) -> bytes:
    """ERC-4337 v0.7: keccak(abi.encode(keccak(abi.encode(packed fields, bytes hashed)), entryPoint, chainId))."""
    sender, nonce, init_code, call_data, account_gas_limits, pre_verification_gas, gas_fees, pm_and_data, _ = _packed(
        op
    )
    packed = encode(
        ["address", "uint256", "bytes32", "bytes32", "bytes32", "uint256", "bytes32", "bytes32"],
        [
            sender,
            nonce,
            Web3.keccak(init_code),
            Web3.keccak(call_data),
            account_gas_limits,
            pre_verification_gas,
            gas_fees,
            Web3.keccak(pm_and_data),
        ],
    )
    return Web3.keccak(encode(["bytes32", "address", "uint256"], [Web3.keccak(packed), entry_point, chain_id]))


def _sponsor(op: dict[str, Any], paymaster: str, chain_id: int, signer: Any) -> bytes:
    """Fill paymasterData as VerifyingPaymaster 0.7.0 checks it: abi.encode(validUntil, validAfter) then
    the signer's EIP-191 signature of keccak(abi.encode(op fields, paymaster gas limits, chainid, paymaster,
    validUntil, validAfter)); 0/0 means valid at any time."""
    valid_until, valid_after = 0, 0
    sender, nonce, init_code, call_data, account_gas_limits, pre_verification_gas, gas_fees, _, _ = _packed(op)
    digest = Web3.keccak(
        encode(
            [
                "address",
                "uint256",
                "bytes32",
                "bytes32",
                "bytes32",
                "uint256",
                "uint256",
                "bytes32",
                "uint256",
                "address",
                "uint48",
                "uint48",
            ],
            [
                sender,
                nonce,
                Web3.keccak(init_code),
                Web3.keccak(call_data),
                account_gas_limits,
                int.from_bytes(_paymaster_gas(op), "big"),
                pre_verification_gas,
                gas_fees,
                chain_id,
                paymaster,
                valid_until,
                valid_after,
            ],
        )
    )
    signature = signer.sign_message(encode_defunct(primitive=digest)).signature
    op["paymasterData"] = encode(["uint48", "uint48"], [valid_until, valid_after]) + bytes(signature)
    return digest


def _wire(op: dict[str, Any]) -> dict[str, str]:
    """The unpacked v0.7 JSON-RPC form: quantities and bytes as hex."""
    return {
        k: (hex(v) if isinstance(v, int) else v if isinstance(v, str) else "0x" + bytes(v).hex()) for k, v in op.items()
    }


def _sign(op: dict[str, Any], owner: Any, entry_point: str, chain_id: int) -> bytes:
    # SimpleAccount checks an EIP-191 signature of the userOpHash by its owner.
    user_op_hash = _user_op_hash(op, entry_point, chain_id)
    op["signature"] = bytes(owner.sign_message(encode_defunct(primitive=user_op_hash)).signature)
    return user_op_hash


def _new_account_op(w3: Web3, network: dict[str, Any], owner: Any, call_data: bytes, fees: dict[str, str]) -> dict:
    entry_point = _contract(w3, network["entryPoint"], "EntryPoint")
    sender = _contract(w3, network["accountFactory"], "SimpleAccountFactory").functions.getAddress(owner.address, 0)
    sender_address = sender.call()
    return {
        "sender": sender_address,
        "nonce": entry_point.functions.getNonce(sender_address, 0).call(),
        "factory": network["accountFactory"],
        "factoryData": _calldata("createAccount(address,uint256)", ["address", "uint256"], [owner.address, 0]),
        "callData": call_data,
        "callGasLimit": 200_000,
        "verificationGasLimit": 1_000_000,
        "preVerificationGas": 100_000,
        "maxFeePerGas": int(fees["maxFeePerGas"], 16),
        "maxPriorityFeePerGas": int(fees["maxPriorityFeePerGas"], 16),
        "signature": b"",
    }


def _send_and_wait(w3: Web3, network: dict[str, Any], op: dict[str, Any], owner: Any, sponsor: Any = None) -> dict:
    """Estimate, sign (paymaster, then account), send through Alto and wait for the receipt."""
    entry_point, chain_id, bundler = network["entryPoint"], network["chainId"], network["bundlerUrl"]

    def sign() -> bytes:
        if sponsor is not None:
            _sponsor(op, network["paymaster"], chain_id, sponsor)
        return _sign(op, owner, entry_point, chain_id)

    sign()  # valid signatures, so the simulation validates the operation as sent
    estimate = _bundler(bundler, "eth_estimateUserOperationGas", [_wire(op), entry_point])
    for field in ("callGasLimit", "verificationGasLimit", "preVerificationGas"):
        op[field] = int(estimate[field], 16)
    if sponsor is not None:
        for field in ("paymasterVerificationGasLimit", "paymasterPostOpGasLimit"):
            op[field] = max(op[field], int(estimate.get(field) or "0x0", 16))
    user_op_hash = sign()
    assert _contract(w3, entry_point, "EntryPoint").functions.getUserOpHash(_packed(op)).call() == bytes(user_op_hash)

    sent = _bundler(bundler, "eth_sendUserOperation", [_wire(op), entry_point])
    assert sent.lower() == "0x" + bytes(user_op_hash).hex()
    deadline = time.monotonic() + 30
    while (receipt := _bundler(bundler, "eth_getUserOperationReceipt", [sent])) is None:
        assert time.monotonic() < deadline, "no user operation receipt within 30 s"
        time.sleep(0.2)
    assert receipt["success"] is True, receipt
    assert Web3.to_checksum_address(receipt["sender"]) == op["sender"]
    assert w3.eth.get_transaction_receipt(receipt["receipt"]["transactionHash"])["status"] == 1
    assert w3.eth.get_code(op["sender"])  # the factory deployed the account
    assert _contract(w3, op["sender"], "SimpleAccount").functions.owner().call() == owner.address
    return receipt


@pytest.mark.parametrize("name", ["local-a", "local-b"])
def test_user_operation_through_alto(aa_chains, name: str) -> None:
    """A new SimpleAccount, prefunded with ETH, sends ETH: the account pays its own gas."""
    network = aa_chains.by_name(name)
    w3 = _w3(network)
    owner, recipient = Account.create(), Account.create().address
    fees = _bundler(network["bundlerUrl"], "pimlico_getUserOperationGasPrice", [])["fast"]
    call_data = _calldata("execute(address,uint256,bytes)", ["address", "uint256", "bytes"], [recipient, 10**17, b""])
    op = _new_account_op(w3, network, owner, call_data, fees)
    # Prefund the counterfactual account directly: it pays the EntryPoint from its balance.
    funding = w3.eth.send_transaction({"from": w3.eth.accounts[0], "to": op["sender"], "value": 10**18})
    assert w3.eth.wait_for_transaction_receipt(funding, timeout=30)["status"] == 1

    receipt = _send_and_wait(w3, network, op, owner)

    assert w3.eth.get_balance(recipient) == 10**17
    # The account paid the required prefund into the EntryPoint; what the operation did not use stays
    # there as the account's deposit.
    prefund = 10**18 - 10**17 - w3.eth.get_balance(op["sender"])
    left = _contract(w3, network["entryPoint"], "EntryPoint").functions.balanceOf(op["sender"]).call()
    assert 0 < int(receipt["actualGasCost"], 16) == prefund - left


def test_sponsored_user_operation_through_alto(aa_chains) -> None:
    """A new SimpleAccount without any ETH mints USDT-18; the VerifyingPaymaster pays the gas."""
    network = aa_chains.by_name("local-b")
    w3 = _w3(network)
    sponsor = Account.from_key(PAYMASTER_SIGNER_KEY)
    assert sponsor.address == w3.eth.accounts[1]
    owner, recipient = Account.create(), Account.create().address
    usdt18 = network["tokens"]["usdt18"]
    mint = _calldata("mint(address,uint256)", ["address", "uint256"], [recipient, 5 * 10**18])
    call_data = _calldata("execute(address,uint256,bytes)", ["address", "uint256", "bytes"], [usdt18, 0, mint])
    fees = _bundler(network["bundlerUrl"], "pimlico_getUserOperationGasPrice", [])["fast"]
    op = _new_account_op(w3, network, owner, call_data, fees)
    op.update(
        paymaster=network["paymaster"],
        paymasterVerificationGasLimit=100_000,
        paymasterPostOpGasLimit=0,
        paymasterData=b"",
    )
    paymaster = _contract(w3, network["paymaster"], "VerifyingPaymaster")
    entry_point = _contract(w3, network["entryPoint"], "EntryPoint")
    deposit_before = entry_point.functions.balanceOf(network["paymaster"]).call()

    receipt = _send_and_wait(w3, network, op, owner, sponsor=sponsor)

    assert Web3.to_checksum_address(receipt["paymaster"]) == network["paymaster"]
    token = w3.eth.contract(address=usdt18, abi=chain.load_artifact("TestUSDT18")["abi"])
    assert token.functions.balanceOf(recipient).call() == 5 * 10**18
    assert w3.eth.get_balance(op["sender"]) == 0
    cost = int(receipt["actualGasCost"], 16)
    assert cost > 0 and entry_point.functions.balanceOf(network["paymaster"]).call() == deposit_before - cost
    assert paymaster.functions.parsePaymasterAndData(_paymaster_and_data(op)).call()[:2] == [0, 0]
    # Our paymaster hash is the contract's own.
    digest = _sponsor(dict(op), network["paymaster"], network["chainId"], sponsor)
    assert paymaster.functions.getHash(_packed(op), 0, 0).call() == bytes(digest)
