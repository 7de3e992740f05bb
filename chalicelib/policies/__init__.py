"""Signing policies: what an app's MPC wallets may sign, enforced by the cosigner before it releases its share.

`document` is the rule language (a versioned JSON document), `facts` what the engine reads from a payload,
`engine` the decision (pure, no I/O), `signed` the canonical JSON and Ed25519 checks of the app's policy key.
"""
