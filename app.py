"""Dompet: creates the Chalice app, registers the blueprints, the cosigner's signing policies and actions, the
owners' gas tanks, the transaction engine's owners and the recorder of events, nothing else."""

from chalice import Chalice

from chalicelib.auth.routes import bp as auth
from chalicelib.console.pages import bp as console
from chalicelib.console.routes import bp as audit_log
from chalicelib.console.views import bp as console_views
from chalicelib.custody.functions import bp as custody_workers
from chalicelib.custody.policy import CUSTODY_POLICY
from chalicelib.custody.routes import bp as custody
from chalicelib.custody.sending import WITHDRAWAL_SENDS
from chalicelib.evm import engine
from chalicelib.evm.functions import bp as tx_tracker
from chalicelib.gas_tanks.functions import bp as gas_tank_checks
from chalicelib.gas_tanks.routes import bp as gas_tanks
from chalicelib.gas_tanks.service import OWNER_TANKS
from chalicelib.mpc import policies as signing_policies
from chalicelib.mpc.functions import bp as mpc_parties
from chalicelib.platform import outbox
from chalicelib.platform.networks import registry
from chalicelib.platform.router import platform_bp
from chalicelib.platform.settings import load_settings
from chalicelib.policies.cosigner import ACTIONS as POLICY_ACTIONS
from chalicelib.policies.cosigner import WALLET_POLICY
from chalicelib.policies.routes import bp as policies
from chalicelib.smart_accounts import tanks as owner_tanks
from chalicelib.smart_accounts.routes import bp as smart_accounts
from chalicelib.system.routes import bp as system
from chalicelib.user_ops.functions import bp as user_op_tracker
from chalicelib.user_ops.routes import bp as user_ops
from chalicelib.wallets.routes import bp as wallets
from chalicelib.wallets.sending import WALLET_SENDS
from chalicelib.webhooks import events as webhook_events
from chalicelib.webhooks.functions import bp as webhook_workers
from chalicelib.webhooks.routes import bp as webhooks

load_settings()  # a bad setting stops start-up here, naming the variable
registry()
# What the cosigner (its function, or the in-process parties locally) asks before it signs with a governed key;
# without this registration it refuses every custody key rather than sign.
signing_policies.register(CUSTODY_POLICY)
# The apps' signing policies over their clients' wallets, and the cosigner's actions that set and read them.
signing_policies.register(WALLET_POLICY)
for name, handler in POLICY_ACTIONS.items():
    signing_policies.register_action(name, handler)
# The gas tank a smart-account owner is created with and shown with: gas tanks build on smart accounts, which
# declare what they need and do not import them.
owner_tanks.register(OWNER_TANKS)
# The wallets' and withdrawals' transactions, which the engine's tracker re-prices with their own signers.
engine.register(WALLET_SENDS)
engine.register(WITHDRAWAL_SENDS)
# Every event a plan writes: the webhooks domain stores it and delivers it to the app's URL.
outbox.subscribe(webhook_events.record)

app = Chalice(app_name="dompet")
app.register_blueprint(platform_bp)
app.register_blueprint(system)
app.register_blueprint(auth)
app.register_blueprint(wallets)
app.register_blueprint(mpc_parties)
app.register_blueprint(tx_tracker)
app.register_blueprint(smart_accounts)
app.register_blueprint(gas_tanks)
app.register_blueprint(gas_tank_checks)
app.register_blueprint(user_ops)
app.register_blueprint(user_op_tracker)
app.register_blueprint(webhooks)
app.register_blueprint(webhook_workers)
app.register_blueprint(custody)
app.register_blueprint(custody_workers)
app.register_blueprint(policies)
app.register_blueprint(audit_log)
app.register_blueprint(console)
app.register_blueprint(console_views)
