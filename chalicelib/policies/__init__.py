"""Signing policies: what an app's MPC wallets may sign, enforced by the cosigner before it releases its share.

The pure part: `document` is the rule language (a versioned JSON document), `facts` what the engine reads from a
payload, `engine` the decision (no I/O), `signed` the canonical JSON and Ed25519 checks of the app's policy key.
The cosigner's part: `cosigner` (the `wallets` signing policy and the actions that set and read documents), `store`
(its own table's items) and `usage` (the rolling 24 h windows). The API's part: `routes`, `service`, `models`.
"""
