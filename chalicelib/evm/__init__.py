"""Principal-free EVM sending: build (fees, gas, nonce lease), sign through a `Signer`, record, broadcast, track.

Domains (wallets today; custody hot wallets, the paymaster tomorrow) bring a `Signer` and an owner id and call
`pipeline.send(...)`; nothing here knows who the caller is. See docs/wallets.md ("Sends", "Tracking").
"""
