"""The local stack's test tokens on anvil (open mint, local chain ids only), as a depositor would use them."""

from __future__ import annotations

from typing import Any

MINT_AND_TRANSFER_ABI = [
    {
        "name": name,
        "type": "function",
        "stateMutability": "nonpayable",
        "outputs": [],
        "inputs": [{"name": "to", "type": "address"}, {"name": "amount", "type": "uint256"}],
    }
    for name in ("mint", "transfer")
]


def pay(w3: Any, token_address: str, to: str, amount: int, sender_index: int) -> str:
    """Mint `amount` to anvil account `sender_index`, then transfer it to `to` from there; the transfer's hash,
    mined."""
    token = w3.eth.contract(address=token_address, abi=MINT_AND_TRANSFER_ABI)
    sender = w3.eth.accounts[sender_index]
    w3.eth.wait_for_transaction_receipt(token.functions.mint(sender, amount).transact({"from": sender}))
    sent = token.functions.transfer(to, amount).transact({"from": sender})
    w3.eth.wait_for_transaction_receipt(sent)
    return "0x" + bytes(sent).hex()
