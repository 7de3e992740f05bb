"""Principal-free EVM work: chain reads (rpc.py, erc20.py), fees and gas, nonce leases, the `Signer` protocol, and
the pipeline build → sign → record → broadcast → track.

Domains (MPC wallets, custody's withdrawals, the paymaster) bring a `Signer` and an owner id and call
`pipeline.send(...)`; nothing here knows who the caller is. See docs/wallets.md ("Sends", "Tracking").
"""
