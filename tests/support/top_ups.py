"""Gas-tank top-ups on the anvil chains: USDT transfers to the pool and the signed claims for them. `chains` is
{"entries": registry entries, "w3": chainId -> Web3}."""

from __future__ import annotations

from eth_account import Account
from eth_account.messages import encode_defunct

ERC20_ABI = [
    {
        "name": "mint",
        "type": "function",
        "stateMutability": "nonpayable",
        "inputs": [{"name": "to", "type": "address"}, {"name": "amount", "type": "uint256"}],
        "outputs": [],
    },
    {
        "name": "transfer",
        "type": "function",
        "stateMutability": "nonpayable",
        "inputs": [{"name": "to", "type": "address"}, {"name": "amount", "type": "uint256"}],
        "outputs": [{"name": "", "type": "bool"}],
    },
    {
        "name": "balanceOf",
        "type": "function",
        "stateMutability": "view",
        "inputs": [{"name": "owner", "type": "address"}],
        "outputs": [{"name": "", "type": "uint256"}],
    },
]


def entry(chains, chain_id):
    return next(e for e in chains["entries"] if e["chainId"] == chain_id)


def transfer(chains, chain_id, amount, to=None, sender=None, gas=None, mined=True):
    """The sender (by default a fresh one, given ETH and `amount` of the network's USDT) sends it to the pool (or
    `to`); `mined`: waits until it is."""
    w3 = chains["w3"][chain_id]
    network = entry(chains, chain_id)
    sender = sender or funded(chains, chain_id, amount)
    token = w3.eth.contract(address=network["tokens"]["usdt"], abi=ERC20_ABI)
    tx = token.functions.transfer(to or network["poolAddress"], amount * (2 if gas else 1)).build_transaction(
        {
            "from": sender.address,
            "nonce": w3.eth.get_transaction_count(sender.address),
            "chainId": chain_id,
            "gas": gas or 100_000,
            "maxFeePerGas": 10**10,
            "maxPriorityFeePerGas": 10**9,
        }
    )
    tx_hash = w3.eth.send_raw_transaction(sender.sign_transaction(tx).raw_transaction)
    if mined:
        w3.eth.wait_for_transaction_receipt(tx_hash)
    return "0x" + tx_hash.hex().removeprefix("0x"), sender


def funded(chains, chain_id, amount):
    """A fresh account with ETH and `amount` of the network's USDT."""
    w3 = chains["w3"][chain_id]
    sender = Account.create()
    w3.provider.make_request("anvil_setBalance", [sender.address, hex(10**18)])
    token = w3.eth.contract(address=entry(chains, chain_id)["tokens"]["usdt"], abi=ERC20_ABI)
    w3.eth.wait_for_transaction_receipt(
        token.functions.mint(sender.address, amount).transact({"from": w3.eth.accounts[0]})
    )
    return sender


def pool_balance(chains, chain_id):
    network = entry(chains, chain_id)
    token = chains["w3"][chain_id].eth.contract(address=network["tokens"]["usdt"], abi=ERC20_ABI)
    return token.functions.balanceOf(network["poolAddress"]).call()


def request(chains, chain_id, tx_hash, signer, immediate=True, **extra):
    network = entry(chains, chain_id)
    signature = signer.sign_message(encode_defunct(text=f"{chain_id}.{tx_hash}")).signature.hex()
    return {
        "txHash": tx_hash,
        "chainId": chain_id,
        "tokenAddress": network["tokens"]["usdt"],
        "poolAddress": network["poolAddress"],
        "immediate": immediate,
        "signature": "0x" + signature.removeprefix("0x"),
        **extra,
    }
