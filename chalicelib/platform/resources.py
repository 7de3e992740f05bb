"""Every AWS resource Dompet uses, defined once.

The local bootstrap (`devtools/bootstrap.py`, also used by the tests) and the CDK
stack (`infra/stack.py`) both read these definitions, so a table, queue, key,
secret or bucket cannot exist in one place and be missing in the other.

Physical names are derived from the stage so that code never needs a lookup:
tables and queues are `dompet-<stage>-<name>`, KMS keys are reached through the
alias `alias/dompet-<stage>-<name>`, secrets are `dompet/<stage>/<name>`.
Buckets also take a suffix (account and region on AWS) because their names are
global.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal, TypeVar

Access = Literal["read", "write", "read_write"]
KeyAccess = Literal["encrypt", "decrypt", "encrypt_decrypt", "sign"]
_Named = TypeVar("_Named", "Table", "Function")


@dataclass(frozen=True)
class Index:
    name: str
    partition_key: str
    sort_key: str | None = None


@dataclass(frozen=True)
class Table:
    name: str
    purpose: str
    partition_key: str = "pk"
    sort_key: str | None = "sk"
    indexes: tuple[Index, ...] = ()
    ttl_attribute: str | None = None


@dataclass(frozen=True)
class Queue:
    name: str
    purpose: str
    visibility_timeout_s: int = 60
    max_receive_count: int = 5  # then the message moves to `<name>-dlq`
    retention_s: int = 4 * 24 * 3600
    dlq_retention_s: int = 14 * 24 * 3600


@dataclass(frozen=True)
class Key:
    name: str
    purpose: str
    spec: str = "SYMMETRIC_DEFAULT"
    usage: str = "ENCRYPT_DECRYPT"


@dataclass(frozen=True)
class Secret:
    name: str
    purpose: str


@dataclass(frozen=True)
class Bucket:
    name: str
    purpose: str
    expire_after_days: int = 1  # lifecycle rule: objects are deleted after this


@dataclass(frozen=True)
class Grant:
    """What one function may do with one resource."""

    kind: Literal["table", "queue", "key", "secret", "bucket", "function"]
    name: str
    access: str  # Access, KeyAccess, or "invoke" for a function


@dataclass(frozen=True)
class Function:
    """A Lambda function of the Chalice app and the least privilege it needs.

    `name` is the Chalice function name (`api_handler` for the REST API,
    otherwise the decorated function's name).
    """

    name: str
    purpose: str
    grants: tuple[Grant, ...] = field(default_factory=tuple)
    consumes: tuple[str, ...] = ()  # queues whose messages trigger it (one SQS event source each)
    timeout_s: int = 28  # below API Gateway's 29 s for the API; longer for background work
    memory_mb: int = 512  # Lambda's CPU share grows with memory; the MPC parties need it
    # Background work that requests never wait for: on AWS its SQS event source runs at most this many at once
    # (so its calls to shared functions, the cosigner, keep room for requests); locally it runs at a lower CPU
    # priority than the API (devtools/workers.py).
    background_concurrency: int | None = None
    # What runs it, declared by app.py (platform/lazy_app.py): the module whose function of this name handles its
    # events (imported on the first one); the schedule, a Chalice expression, or else the SQS source's batch size
    # for `consumes`, or else a function invoked directly. The API function's handlers are its routes.
    entry: str = ""
    schedule: str | None = None
    batch_size: int = 1


TABLES: tuple[Table, ...] = (
    Table(
        name="tenancy",
        purpose="Organizations, clients (hashed secrets) and apps (KMS-encrypted secrets).",
    ),
    Table(
        name="users",
        purpose="End users of a client, keyed by the client's own subject id.",
    ),
    Table(
        name="auth-state",
        purpose="Short-lived auth state: hashed refresh tokens and request-signature replay markers.",
        ttl_attribute="expiresAt",
    ),
    Table(
        name="wallets",
        purpose="MPC wallets: address, owning client and user, hash of secret0; plus an address-uniqueness item "
        "and each wallet's list of message signatures (wallets/history.py).",
    ),
    Table(
        name="signer-shares",
        purpose="Key share A of each wallet, envelope-encrypted under KMS key share-a. Read by the API only.",
    ),
    Table(
        name="cosigner-shares",
        purpose="Key share B of each wallet, envelope-encrypted under KMS key share-b. Read by the cosigner only.",
    ),
    Table(
        name="signer-presignatures",
        purpose="Party A's shares of each wallet's presignatures (single use), sealed under a per-wallet data key "
        "that KMS key share-a protects. Read by the API and the presignature refill only.",
        ttl_attribute="expiresAt",
    ),
    Table(
        name="cosigner-presignatures",
        purpose="Party B's shares of each wallet's presignatures (single use), sealed under a per-wallet data key "
        "that KMS key share-b protects, and the cosigner's hourly presignature count per client. Read by the "
        "cosigner only.",
        ttl_attribute="expiresAt",
    ),
    Table(
        name="aux-pool",
        purpose="Pre-generated cggmp21 auxiliary info, one set per future wallet; each party's part sealed for it.",
    ),
    Table(
        name="mpc-mailbox",
        purpose="Protocol messages between the parties of a running MPC session (encrypted per recipient).",
        ttl_attribute="expiresAt",
    ),
    Table(
        name="signing-audit",
        purpose="One record per signature request: wallet, digest, parties, caller, time, outcome.",
    ),
    Table(
        name="wallet-transactions",
        purpose="Every transaction a wallet or a custody key sent (by hash, one record per nonce with its "
        "replacements' hashes as aliases) and each owner's list of them, with tracking status; index `due` holds "
        "the unsettled ones with the time their tracker should have looked at them again.",
        indexes=(Index(name="due", partition_key="duePk", sort_key="dueAt"),),
    ),
    Table(name="nonces", purpose="Next nonce and given-back nonces per wallet address and chain."),
    Table(
        name="webhooks",
        purpose="Webhook settings per app, events (the outbox), deliveries with their attempt log, and each "
        "app's deliveries list; index `due` holds the deliveries waiting for an attempt.",
        indexes=(Index(name="due", partition_key="duePk", sort_key="dueAt"),),
    ),
    Table(
        name="smart-accounts",
        purpose="Smart-account owners per app (an address-uniqueness item and the owner record) and their "
        "counterfactual ERC-4337 accounts, one per network.",
    ),
    Table(
        name="gas-tanks",
        purpose="Gas tanks (owner and organization) with their balances, top-up records and usage lists, and the "
        "service-wide marker of every transaction a top-up used. Index `due` holds the pending top-ups with the "
        "time their next check should have run.",
        indexes=(Index(name="due", partition_key="duePk", sort_key="dueAt"),),
    ),
    Table(
        name="user-ops",
        purpose="User operations (built, submitted, settled) and the lists of them per app and per owner. Index "
        "`due` holds the operations in flight with the time their tracker should have looked at them again.",
        indexes=(Index(name="due", partition_key="duePk", sort_key="dueAt"),),
    ),
    Table(
        name="custody",
        purpose="Custodial deposit product: custody keys, accounts and their deposit addresses, balances and the "
        "journal, invoices, deposits, withdrawals, the watcher's cursors and leases. Index `status` lists invoices, "
        "deposits and withdrawals by app and status, `account-status` by account and status; `due` holds the "
        "withdrawals not yet ended with the time their worker should have moved them.",
        indexes=(
            Index(name="status", partition_key="statusKey", sort_key="listKey"),
            Index(name="account-status", partition_key="accountStatusKey", sort_key="listKey"),
            Index(name="due", partition_key="duePk", sort_key="dueAt"),
        ),
    ),
    Table(
        name="custody-policy",
        purpose="Operator-set custody policy (withdrawal allowlists): written only by the admin command; the API "
        "and the cosigner read it.",
    ),
    Table(
        name="cosigner-policy",
        purpose="The cosigner's own table: which keys a signing policy governs, with the policy's records (custody "
        "keys' scopes, the nonce signed per withdrawal, its own daily totals per app and per key; user wallets' "
        "clients, the apps' policy keys and signed policy documents, each wallet's rolling 24 h usage and the "
        "digests it counted). Written only by the cosigner and the operator's admin command; no other function "
        "reads it.",
        ttl_attribute="expiresAt",  # the marks of counted digests outlive their 24 h window by an hour
    ),
    Table(
        name="console",
        purpose="Developer console: its users (argon2id password hashes, TOTP secrets encrypted under KMS key "
        "`console`), their memberships, invites (hashed, single use), sessions (hashed), login throttles, and each "
        "organization's audit log.",
        ttl_attribute="expiresAt",
    ),
    Table(
        name="idempotency",
        purpose="Idempotency-Key reservations and the responses they replay.",
        ttl_attribute="expiresAt",
    ),
)

QUEUES: tuple[Queue, ...] = (
    Queue(
        name="tx-tracker",
        purpose="Delayed checks of sent transactions until they are mined, failed, dropped or cancelled.",
        visibility_timeout_s=360,  # six times the consumer's timeout, as AWS advises
        max_receive_count=10,
    ),
    Queue(
        name="topup-checks",
        purpose="Delayed checks of top-ups sent with immediate=false, until credited or failed.",
        visibility_timeout_s=180,
        max_receive_count=10,
    ),
    Queue(
        name="userop-tracker",
        purpose="Delayed checks of submitted user operations until they settle (receipt, revert or expiry).",
        visibility_timeout_s=180,
        max_receive_count=10,
    ),
    Queue(
        name="presign-refill",
        purpose="Wallets whose presignature pool is below its low-water mark (new wallets, after use).",
        visibility_timeout_s=720,  # six times the refill's timeout
        max_receive_count=3,
    ),
    Queue(
        name="custody-withdrawals",
        purpose="Custody withdrawals to send and then to settle (delayed re-checks until success or failure).",
        visibility_timeout_s=360,  # six times the worker's timeout
        max_receive_count=10,
    ),
    Queue(
        name="webhook-deliveries",
        purpose="Webhook delivery attempts (delayed for retries); failed deliveries end in its DLQ.",
        visibility_timeout_s=180,
        max_receive_count=5,
    ),
)

KEYS: tuple[Key, ...] = (
    Key(name="app-secrets", purpose="Encrypts app secrets (request signing) at rest."),
    Key(name="share-a", purpose="Encrypts key share A (the signer, in the API function) and its aux info."),
    Key(name="share-b", purpose="Encrypts key share B (the cosigner function) and its aux info."),
    Key(name="recovery", purpose="Encrypts share C inside each user's secret0; only the user-party function opens it."),
    Key(name="sessions", purpose="Seals the token pair a refresh returned, kept for the refresh reuse interval."),
    Key(name="console", purpose="Encrypts console users' TOTP secrets at rest."),
    Key(
        name="paymaster-signer",
        purpose="The VerifyingPaymaster's verifying signer (secp256k1); its private key never leaves KMS.",
        spec="ECC_SECG_P256K1",
        usage="SIGN_VERIFY",
    ),
)

SECRETS: tuple[Secret, ...] = (
    Secret(
        name="jwt-signing-keys",
        purpose="Ed25519 key set for the service's JWTs (current key plus keys still in their grace period).",
    ),
    Secret(
        name="webhook-signing-keys",
        purpose="Seeds of the per-app Ed25519 webhook signing keys (current plus those in their grace period).",
    ),
    Secret(
        name="node-credentials",
        purpose="Passwords of the chain nodes that take one (a Bitcoin node's RPC), a JSON object by the key a "
        "network names in the registry (rpcPasswordSecret).",
    ),
)

BUCKETS: tuple[Bucket, ...] = (
    Bucket(name="recovery", purpose="Temporary recovery files behind presigned links.", expire_after_days=1),
)

FUNCTIONS: tuple[Function, ...] = (
    Function(
        name="api_handler",
        purpose="The REST API and the developer console.",
        grants=(
            # read_write: the console creates clients and apps, rotates their secrets and disables apps
            Grant("table", "tenancy", "read_write"),
            Grant("table", "console", "read_write"),
            Grant("key", "console", "encrypt_decrypt"),
            Grant("table", "users", "read_write"),
            Grant("table", "auth-state", "read_write"),
            Grant("key", "app-secrets", "encrypt_decrypt"),  # encrypt: apps and secrets made in the console
            Grant("key", "sessions", "encrypt_decrypt"),
            Grant("secret", "jwt-signing-keys", "read"),
            Grant("secret", "node-credentials", "read"),  # Bitcoin nodes: fee rates, the watcher's status
            Grant("table", "wallets", "read_write"),
            Grant("table", "signer-shares", "read_write"),
            Grant("table", "aux-pool", "read_write"),
            Grant("table", "mpc-mailbox", "read_write"),
            Grant("table", "signing-audit", "read_write"),
            Grant("key", "share-a", "encrypt_decrypt"),
            Grant("table", "signer-presignatures", "read_write"),  # consumes share A of a presignature
            Grant("queue", "presign-refill", "write"),
            Grant("bucket", "recovery", "read_write"),  # read: presigned GET links are signed with this role
            Grant("function", "cosigner", "invoke"),
            Grant("function", "user_party", "invoke"),
            Grant("table", "wallet-transactions", "read_write"),
            Grant("table", "nonces", "read_write"),
            Grant("table", "idempotency", "read_write"),
            Grant("queue", "tx-tracker", "write"),
            Grant("table", "smart-accounts", "read_write"),
            Grant("table", "gas-tanks", "read_write"),
            Grant("queue", "topup-checks", "write"),
            Grant("table", "user-ops", "read_write"),
            Grant("queue", "userop-tracker", "write"),
            Grant("key", "paymaster-signer", "sign"),
            Grant("table", "webhooks", "read_write"),
            Grant("queue", "webhook-deliveries", "write"),
            Grant("secret", "webhook-signing-keys", "read"),
            Grant("table", "custody", "read_write"),
            Grant("queue", "custody-withdrawals", "write"),
            Grant("table", "custody-policy", "read"),
        ),
    ),
    Function(
        name="send_withdrawals",
        entry="chalicelib.custody.functions",
        batch_size=1,
        purpose="SQS: sends a custody withdrawal from the account's deposit address (party A of the custody key with "
        "the cosigner, whose policy checks it), then settles it: debit on success, release on failure.",
        grants=(
            Grant("table", "custody", "read_write"),
            Grant("table", "webhooks", "read_write"),
            Grant("queue", "webhook-deliveries", "write"),
            Grant("queue", "custody-withdrawals", "read_write"),
            Grant("secret", "node-credentials", "read"),  # a Bitcoin withdrawal's node
            Grant("table", "wallet-transactions", "read_write"),
            Grant("table", "nonces", "read_write"),
            Grant("queue", "tx-tracker", "write"),
            Grant("table", "signer-shares", "read"),
            Grant("table", "mpc-mailbox", "read_write"),
            Grant("table", "signing-audit", "read_write"),
            Grant("table", "signer-presignatures", "read_write"),  # consumes share A of a presignature
            Grant("queue", "presign-refill", "write"),
            Grant("key", "share-a", "decrypt"),
            Grant("function", "cosigner", "invoke"),
        ),
        consumes=("custody-withdrawals",),
        timeout_s=60,
        memory_mb=1769,  # party A's share of a full signing run
    ),
    Function(
        name="requeue_withdrawals",
        entry="chalicelib.custody.functions",
        schedule="rate(5 minutes)",
        purpose="Scheduled: queues custody withdrawals that stopped moving (a lost or dead-lettered message).",
        grants=(Grant("table", "custody", "read_write"), Grant("queue", "custody-withdrawals", "write")),
    ),
    Function(
        name="watch_deposits",
        entry="chalicelib.custody.functions",
        schedule="rate(1 minute)",
        purpose="Scheduled: per custody network, scans new blocks for transfers to deposit addresses (one lease and "
        "cursor per network), confirms or reverts pending deposits, credits them with their events.",
        grants=(
            Grant("table", "custody", "read_write"),
            Grant("table", "webhooks", "read_write"),  # deposit and invoice events (outbox)
            Grant("queue", "webhook-deliveries", "write"),
            Grant("secret", "node-credentials", "read"),  # Bitcoin nodes
        ),
        timeout_s=60,
    ),
    Function(
        name="expire_invoices",
        entry="chalicelib.custody.functions",
        schedule="rate(1 minute)",
        purpose="Scheduled: expires pending invoices past expiresAt + bufferInSeconds with their event.",
        grants=(
            Grant("table", "custody", "read_write"),
            Grant("table", "webhooks", "read_write"),
            Grant("queue", "webhook-deliveries", "write"),
        ),
    ),
    Function(
        name="deliver_webhook",
        entry="chalicelib.webhooks.functions",
        batch_size=10,
        purpose="SQS: one webhook delivery attempt (sign, POST, record); re-queues retries, dead-letters failures.",
        grants=(
            Grant("table", "webhooks", "read_write"),
            Grant("queue", "webhook-deliveries", "read_write"),  # read: its event source polls with this role
            Grant("queue", "webhook-deliveries-dlq", "write"),  # a delivery out of attempts goes there
            Grant("secret", "webhook-signing-keys", "read"),
        ),
        consumes=("webhook-deliveries",),
        timeout_s=60,
    ),
    Function(
        name="sweep_webhooks",
        entry="chalicelib.webhooks.functions",
        schedule="rate(1 minute)",
        purpose="Scheduled: queues deliveries that are due but not queued (crash after commit, long retry delays).",
        # read_write: it moves a due delivery's `dueAt` past a lease before queueing it (found by the IAM test).
        grants=(Grant("table", "webhooks", "read_write"), Grant("queue", "webhook-deliveries", "write")),
    ),
    Function(
        name="track_transaction",
        entry="chalicelib.evm.functions",
        batch_size=10,
        purpose="SQS: follows a sent transaction to mined, failed, dropped or cancelled; re-prices it while the chain "
        "prices it out and fills the nonce gaps under it (party A of its key with the cosigner, whose policy checks "
        "each replacement and gap fill); tells its owner (a custody withdrawal) until it is done with it; re-queues "
        "itself with a delay.",
        grants=(
            Grant("table", "wallet-transactions", "read_write"),
            Grant("table", "nonces", "read_write"),
            Grant("queue", "tx-tracker", "read_write"),
            Grant("table", "signer-shares", "read"),
            Grant("table", "mpc-mailbox", "read_write"),
            Grant("table", "signing-audit", "read_write"),
            Grant("table", "signer-presignatures", "read_write"),  # consumes share A of a presignature
            Grant("queue", "presign-refill", "write"),
            Grant("key", "share-a", "decrypt"),
            Grant("function", "cosigner", "invoke"),
            # A withdrawal's transaction settled: the withdrawal settles (ledger, its event) on the tracker's step.
            Grant("table", "custody", "read_write"),
            Grant("table", "webhooks", "read_write"),
            Grant("queue", "webhook-deliveries", "write"),
            Grant("queue", "custody-withdrawals", "write"),
        ),
        consumes=("tx-tracker",),
        timeout_s=60,
        memory_mb=1769,  # party A's share of a full signing run
    ),
    Function(
        name="requeue_transactions",
        entry="chalicelib.evm.functions",
        schedule="rate(5 minutes)",
        purpose="Scheduled: queues a tracker step of each unsettled transaction whose follow-ups went quiet (a "
        "message lost, dead-lettered, or never sent after the send's commit).",
        # read_write: it moves a record's `dueAt` past a lease before queueing it.
        grants=(Grant("table", "wallet-transactions", "read_write"), Grant("queue", "tx-tracker", "write")),
    ),
    Function(
        name="check_top_up",
        entry="chalicelib.gas_tanks.functions",
        batch_size=10,
        purpose="SQS: verifies a delayed top-up on chain and credits it once (with its `gasTank.topped_up` event); "
        "re-queues while unconfirmed.",
        grants=(
            Grant("table", "gas-tanks", "read_write"),
            Grant("queue", "topup-checks", "read_write"),
            Grant("table", "webhooks", "read_write"),  # gasTank.topped_up (outbox)
            Grant("queue", "webhook-deliveries", "write"),
        ),
        consumes=("topup-checks",),
        timeout_s=30,
    ),
    Function(
        name="requeue_top_up_checks",
        entry="chalicelib.gas_tanks.functions",
        schedule="rate(5 minutes)",
        purpose="Scheduled: queues a check of each pending top-up whose checks went quiet (a message lost, "
        "dead-lettered, or never sent after the top-up's commit).",
        # read_write: it moves a top-up's `dueAt` past a lease before queueing it.
        grants=(Grant("table", "gas-tanks", "read_write"), Grant("queue", "topup-checks", "write")),
    ),
    Function(
        name="track_user_op",
        entry="chalicelib.user_ops.functions",
        batch_size=10,
        purpose="SQS: follows a submitted user operation to success, failed or expired; settles its gas-tank charge.",
        grants=(
            Grant("table", "user-ops", "read_write"),
            Grant("table", "gas-tanks", "read_write"),
            Grant("table", "smart-accounts", "read_write"),  # an account becomes `deployed`
            Grant("table", "webhooks", "read_write"),  # userOp.success / userOp.failed events (outbox)
            Grant("queue", "webhook-deliveries", "write"),
            Grant("queue", "userop-tracker", "read_write"),
        ),
        consumes=("userop-tracker",),
        timeout_s=30,
    ),
    Function(
        name="requeue_user_ops",
        entry="chalicelib.user_ops.functions",
        schedule="rate(5 minutes)",
        purpose="Scheduled: queues a check of each user operation in flight whose tracker went quiet (a message "
        "lost, dead-lettered, or never sent after the submit's commit).",
        # read_write: it moves an operation's `dueAt` past a lease before queueing it.
        grants=(Grant("table", "user-ops", "read_write"), Grant("queue", "userop-tracker", "write")),
    ),
    Function(
        name="cosigner",
        entry="chalicelib.mpc.functions",
        purpose="MPC party B: holds key share B; joins key generation, signing and presigning sessions started by "
        "the API or the presignature refill, and issues its partial signature from one of its presignatures, each "
        "signature of a governed key only as its signing policy allows (custody; user wallets: their apps' signed "
        "policy documents, which it alone stores).",
        grants=(
            Grant("table", "cosigner-shares", "read_write"),
            Grant("table", "cosigner-presignatures", "read_write"),
            Grant("table", "custody", "read"),  # its own reading of custody withdrawals (policy)
            Grant("table", "custody-policy", "read"),
            # custody keys' scopes, wallets' clients, apps' clients (no function writes it)
            Grant("table", "tenancy", "read"),
            Grant("table", "cosigner-policy", "read_write"),  # its own: marks, policy keys, documents, usage
            Grant("table", "aux-pool", "read"),
            Grant("table", "mpc-mailbox", "read_write"),
            Grant("key", "share-b", "encrypt_decrypt"),
        ),
        timeout_s=60,
        memory_mb=1769,  # one full vCPU
    ),
    Function(
        name="user_party",
        entry="chalicelib.mpc.functions",
        purpose="MPC party C: the only holder of the recovery key; seals share C into secret0 and signs with it "
        "(a custody key's share C is sealed for recovery only: it never signs with it).",
        grants=(
            Grant("table", "aux-pool", "read"),
            Grant("table", "mpc-mailbox", "read_write"),
            Grant("key", "recovery", "encrypt_decrypt"),
        ),
        timeout_s=60,
        memory_mb=1769,
    ),
    Function(
        name="refill_presignatures",
        entry="chalicelib.mpc.functions",
        batch_size=1,
        purpose="SQS: tops a wallet's (or custody key's) presignature pool up to its recent demand, running "
        "presigning with the cosigner (party A here holds share A only, like the API).",
        grants=(
            Grant("table", "signer-shares", "read"),
            Grant("table", "signer-presignatures", "read_write"),
            Grant("table", "signing-audit", "read"),  # a wallet's recent signatures: its pool's target
            Grant("table", "mpc-mailbox", "read_write"),
            Grant("key", "share-a", "encrypt_decrypt"),
            Grant("function", "cosigner", "invoke"),
            Grant("queue", "presign-refill", "read_write"),
        ),
        consumes=("presign-refill",),
        timeout_s=120,
        memory_mb=1769,  # one full vCPU: ≈ 0.75 s of proofs per presignature
        background_concurrency=10,  # each refill holds one cosigner invocation at a time
    ),
    Function(
        name="refill_aux_pool",
        entry="chalicelib.mpc.functions",
        schedule="rate(15 minutes)",
        purpose="Scheduled: generates auxiliary info (safe primes, Paillier keys) for future wallets.",
        grants=(
            Grant("table", "aux-pool", "read_write"),
            Grant("key", "share-a", "encrypt"),
            Grant("key", "share-b", "encrypt"),
            Grant("key", "recovery", "encrypt"),
        ),
        timeout_s=900,
        memory_mb=3008,  # two vCPUs: the three parties' prime searches and proofs run in parallel
        background_concurrency=1,  # a schedule: one run at a time
    ),
    Function(
        name="rotate_signing_keys",
        entry="chalicelib.auth.routes",
        schedule="rate(1 day)",
        purpose="Scheduled: rotates the JWT signing key and retires keys past their grace period.",
        grants=(Grant("secret", "jwt-signing-keys", "read_write"),),
    ),
    Function(
        name="rotate_webhook_keys",
        entry="chalicelib.webhooks.functions",
        schedule="rate(1 day)",
        purpose="Scheduled (and once at deployment): initialises and rotates the webhook signing key set. The "
        "functions that sign deliveries only read it.",
        grants=(Grant("secret", "webhook-signing-keys", "read_write"),),
    ),
)


def table_name(stage: str, name: str) -> str:
    return f"dompet-{stage}-{name}"


def queue_name(stage: str, name: str) -> str:
    return f"dompet-{stage}-{name}"


def dlq_name(stage: str, name: str) -> str:
    return f"dompet-{stage}-{name}-dlq"


def key_alias(stage: str, name: str) -> str:
    return f"alias/dompet-{stage}-{name}"


def secret_name(stage: str, name: str) -> str:
    return f"dompet/{stage}/{name}"


def function_name(stage: str, name: str) -> str:
    """Lambda function names are set by the stack, so callers can derive them like table names."""
    return f"dompet-{stage}-{name.replace('_', '-')}"


def bucket_name(stage: str, name: str, suffix: str = "") -> str:
    return f"dompet-{stage}-{name}{suffix}"


def _find(items: tuple[_Named, ...], name: str, kind: str) -> _Named:
    for item in items:
        if item.name == name:
            return item
    raise KeyError(f"no {kind} named {name!r} in chalicelib/platform/resources.py")


def table(name: str) -> Table:
    return _find(TABLES, name, "table")


def function(name: str) -> Function:
    return _find(FUNCTIONS, name, "function")
