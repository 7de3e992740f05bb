"""MPC wallets signing messages, used for real against the local stack (`make dev`, the session's `stack` fixture):
an EIP-2612 permit the wallet signs is submitted by another account and moves the test token on chain, and a
Sign-In with Ethereum message the wallet signs is verified by viem's SIWE implementation (tests/support/siwe.mjs)."""

from __future__ import annotations

import json
import subprocess
import time
import uuid
from concurrent.futures import ThreadPoolExecutor

import pytest
import requests
from eth_account import Account
from eth_account.messages import encode_defunct, encode_typed_data
from web3 import Web3
from web3.exceptions import ContractCustomError, ContractLogicError

from devtools import chain
from tests.support import permit
from tests.support.scripts import ROOT

pytestmark = pytest.mark.integration

SIWE_SCRIPT = ROOT / "tests" / "support" / "siwe.mjs"


def new_wallet(info):
    """A fresh MPC wallet of the demo tenant, created over HTTP: (address, a caller of its Family W routes)."""
    api, secret = info["apiUrl"], info["demo"]["clientSecret"]
    sub_id = f"sig-{uuid.uuid4()}"
    login = requests.post(
        f"{api}/api/v1/auth/login", headers={"x-client-secret": secret}, json={"subId": sub_id}, timeout=30
    )
    assert login.status_code == 200, login.text
    token = login.json()["data"]["accessToken"]
    created = requests.post(
        f"{api}/api/v1/account/create",
        headers={"x-client-secret": secret, "Authorization": f"Bearer {token}"},
        json={},
        timeout=60,
    )
    assert created.status_code == 200, created.text
    wallet = created.json()["data"]

    def call(path, body=None, method="POST"):
        headers = {"x-client-secret": secret, "Authorization": f"Bearer {wallet['walletToken']}"}
        return requests.request(method, api + path, headers=headers, json=body, timeout=60)

    return wallet["address"], call


@pytest.fixture(scope="module")
def wallet(stack):
    """One wallet for the module: the stack seeds key material for only a few (DOMPET_DEV_AUX_SETS)."""
    return new_wallet(stack["info"])


def transact(w3, call, sender):
    receipt = w3.eth.wait_for_transaction_receipt(call.transact({"from": sender}), timeout=30, poll_latency=0.05)
    assert receipt["status"] == 1, dict(receipt)
    return receipt


@pytest.mark.parametrize("network_index", [0, 1], ids=["local-a", "local-b"])
def test_a_permit_the_wallet_signs_moves_its_tokens_on_chain(stack, wallet, network_index):
    info = stack["info"]
    network = info["networks"][network_index]
    w3 = Web3(Web3.HTTPProvider(network["rpcUrl"]))
    token = permit.token(w3, network["tokens"]["permit"])
    owner, call = wallet
    # The wallet never sends a transaction: a different anvil account mints, submits the permit and pulls.
    spender = w3.eth.accounts[7]
    to = Account.create().address
    transact(w3, token.functions.mint(owner, 10 * 10**18), spender)

    value, amount = 4 * 10**18, 3 * 10**18
    deadline = w3.eth.get_block("latest")["timestamp"] + 3600
    document = permit.typed_data(token, owner, spender, value, deadline)
    signed = call("/api/v1/wallet/sign-typed-data", {"typedData": document})
    assert signed.status_code == 200, signed.text
    data = signed.json()["data"]
    assert Web3.to_checksum_address(data["address"]) == owner
    assert bytes.fromhex(data["domainSeparator"].removeprefix("0x")) == token.functions.DOMAIN_SEPARATOR().call()
    assert data["hash"].lower() == "0x" + _typed_data_digest(document).hex()
    v, r, s = permit.split(data["signature"])
    assert v in (27, 28)

    transact(w3, token.functions.permit(owner, spender, value, deadline, v, r, s), spender)
    assert token.functions.allowance(owner, spender).call() == value
    assert token.functions.nonces(owner).call() == 1
    transact(w3, token.functions.transferFrom(owner, to, amount), spender)
    assert token.functions.balanceOf(owner).call() == 10 * 10**18 - amount
    assert token.functions.balanceOf(to).call() == amount
    assert token.functions.allowance(owner, spender).call() == value - amount

    # The permit's nonce is spent: the same signature is refused by the token.
    with pytest.raises((ContractCustomError, ContractLogicError)):
        token.functions.permit(owner, spender, value, deadline, v, r, s).transact({"from": spender})
    assert token.functions.allowance(owner, spender).call() == value - amount


def _typed_data_digest(document):
    """The EIP-712 digest by eth-account (the signable message's parts, hashed as in EIP-191 version 0x01)."""
    signable = encode_typed_data(full_message=document)
    return Web3.keccak(b"\x19" + signable.version + signable.header + signable.body)


def siwe(request):
    done = subprocess.run(
        ["node", str(SIWE_SCRIPT)], input=json.dumps(request), capture_output=True, text=True, timeout=60, check=False
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_a_sign_in_with_ethereum_message_verifies_with_viem(stack, wallet):
    info = stack["info"]
    network = info["networks"][0]
    address, call = wallet
    nonce = uuid.uuid4().hex  # SIWE nonces are alphanumeric, at least 8 characters
    message = siwe(
        {
            "action": "create",
            "fields": {
                "domain": "app.example.com",
                "address": address,
                "statement": "Sign in to Example with your Dompet wallet.",
                "uri": "https://app.example.com/login",
                "version": "1",
                "chainId": network["chainId"],
                "nonce": nonce,
                "issuedAt": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
            },
        }
    )["message"]

    signed = call("/api/v1/wallet/sign-message", {"message": message})
    assert signed.status_code == 200, signed.text
    data = signed.json()["data"]
    assert Web3.to_checksum_address(data["address"]) == address
    check = {
        "action": "verify",
        "rpc": network["rpcUrl"],
        "chainId": network["chainId"],
        "domain": "app.example.com",
        "nonce": nonce,
        "address": address,
        "message": message,
        "signature": data["signature"],
    }
    assert siwe(check) == {"valid": True, "recovered": address}

    # The same message's bytes, sent hex-encoded, sign the same EIP-191 digest.
    as_hex = call("/api/v1/wallet/sign-message", {"message": "0x" + message.encode().hex(), "encoding": "hex"})
    assert as_hex.status_code == 200, as_hex.text
    assert as_hex.json()["data"]["messageHash"] == data["messageHash"]
    assert siwe({**check, "signature": as_hex.json()["data"]["signature"]})["valid"] is True

    # Tampered: another URI in the signed text, or a valid signature of the text by another key, fails verification.
    tampered = message.replace("https://app.example.com/login", "https://evil.example.com/login")
    assert tampered != message
    assert siwe({**check, "message": tampered})["valid"] is False
    theirs = Account.create().sign_message(encode_defunct(text=message)).signature.hex()
    assert siwe({**check, "signature": "0x" + theirs.removeprefix("0x")})["valid"] is False


def test_the_permit_token_refuses_a_non_local_chain():
    chain.compile_contracts()
    with chain.start_anvil(chain.free_port(), 1) as mainnet_id:
        w3 = Web3(Web3.HTTPProvider(mainnet_id.rpc_url))
        artifact = chain.load_artifact("TestPermitToken")
        contract = w3.eth.contract(abi=artifact["abi"], bytecode=artifact["bytecode"])
        with pytest.raises(ContractCustomError) as raised:
            contract.constructor().transact({"from": w3.eth.accounts[0]})
        selector = Web3.keccak(text="NotALocalChain(uint256)")[:4].hex()
        assert raised.value.data == "0x" + selector.removeprefix("0x") + (1).to_bytes(32, "big").hex()


def test_concurrent_signatures_of_one_wallet_each_verify_and_are_each_listed_once(stack, wallet):
    """Six sign-message requests of one wallet at once, over HTTP against the stack (its moto server, its
    presignature pool of two): every answer is a signature of its own message by the wallet, whether it came from a
    presignature or from full signing, and the wallet's list holds each exactly once."""
    owner, call = wallet
    texts = [f"concurrent {n} {uuid.uuid4()}" for n in range(6)]
    with ThreadPoolExecutor(max_workers=6) as pool:
        answers = list(pool.map(lambda text: call("/api/v1/wallet/sign-message", {"message": text}), texts))
    for text, answer in zip(texts, answers, strict=True):
        assert answer.status_code == 200, answer.text
        signed = answer.json()["data"]
        assert Account.recover_message(encode_defunct(text=text), signature=signed["signature"]) == owner
    hashes = {answer.json()["data"]["messageHash"] for answer in answers}
    assert len(hashes) == 6
    listed = call("/api/v1/wallet/signatures?limit=100", method="GET")
    assert listed.status_code == 200, listed.text
    entries = [e["hash"] for e in listed.json()["data"]["data"] if e["hash"] in hashes]
    assert sorted(entries) == sorted(hashes)
