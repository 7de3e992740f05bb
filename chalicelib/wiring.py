"""The one place every hook is registered: `wire()`, called by each entry point (app.py, which the Lambda
functions and the local stack load; the operator's command, chalicelib/operator.py; the tests, tests/conftest.py).

A lower package asks through a `platform.hooks.Hooks`; the domain that answers defines the value; only this module
registers it. The hooks:

* `mpc.cosigner_checks.POLICIES`: the cosigner's signing policies by name: custody keys' (EVM and Bitcoin)
  (custody/withdrawals/cosigner_check.py) and the wallets' (policies/cosigner_check.py, the apps' signed policy
  documents);
* `mpc.cosigner_checks.ACTIONS`: the cosigner's actions other than MPC runs (policies/cosigner_check.py:
  policy-set, policy-get, policy-evaluate, policy-key-rotate);
* `smart_accounts.tanks.OWNER_TANKS`: the gas tank a smart-account owner is created and shown with
  (gas_tanks/service.py);
* `evm.engine.OWNERS`: the transaction engine's owners by kind of transaction: the wallets' sends
  (wallets/sending.py) and the custody withdrawals and deployments (custody/withdrawals/sending.py), whose
  signers re-price them and which are told of their settled transactions;
* `platform.outbox`'s subscriber: what records an event a plan writes, and delivers it to the app's URL
  (webhooks/events.py).
"""

from __future__ import annotations

from chalicelib.custody.withdrawals.cosigner_check import CUSTODY_BITCOIN_POLICY, CUSTODY_POLICY
from chalicelib.custody.withdrawals.sending import WITHDRAWAL_SENDS
from chalicelib.evm import engine
from chalicelib.gas_tanks.service import OWNER_TANKS
from chalicelib.mpc import cosigner_checks as signing_policies
from chalicelib.platform import outbox
from chalicelib.policies.cosigner_check import ACTIONS as POLICY_ACTIONS
from chalicelib.policies.cosigner_check import WALLET_POLICY
from chalicelib.smart_accounts import tanks as owner_tanks
from chalicelib.wallets.sending import WALLET_SENDS
from chalicelib.webhooks import events as webhook_events


def wire() -> None:
    """Register every hook (again: each registration replaces its key's value)."""
    # Without these the cosigner refuses every governed key rather than sign.
    signing_policies.register(CUSTODY_POLICY)
    signing_policies.register(CUSTODY_BITCOIN_POLICY)
    signing_policies.register(WALLET_POLICY)
    for name, handler in POLICY_ACTIONS.items():
        signing_policies.register_action(name, handler)
    owner_tanks.register(OWNER_TANKS)
    engine.register(WALLET_SENDS)
    engine.register(WITHDRAWAL_SENDS)
    outbox.subscribe(webhook_events.record)
