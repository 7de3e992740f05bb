"""Dompet: creates the Chalice app, wires the hooks (chalicelib/wiring.py) and registers the blueprints, nothing
else."""

from chalice import Chalice

from chalicelib.auth.routes import bp as auth
from chalicelib.console.audit_routes import bp as audit_log
from chalicelib.console.pages import bp as console
from chalicelib.console.views import bp as console_views
from chalicelib.custody.functions import bp as custody_workers
from chalicelib.custody.routes import bp as custody
from chalicelib.evm.functions import bp as tx_tracker
from chalicelib.gas_tanks.functions import bp as gas_tank_checks
from chalicelib.gas_tanks.routes import bp as gas_tanks
from chalicelib.mpc.functions import bp as mpc_parties
from chalicelib.platform.networks import registry
from chalicelib.platform.router import platform_bp
from chalicelib.platform.settings import load_settings
from chalicelib.policies.routes import bp as policies
from chalicelib.smart_accounts.routes import bp as smart_accounts
from chalicelib.system.routes import bp as system
from chalicelib.user_ops.functions import bp as user_op_tracker
from chalicelib.user_ops.routes import bp as user_ops
from chalicelib.wallets.routes import bp as wallets
from chalicelib.webhooks.functions import bp as webhook_workers
from chalicelib.webhooks.routes import bp as webhooks
from chalicelib.wiring import wire

load_settings()  # a bad setting stops start-up here, naming the variable
registry()
wire()  # every hook (chalicelib/wiring.py)

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
