"""The console's read-only pages (chalicelib/console/views.py) on moto, through the Chalice test client: wallets, smart
accounts and gas tanks, user operations, custody and signing policies of the signed-in member's organization.

Data is made through the domains' own services and stores (no MPC run, no chain): a wallet record bound to its user,
transaction records, a smart-account owner with top-ups and usage, user-operation records, a custody account on a
ready pool key with deposits seen by the watcher's code, a withdrawal, and a signed policy set through the cosigner.
Another organization's member sees none of it and gets 404 for its ids; a request without a session is sent to the
sign-in page; bad filters are 400."""

from __future__ import annotations

import base64
import json
import uuid
from collections.abc import Callable
from datetime import timedelta, timezone
from html.parser import HTMLParser
from typing import Any

import pytest
from nacl.signing import SigningKey

from chalicelib.auth import users
from chalicelib.console import accounts, audit, views
from chalicelib.console.models import Role
from chalicelib.custody import accounts as custody_accounts
from chalicelib.custody import cursor
from chalicelib.custody import service as custody
from chalicelib.custody.deposits import lifecycle as deposits
from chalicelib.custody.deposits import service as custody_deposits
from chalicelib.custody.deposits.models import CreateInvoiceRequest
from chalicelib.custody.store import TABLE as CUSTODY_TABLE
from chalicelib.custody.store import get as custody_get
from chalicelib.custody.tokens import accepted
from chalicelib.custody.withdrawals import lifecycle as withdrawals
from chalicelib.evm import tracking
from chalicelib.evm.transactions import SignedTx, UnsignedTx
from chalicelib.gas_tanks import store as tank_store
from chalicelib.platform import aws, clock, networks, settings, unit_of_work
from chalicelib.platform.pagination import PageQuery
from chalicelib.platform.transitions import create, transition
from chalicelib.platform.unit_of_work import Plan
from chalicelib.policies import service as policy_service
from chalicelib.policies import signed
from chalicelib.policies.cosigner_check import register_policy_key
from chalicelib.policies.models import PolicyBody
from chalicelib.smart_accounts import service as smart_accounts
from chalicelib.tenancy import service as tenancy
from chalicelib.tenancy import store as tenancy_store
from chalicelib.tenancy.models import App, IssuedCredentials
from chalicelib.user_ops import store as op_store
from chalicelib.user_ops.models import UserOpRecord
from chalicelib.wallets import store as wallet_store
from tests.support.networks import aa_network

EXPLORER = "https://explorer.example"
TOKEN = "0x" + "12" * 20
OWNER = "0x5B38Da6a701c568545dCfcB03FcB875f56beddC4"
WALLET_ADDRESS = "0x" + "ab" * 20
RECIPIENT = "0x" + "cd" * 20
SENDER = "0x" + "ef" * 20
PASSWORD = "correct horse battery staple"
PAGES = (
    "/console/wallets",
    "/console/smart-accounts",
    "/console/user-ops",
    "/console/custody",
    "/console/policies",
)


@pytest.fixture(autouse=True)
def registry(use_networks: Callable[[list[dict[str, Any]]], Any]) -> None:
    """local-a: smart accounts, custody of USDT (3 confirmations) and an explorer; local-b: neither explorer nor
    custody."""
    use_networks(
        [
            aa_network(
                "local-a",
                31337,
                confirmations=3,
                explorerUrl=EXPLORER,
                custodyTokens=[{"tokenCode": "usdt", "symbol": "USDT", "decimals": 6, "tokenAddress": TOKEN}],
                custodyStartBlock=1,
            ),
            aa_network("local-b", 31338),
        ]
    )


@pytest.fixture
def console(api: Any) -> Any:
    return api


def app_of(tenant: IssuedCredentials) -> App:
    assert tenant.appId is not None
    found = tenancy_store.get_app(tenant.appId)
    assert found is not None
    return found[0]


def sign_in(organization_id: str, email: str = "ana@example.com") -> str:
    """A viewer of the organization, signed in: the session cookie's value."""
    _, token = accounts.invite(audit.operator(organization_id), email, Role.VIEWER)
    return accounts.accept_invite(
        token, email=None, password=PASSWORD, confirm=PASSWORD, source_ip=None, user_agent=None
    )


def get(console: Any, path: str, session: str | None) -> Any:
    headers = {"Host": "127.0.0.1:8000"}
    if session is not None:
        headers["Cookie"] = f"dompet_console={session}"
    return console.get(path, headers=headers)


class Fields(HTMLParser):
    """Every element with a `data-field` attribute: its text, attributes and the links inside it, in order."""

    VOID = frozenset({"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "wbr"})

    def __init__(self, html: str) -> None:
        super().__init__(convert_charrefs=True)
        self.open: list[tuple[str, dict[str, Any] | None]] = []
        self.found: list[dict[str, Any]] = []
        self.feed(html)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        named = dict(attrs)
        entry = None
        if "data-field" in named:
            entry = {"field": named["data-field"], "text": "", "attrs": named, "hrefs": []}
            self.found.append(entry)
        if tag not in self.VOID:
            self.open.append((tag, entry))
        if tag == "a" and named.get("href"):
            for _, active in self.open:
                if active is not None:
                    active["hrefs"].append(named["href"])

    def handle_endtag(self, tag: str) -> None:
        for i in range(len(self.open) - 1, -1, -1):
            if self.open[i][0] == tag:
                del self.open[i:]
                return

    def handle_data(self, data: str) -> None:
        for _, active in self.open:
            if active is not None:
                active["text"] += data

    def all(self, field: str) -> list[dict[str, Any]]:
        return [e for e in self.found if e["field"] == field]

    def texts(self, field: str) -> list[str]:
        return [" ".join(e["text"].split()) for e in self.all(field)]


def page_of(response: Any) -> Fields:
    assert response.headers["Content-Type"].startswith("text/html")
    return Fields(response.body.decode())


def status_classes(fields: Fields, field: str) -> list[str]:
    return [e["attrs"].get("class", "") for e in fields.all(field)]


# --- data, made through the domains' services and stores -------------------------------------------------------


def a_wallet(tenant: IssuedCredentials, sub_id: str, address: str) -> str:
    """A wallet record bound to its user, as provisioning stores it (no key generation)."""
    assert tenant.clientId is not None
    user = users.get_or_create(tenant.clientId, sub_id)
    wallet_id = str(uuid.uuid4())
    wallet_store.reserve_user(user, wallet_id)
    now = clock.iso_now()
    wallet_store.create(
        wallet_store.Wallet(
            walletId=wallet_id,
            address=address,
            clientId=tenant.clientId,
            subId=sub_id,
            userId=user.userId,
            secret0Hash="hash",
            origin="created",
            createdAt=now,
            updatedAt=now,
        )
    )
    return wallet_id


def a_transaction(wallet_id: str, network: str, nonce: int) -> str:
    """A sent transaction's record in the wallet's list (status `signing`, then claimed: `pending`)."""
    found = networks.registry().by_name(network)
    assert found is not None
    tx_hash = "0x" + f"{nonce:02x}" * 32
    unsigned = UnsignedTx(found.chainId, nonce, RECIPIENT, 10**15 + nonce, b"", 21_000, gas_price=10**9)
    signed_tx = SignedTx(unsigned, WALLET_ADDRESS, b"\x01", tx_hash, 1, 1, 0)
    record = tracking.record(wallet_id, found, signed_tx, "coin", {}, None)
    assert tracking.claim(record) is not None
    return tx_hash


def a_user_op(app: App, owner: Any, status: str, network: str = "local-a", reason: str | None = None) -> str:
    """A user operation's record in the app's and owner's lists, moved to `status` as the service would."""
    account = next(a for a in owner.accounts if a.network == network)
    user_op_id = str(uuid.uuid4())
    now = clock.iso_now()
    record = UserOpRecord(
        **op_store.key(user_op_id),
        id=user_op_id,
        createdAt=now,
        updatedAt=None,
        accountId=account.id,
        ownerId=owner.id,
        ownerAddress=owner.ownerId,
        ownerTankId=owner.gasTanks[0].id,
        clientId=app.clientId,
        appId=app.appId,
        signature=None,
        userOpHash="0x" + uuid.uuid4().hex * 2,
        txHash=None,
        status="created",
        type="send_coin",
        network=network,
        chainId=account.chainId,
        payer=None,
        validUntil=now,
        validUntilEpoch=clock.epoch() + 600,
        failedReason=None,
        bundlerVersion="0.7",
        successAt=None,
        failedAt=None,
        sentAt=None,
        deploys=False,
        op="{}",
    )
    entry = {"userOpId": user_op_id}
    unit_of_work.commit(
        Plan(
            items=[create(record)],
            lists=[(op_store.app_list(app.appId), entry), (op_store.owner_list(owner.id), entry)],
        )
    )
    if status == "failed":
        aws.write(transition(record, "failed", failedReason=reason, failedAt=now, updatedAt=now))
    elif status != "created":
        moved = transition(record, "on_process", sentAt=now, updatedAt=now, payer="owner")
        aws.write(moved)
        if status == "success":
            current = op_store.get(user_op_id)
            assert current is not None
            aws.write(transition(current, "success", successAt=now, txHash="0x" + "99" * 32))
    return user_op_id


def tank_records(tank_id: str, amount: int, at: str, tx_byte: str) -> None:
    """A credited top-up and a usage record of the tank, in its lists (as the gas-tank service appends them)."""
    top_up = {
        "id": str(uuid.uuid4()),
        "createdAt": at,
        "updatedAt": None,
        "clientId": "client",
        "gasTankId": tank_id,
        "txHash": "0x" + tx_byte * 32,
        "network": "local-a",
        "chainId": 31337,
        "poolAddress": "0x" + "56" * 20,
        "amount": "25000000",
        "tokenAddress": TOKEN,
        "status": "success",
    }
    usage = {
        "id": str(uuid.uuid4()),
        "clientId": "client",
        "appId": "app",
        "clientGasTankId": tank_id,
        "userOpId": str(uuid.uuid4()),
        "nativeToGasTankRate": "2000",
        "amountInNative": "1000000000000000",
        "amountInGasTank": str(amount),
        "initialDeductedAmountInNative": "1000000000000000",
        "initialDeductedAmountInGasTank": str(amount),
        "refundedAmountInNative": None,
        "refundedAmountInGasTank": None,
        "clientFeeInGasTank": "0",
        "serviceFeeInGasTank": "0",
        "createdAt": at,
        "refundedAt": None,
    }
    unit_of_work.commit(Plan(lists=[(tank_store.topups(tank_id), top_up), (tank_store.usage(tank_id), usage)]))


def custody_account(app: App, sub_id: str) -> dict[str, Any]:
    """A custody account on the app's pool key, made ready beforehand (no key generation)."""
    key_item = {
        "pk": f"KEY#app:{app.appId}",
        "sk": "KEY",
        "status": "ready",
        "keyId": uuid.uuid4().hex,
        "address": "0x" + "77" * 20,
    }
    if custody_get(key_item["pk"], "KEY") is None:
        aws.table(CUSTODY_TABLE).put_item(Item=key_item)
    created, _ = custody.create_account(app, sub_id, "dedicated")
    stored = custody_get(**custody_accounts.account_key(created.id))
    assert stored is not None
    return stored


def a_deposit(account: dict[str, Any], tx_byte: str, value: int, block: int) -> deposits.Deposit:
    """A USDT transfer to the account's address, as the watcher records it on first sight (`pending`)."""
    transfer = deposits.Transfer(
        pair=accepted("local-a", "usdt"),
        tx_hash="0x" + tx_byte * 32,
        ordinal="0",
        log_index=1,
        sender=SENDER,
        to=account["wallets"][0]["address"],
        value=value,
        block_number=block,
        block_hash="0x" + f"{block:064x}",
        block_time=1_700_000_000,
    )
    assert deposits.seen(transfer, account) == "new"
    found = deposits.find(transfer.id)
    assert found is not None
    return found


# --- the pages -------------------------------------------------------------------------------------------------


def test_every_page_without_a_session_goes_to_the_sign_in_page(console: Any, tenant: IssuedCredentials) -> None:
    for path in (*PAGES, f"/console/user-ops/{uuid.uuid4()}", f"/console/custody/accounts/{uuid.uuid4()}"):
        for session in (None, "not-a-session-token-at-all-0123456789"):
            answer = get(console, path, session)
            assert answer.status_code == 303, path
            assert answer.headers["Location"] == "/console/login"


def test_every_page_renders_for_an_organization_with_nothing_yet(console: Any, tenant: IssuedCredentials) -> None:
    session = sign_in(tenant.organizationId)
    for path in PAGES:
        answer = get(console, path, session)
        assert answer.status_code == 200, (path, answer.body[:2000])
        assert answer.headers["Content-Security-Policy"].startswith("default-src 'none'")
        body = answer.body.decode()
        assert 'aria-current="page"' in body
        # The pages with a chart load uPlot (console.js draws it), from the service's own origin.
        assert ("/console/assets/uplot." in body) == (path in ("/console/smart-accounts", "/console/custody"))


def test_wallets_show_each_users_address_and_recent_transactions_linked_to_the_explorer(
    console: Any, tenant: IssuedCredentials
) -> None:
    assert tenant.clientId is not None
    wallet_id = a_wallet(tenant, "alice", WALLET_ADDRESS)
    users.get_or_create(tenant.clientId, "no-wallet-yet")
    sent = [a_transaction(wallet_id, "local-a", n) for n in range(1, 8)]
    on_b = a_transaction(wallet_id, "local-b", 9)
    fields = page_of(get(console, "/console/wallets", sign_in(tenant.organizationId)))
    assert fields.texts("subId") == ["alice"]
    assert fields.texts("walletAddress") == [WALLET_ADDRESS]
    assert fields.texts("transactionCount") == ["8"]
    hashes = fields.all("txHash")
    # The newest five (views.WALLET_TXS), newest first; local-a's are linked to its explorer, local-b has none.
    assert [" ".join(h["text"].split()) for h in hashes] == [on_b, *reversed(sent[-4:])]
    assert hashes[0]["hrefs"] == []
    assert hashes[1]["hrefs"] == [f"{EXPLORER}/tx/{sent[-1]}"]
    assert set(fields.texts("txStatus")) == {"pending"}
    assert set(status_classes(fields, "txStatus")) == {"status-pending"}
    assert fields.texts("txValue")[1] == str(10**15 + 7)  # wei, exact
    assert [t.strip() for t in fields.texts("txReplacements")] == [""] * 5


def test_a_transaction_signed_again_shows_its_replacements_and_the_mined_one(
    console: Any, tenant: IssuedCredentials
) -> None:
    wallet_id = a_wallet(tenant, "bob", WALLET_ADDRESS)
    first = a_transaction(wallet_id, "local-a", 3)
    record = tracking.read(first)
    assert record is not None
    unsigned = UnsignedTx(record.chainId, 3, RECIPIENT, 10**15 + 3, b"", 21_000, gas_price=2 * 10**9)
    bumped = "0x" + "ab" * 32
    replaced = tracking.replace(record, SignedTx(unsigned, WALLET_ADDRESS, b"\x02", bumped, 1, 1, 0), "bump", False)
    assert replaced is not None
    assert tracking.move(replaced, "mined", minedHash=bumped, blockNumber=5, blockHash="0x" + "cd" * 32)
    fields = page_of(get(console, "/console/wallets", sign_in(tenant.organizationId)))
    [shown] = fields.all("txReplacements")
    text = " ".join(shown["text"].split())
    assert text == f"bump · {bumped} · {2 * 10**9} wei/gas · mined"
    assert shown["hrefs"] == [f"{EXPLORER}/tx/{bumped}"]
    assert fields.texts("txStatus") == ["mined"]


def test_smart_accounts_show_owners_accounts_tanks_histories_and_spend_per_day(
    console: Any, tenant: IssuedCredentials
) -> None:
    app = app_of(tenant)
    owner = smart_accounts.create(app, OWNER, "wallet")
    organization_tank = tank_store.client_tank(app.clientId)
    owner_tank = owner.gasTanks[0].id
    today = clock.iso_now()
    two_days_ago = clock.iso(clock.now() - timedelta(days=2))
    long_ago = clock.iso(clock.now() - timedelta(days=45))
    tank_records(organization_tank.id, 1_500_000_000_000_000_000, today, "a1")
    tank_records(organization_tank.id, 250_000_000_000_000_000, today, "a2")
    tank_records(owner_tank, 2 * 10**18, two_days_ago, "b1")
    tank_records(owner_tank, 9 * 10**18, long_ago, "b2")  # outside the chart's 30 days
    aws.write(tank_store.credit(owner_tank, 5 * 10**18, today))

    fields = page_of(get(console, "/console/smart-accounts", sign_in(tenant.organizationId)))
    assert fields.texts("ownerAddress") == [OWNER]
    assert fields.texts("ownerTankBalance") == [str(5 * 10**18)]
    assert fields.texts("organizationTankBalance") == ["0"]
    assert fields.texts("accountStatus") == ["not_deployed", "not_deployed"]
    assert set(status_classes(fields, "accountStatus")) == {"status-not_deployed"}
    addresses = fields.all("aaAddress")
    assert addresses[0]["hrefs"] == [f"{EXPLORER}/address/{owner.accounts[0].aaAddress}"]
    assert addresses[1]["hrefs"] == []  # local-b has no explorer
    assert len(fields.texts("topUpTxHash")) == 4 and fields.texts("topUpStatus") == ["success"] * 4
    assert fields.all("topUpTxHash")[0]["hrefs"][0].startswith(f"{EXPLORER}/tx/0x")
    assert fields.texts("usageAmount")[0].startswith(("1500000000000000000 (1.5 USDT)", "250000000000000000 (0.25"))
    [spend] = fields.all("spendChart")
    series = json.loads(spend["attrs"]["data-series"])
    assert series["unit"] == "USDT" and len(series["x"]) == views.CHART_DAYS
    organization, owners = series["series"]
    assert organization["label"] == "Organization tanks" and owners["label"] == "Owner tanks"
    assert organization["values"][-1] == pytest.approx(1.75) and sum(organization["values"]) == pytest.approx(1.75)
    assert owners["values"][-3] == pytest.approx(2.0) and sum(owners["values"]) == pytest.approx(2.0)


def test_user_operations_list_with_filters_and_a_detail_with_the_failure_reason(
    console: Any, tenant: IssuedCredentials
) -> None:
    app = app_of(tenant)
    owner = smart_accounts.create(app, OWNER, "wallet")
    other_owner = smart_accounts.create(app, "0x" + "44" * 20, "wallet")
    failed = a_user_op(app, owner, "failed", reason="reverted on chain")
    succeeded = a_user_op(app, owner, "success", network="local-b")
    pending = a_user_op(app, other_owner, "on_process")
    session = sign_in(tenant.organizationId)

    def listed(query: str) -> list[str]:
        answer = get(console, f"/console/user-ops{query}", session)
        assert answer.status_code == 200, answer.body[:2000]
        return page_of(answer).texts("userOpId")

    assert listed("") == [pending, succeeded, failed]
    assert listed("?status=failed") == [failed]
    assert listed("?network=local-b") == [succeeded]
    assert listed(f"?owner={owner.id}") == [succeeded, failed]
    assert listed(f"?owner={OWNER.lower()}&status=success") == [succeeded]
    assert listed("?status=&owner=&network=") == [pending, succeeded, failed]  # an empty field filters nothing
    assert listed("?status=created") == []
    fields = page_of(get(console, "/console/user-ops", session))
    assert fields.texts("userOpStatus") == ["on_process", "success", "failed"]
    assert status_classes(fields, "userOpStatus") == ["status-on_process", "status-success", "status-failed"]

    detail = get(console, f"/console/user-ops/{failed}", session)
    assert detail.status_code == 200
    shown = page_of(detail)
    assert shown.texts("userOpStatus") == ["failed"] and shown.texts("failedReason") == ["reverted on chain"]
    success = page_of(get(console, f"/console/user-ops/{succeeded}", session))
    assert success.texts("txHash") == ["0x" + "99" * 32] and success.all("txHash")[0]["hrefs"] == []  # local-b
    for missing in (str(uuid.uuid4()), "not-an-id"):
        assert get(console, f"/console/user-ops/{missing}", session).status_code == 404


@pytest.mark.parametrize(
    "query",
    [
        "?status=bogus",
        "?network=nowhere",
        "?owner=alice",
        "?owner=0x1234",
        "?page=2",
        "?status=" + "x" * 30,
    ],
)
def test_bad_filters_are_a_400_page(console: Any, tenant: IssuedCredentials, query: str) -> None:
    answer = get(console, f"/console/user-ops{query}", sign_in(tenant.organizationId))
    assert answer.status_code == 400
    assert 'data-code="VALIDATION_ERROR"' in answer.body.decode()


def test_custody_shows_accounts_balances_invoices_deposits_withdrawals_and_the_journal(
    console: Any, tenant: IssuedCredentials
) -> None:
    app = app_of(tenant)
    account = custody_account(app, "alice")
    credited = a_deposit(account, "d1", 5_000_000, block=10)
    assert deposits.credit(credited, account, 3)
    withdrawal = withdrawals.create(app, account["id"], "local-a", "usdt", RECIPIENT, "1.5", None)
    invoice = custody_deposits.create_invoice(
        app,
        CreateInvoiceRequest(accountId=account["id"], network="local-a", tokenCode="usdt", amount="2", reference="r-1"),
    )
    pending = a_deposit(account, "d2", 7_000_000, block=20)
    cursor.save_head(31337, 21)  # the watcher saw block 21: the pending deposit has 2 of its 3 confirmations
    session = sign_in(tenant.organizationId)

    fields = page_of(get(console, "/console/custody", session))
    assert fields.texts("accountSubId") == ["alice"]
    assert fields.all("accountId")[0]["hrefs"] == [f"/console/custody/accounts/{account['id']}"]
    assert fields.texts("activeBalance") == ["3.5 (3500000)"]
    assert fields.texts("pendingBalance") == ["7 (7000000)"]
    assert fields.texts("heldBalance") == ["1.5 (1500000)"]
    assert fields.texts("invoiceReference") == ["r-1"] and fields.texts("invoiceStatus") == [invoice.status]
    assert fields.texts("depositStatus") == ["pending", "credited"]
    assert status_classes(fields, "depositStatus") == ["status-pending", "status-credited"]
    assert fields.texts("depositConfirmations") == ["2 / 3", "3 / 3"]
    assert fields.all("depositTxHash")[0]["hrefs"] == [f"{EXPLORER}/tx/{pending.txHash}"]
    assert fields.texts("withdrawalStatus") == [withdrawal.status]
    assert fields.texts("withdrawalAmount") == ["1.5 (1500000)"]
    [flows] = fields.all("flowsChart")
    series = json.loads(flows["attrs"]["data-series"])
    assert [s["label"] for s in series["series"]] == ["Deposits", "Withdrawals"]
    assert series["series"][0]["values"][-1] == 2 and series["series"][1]["values"][-1] == 1

    detail = page_of(get(console, f"/console/custody/accounts/{account['id']}", session))
    assert detail.texts("accountId") == [account["id"]]
    assert detail.texts("journalKind") == ["pending", "hold", "credit", "pending"]
    assert detail.texts("journalAmount") == ["7000000", "1500000", "5000000", "5000000"]
    assert detail.texts("activeBalance") == ["3.5 (3500000)"]
    assert detail.texts("depositConfirmations") == ["2 / 3", "3 / 3"]
    assert detail.texts("withdrawalStatus") == [withdrawal.status]
    for missing in (str(uuid.uuid4()), "not-an-id"):
        assert get(console, f"/console/custody/accounts/{missing}", session).status_code == 404


def test_policies_show_the_signed_policy_in_force_with_its_version_and_key(
    console: Any, tenant: IssuedCredentials
) -> None:
    app = app_of(tenant)
    key = SigningKey.generate()
    public = base64.b64encode(bytes(key.verify_key)).decode()
    register_policy_key(app.appId, public, app.clientId)
    document = {"version": 3, "transactions": {"maxValue": {"native": "100"}}}
    signature = base64.b64encode(key.sign(signed.policy_message(app.appId, document)).signature).decode()
    policy_service.set_policy(app, PolicyBody(policy=document, signature=signature))
    assert tenant.clientId is not None
    tenancy.create_app(tenant.clientId, "No policy key")

    fields = page_of(get(console, "/console/policies", sign_in(tenant.organizationId)))
    assert fields.texts("policyVersion") == ["3", "none"]
    assert fields.texts("policyKeyId") == [signed.key_id(bytes(key.verify_key)), "none"]
    assert fields.texts("keyRegistered") == ["yes", "no"]
    [shown] = fields.all("policyDocument")
    assert json.loads(shown["text"]) == document


def test_another_organization_sees_none_of_it_and_gets_404_for_its_ids(console: Any, tenant: IssuedCredentials) -> None:
    app = app_of(tenant)
    wallet_id = a_wallet(tenant, "alice", WALLET_ADDRESS)
    tx_hash = a_transaction(wallet_id, "local-a", 1)
    owner = smart_accounts.create(app, OWNER, "wallet")
    user_op = a_user_op(app, owner, "failed", reason="reverted on chain")
    account = custody_account(app, "alice")
    ours = sign_in(tenant.organizationId)
    assert tx_hash in get(console, "/console/wallets", ours).body.decode()

    other = tenancy.create_tenant("Other")
    theirs = sign_in(other.organizationId, "bo@example.org")
    for path in PAGES:
        answer = get(console, path, theirs)
        assert answer.status_code == 200, path
        body = answer.body.decode()
        for secret in (wallet_id, WALLET_ADDRESS, tx_hash, owner.id, OWNER, user_op, account["id"], tenant.appId):
            assert secret not in body, (path, secret)
    for path in (
        f"/console/user-ops/{user_op}",
        f"/console/custody/accounts/{account['id']}",
        f"/console/user-ops?owner={owner.id}",
        f"/console/user-ops?owner={OWNER}",
    ):
        answer = get(console, path, theirs)
        assert answer.status_code == 404, path
        assert user_op not in answer.body.decode() and account["id"] not in answer.body.decode()


# --- the pieces ------------------------------------------------------------------------------------------------


def test_days_are_utc_days_and_sums_are_exact(aws_env: None) -> None:
    now = clock.now()
    midnight = now.replace(hour=0, minute=0, second=0, microsecond=0)
    x, sums = views.per_day(
        [
            (clock.iso(now), 10**30 + 1),
            (clock.iso(now), 1),
            (clock.iso(now - timedelta(days=1)), 5),
            (clock.iso(now - timedelta(days=30)), 7),  # one day past the window
            # 00:30 UTC today, written in New York time (the day before there): today's.
            ((midnight + timedelta(minutes=30)).astimezone(timezone(timedelta(hours=-4))).isoformat(), 11),
        ],
        days=30,
    )
    assert len(x) == 30 and x[-1] == int(midnight.timestamp()) and x[-1] - x[-2] == 86_400
    assert sums[-1] == 10**30 + 13 and sums[-2] == 5 and sum(sums) == 10**30 + 18


def test_explorer_links_and_human_amounts(aws_env: None) -> None:
    assert views.explorer("local-a", "tx", "0xab") == f"{EXPLORER}/tx/0xab"
    assert views.explorer("local-a", "address", "a/b?c") == f"{EXPLORER}/address/a%2Fb%3Fc"
    assert views.explorer("local-b", "tx", "0xab") is None
    assert views.explorer("nowhere", "tx", "0xab") is None and views.explorer("local-a", "tx", None) is None
    assert views.units("1500000", 6) == "1.5" and views.units(10**30, 18) == "1000000000000"
    assert views.units(None, 6) == "" and views.units("x", 6) == ""


@pytest.mark.parametrize(
    ("url", "ok"),
    [
        ("https://etherscan.io", True),
        ("https://explorer.example/chain/1/", True),
        ("http://127.0.0.1:5100", True),
        ("http://etherscan.io", False),
        ("javascript:alert(1)", False),
        ("https://etherscan.io/?q=1", False),
        ("https://ether scan.io", False),
    ],
)
def test_an_explorer_url_is_https_or_local(
    use_networks: Callable[[list[dict[str, Any]]], Any], url: str, ok: bool
) -> None:
    use_networks([aa_network("local-a", 31337, explorerUrl=url)])
    if ok:
        assert networks.registry().networks[0].explorerUrl == url
    else:
        with pytest.raises(settings.SettingsError, match="explorerUrl"):
            networks.registry()


def test_a_clients_wallets_are_its_users_with_a_wallet_in_order_of_sub_id(tenant: IssuedCredentials) -> None:
    assert tenant.clientId is not None
    for sub in ("carol", "alice", "bob"):
        a_wallet(tenant, sub, "0x" + uuid.uuid4().hex[:8] * 5)
    users.get_or_create(tenant.clientId, "aaron")  # no wallet: not listed
    found, more = wallet_store.of_client(tenant.clientId, 10)
    assert [u.subId for u in found] == ["alice", "bob", "carol"] and not more
    assert all(u.walletAddress and u.walletId for u in found)
    first, more = wallet_store.of_client(tenant.clientId, 2)
    assert [u.subId for u in first] == ["alice", "bob"] and more
    assert wallet_store.of_client(str(uuid.uuid4()), 10) == ([], False)


def test_an_apps_owners_are_listed_newest_first(tenant: IssuedCredentials, aws_env: None) -> None:
    app = app_of(tenant)
    made = [smart_accounts.create(app, "0x" + f"{i:040x}", "wallet") for i in range(1, 4)]
    again = smart_accounts.create(app, "0x" + f"{1:040x}", "wallet")  # the same owner: not listed twice
    assert again.id == made[0].id
    owners, total = smart_accounts.page(app, PageQuery(page=1, limit=2))
    assert total == 3 and [o.id for o in owners] == [made[2].id, made[1].id]
    other = app_of(tenancy.create_tenant("Other"))
    assert smart_accounts.page(other, PageQuery(page=1, limit=10)) == ([], 0)
