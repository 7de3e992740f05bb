"""Custody withdrawals on anvil: held at once, sent from the account's deposit address by the real custody key (the
cosigner's policy checking every transaction), settled with the network's confirmations. Effects are checked on
the chain (the recipient's balance) and in the ledger."""

from __future__ import annotations

import json
import time
import uuid
from concurrent.futures import ThreadPoolExecutor

import pytest
from eth_account import Account

from chalicelib.custody import ledger
from chalicelib.custody.store import get
from chalicelib.custody.withdrawals import cosigner_check, operator_policy, sending
from chalicelib.custody.withdrawals import lifecycle as withdrawals
from chalicelib.custody.withdrawals import records as withdrawal_records
from chalicelib.evm import engine, pipeline, tracking
from chalicelib.platform import aws, settings
from chalicelib.platform.invocation import running_as
from tests.support.custody import (
    CONFIRMATIONS,
    create_account,
    custody_balance,
    funded_account,
    mine_blocks,
    outbox_events,
    request_withdrawal,
    run_withdrawal,
    token_balance,
)

pytestmark = pytest.mark.integration


def test_usdt_and_native_withdrawals_pay_exactly_once_with_their_events(custody):
    account = funded_account(custody, usdt=10_000_000, eth=10**18)
    recipient = Account.create().address
    answer = request_withdrawal(custody, account, "2.5", to=recipient, reference="w-1")
    assert answer.status_code == 200, answer.json_body
    withdrawal = answer.json_body["data"]
    assert withdrawal["status"] == "pending" and withdrawal["amountInDecimals"] == "2500000"
    balance = custody_balance(custody, account["id"], "local-a", "usdt")
    assert balance["activeBalance"] == "7.5" and balance["heldBalance"] == "2.5"

    record = run_withdrawal(withdrawal["id"], custody)
    assert record["status"] == "success", record
    assert token_balance(custody, 31337, "usdt", recipient) == 2_500_000  # on chain, exactly
    assert token_balance(custody, 31337, "usdt", account["wallets"][0]["address"]) == 7_500_000
    balance = custody_balance(custody, account["id"], "local-a", "usdt")
    assert balance["activeBalance"] == "7.5" and balance["heldBalance"] == "0"
    sending.process(withdrawal["id"])  # a duplicate message: nothing more
    assert token_balance(custody, 31337, "usdt", recipient) == 2_500_000
    [created] = outbox_events("withdraw.created")
    [success] = outbox_events("withdraw.success")
    assert (
        created["id"] == f"withdraw.created:{withdrawal['id']}"
        and success["id"] == f"withdraw.success:{withdrawal['id']}"
    )
    assert success["data"]["withdrawal"]["txHash"] == record["txHash"]
    assert success["data"]["withdrawal"]["amount"] == 2.5 and success["data"]["withdrawal"]["to"] == recipient
    assert success["data"]["debit"] == {
        "tokenCode": "usdt",
        "amount": 2.5,
        "referenceType": "withdrawal",
        "referenceId": withdrawal["id"],
    }
    shown = custody["signed"]("GET", f"/api/v1/custody/withdrawals/{withdrawal['id']}").json_body["data"]
    assert shown["status"] == "success" and shown["txHash"] == record["txHash"] and shown["reference"] == "w-1"

    w3 = custody["w3"][31337]
    native_to = Account.create().address
    native = request_withdrawal(custody, account, "0.3", token="eth", to=native_to).json_body["data"]
    assert run_withdrawal(native["id"], custody)["status"] == "success"
    assert w3.eth.get_balance(native_to) == 3 * 10**17
    assert custody_balance(custody, account["id"], "local-a", "eth")["activeBalance"] == "0.7"
    stored = {
        f"{b['network']}#{b['tokenCode']}": {f: int(b[f]) for f in ledger.FIELDS}
        for b in ledger.balances(account["id"])
    }
    assert ledger.replay(account["id"]) == stored


def test_over_balance_bad_input_and_limits_change_nothing(custody, monkeypatch):
    account = funded_account(custody, usdt=1_000_000)
    cases = [
        (request_withdrawal(custody, account, "1.000001"), 422, "INSUFFICIENT_BALANCE"),
        (request_withdrawal(custody, account, "0"), 400, "INVALID_AMOUNT"),
        (request_withdrawal(custody, account, "0.0000001"), 400, "INVALID_AMOUNT"),
        (request_withdrawal(custody, account, "1", to="0x1234"), 400, None),
        (request_withdrawal(custody, account, "1", token="doge"), 400, "UNKNOWN_TOKEN"),
    ]
    for answer, status, code in cases:
        assert answer.status_code == status, answer.json_body
        if code:
            assert answer.json_body["data"]["code"] == code
    monkeypatch.setenv("DOMPET_WITHDRAWAL_LIMITS", json.dumps({"usdt": {"perWithdrawal": "0.5", "perDay": "0.7"}}))
    settings.load_settings.cache_clear()
    usdt = _usdt(custody)  # the custody document names the token by its address
    refused = request_withdrawal(custody, account, "0.6")
    assert refused.status_code == 422
    assert refused.json_body["data"] == {"code": "WITHDRAWAL_LIMIT_EXCEEDED", "rule": f"transactions.maxValue.{usdt}"}
    assert request_withdrawal(custody, account, "0.5").status_code == 200
    refused = request_withdrawal(custody, account, "0.3")
    assert refused.json_body["data"] == {"code": "DAILY_LIMIT_EXCEEDED", "rule": f"transactions.maxValuePer24h.{usdt}"}
    allowed = Account.create().address
    assert _admin_allowlist(custody, allowed) == 0
    assert custody["signed"]("GET", "/api/v1/custody/withdrawal-allowlist").json_body["data"]["addresses"] == [allowed]
    refused = request_withdrawal(custody, account, "0.1")
    assert refused.json_body["data"] == {"code": "DESTINATION_NOT_ALLOWED", "rule": "transactions.destinations.allow"}
    assert request_withdrawal(custody, account, "0.1", to=allowed).status_code == 200
    balance = custody_balance(custody, account["id"], "local-a", "usdt")
    assert balance["activeBalance"] == "0.4" and balance["heldBalance"] == "0.6"
    listed = custody["signed"]("GET", "/api/v1/custody/withdrawals").json_body["data"]
    assert listed["pagination"]["total"] == 2


def test_ten_concurrent_withdrawals_against_a_balance_for_seven(custody):
    account = funded_account(custody, usdt=7_000_000)
    with ThreadPoolExecutor(10) as pool:
        answers = list(pool.map(lambda _: request_withdrawal(custody, account, "1"), range(10)))
    codes = sorted(a.status_code for a in answers)
    assert codes == [200] * 7 + [422] * 3, [a.json_body for a in answers]
    assert all(a.json_body["data"]["code"] == "INSUFFICIENT_BALANCE" for a in answers if a.status_code == 422)
    balance = custody_balance(custody, account["id"], "local-a", "usdt")
    assert balance["activeBalance"] == "0" and balance["heldBalance"] == "7"
    assert len(outbox_events("withdraw.created")) == 7


def test_a_reverting_withdrawal_fails_and_releases_its_hold(custody, monkeypatch):
    account = funded_account(custody, eth=10**17)
    # The chain holds less than the ledger says (say, a deeper reorg than expected): the execute call reverts.
    w3 = custody["w3"][31337]
    address = account["wallets"][0]["address"]
    w3.provider.make_request("anvil_setBalance", [address, hex(10**16)])
    monkeypatch.setattr(sending, "_holds", lambda *a: True)  # past the worker's own funds check: the chain decides
    withdrawal = request_withdrawal(custody, account, "0.05", token="eth").json_body["data"]
    record = run_withdrawal(withdrawal["id"], custody)
    assert record["status"] == "failed" and record["failedReason"] == "reverted"
    assert w3.eth.get_transaction_receipt(record["txHash"])["status"] == 0
    balance = custody_balance(custody, account["id"], "local-a", "eth")
    assert balance["activeBalance"] == "0.1" and balance["heldBalance"] == "0"
    [failed] = outbox_events("withdraw.failed")
    assert failed["data"]["withdrawal"]["reason"] == "reverted" and failed["data"]["withdrawal"]["released"] is True


def test_insufficient_funds_on_chain_fail_before_anything_is_signed(custody):
    account = funded_account(custody, eth=10**17)
    custody["w3"][31337].provider.make_request("anvil_setBalance", [account["wallets"][0]["address"], "0x0"])
    withdrawal = request_withdrawal(custody, account, "0.05", token="eth").json_body["data"]
    record = run_withdrawal(withdrawal["id"], custody)
    assert record["status"] == "failed" and record["failedReason"] == "insufficient_funds_on_chain"
    assert "txHash" not in record
    assert custody_balance(custody, account["id"], "local-a", "eth")["activeBalance"] == "0.1"


def test_the_cosigner_refuses_a_tampered_transaction(custody, monkeypatch):
    """A compromised API function asks the cosigner to sign a payment to its own address: refused, nothing moves."""
    account = funded_account(custody, usdt=5_000_000)
    thief = Account.create().address
    withdrawal = request_withdrawal(custody, account, "1").json_body["data"]
    real_call = cosigner_check.expected_call

    def tampered(record):
        return real_call({**record, "to": thief, "amountInDecimals": "5000000"})

    monkeypatch.setattr(sending, "expected_call", tampered)  # what the (compromised) API side builds; the cosigner
    sending.process(withdrawal["id"])  # builds its own from the record it reads itself
    record = get(**withdrawals.key(withdrawal["id"]))
    assert record["status"] == "failed" and record["failedReason"] == "policy_refused"
    assert "txHash" not in record
    assert token_balance(custody, 31337, "usdt", thief) == 0
    assert token_balance(custody, 31337, "usdt", account["wallets"][0]["address"]) == 5_000_000
    balance = custody_balance(custody, account["id"], "local-a", "usdt")
    assert balance["heldBalance"] == "1", "held for review: never released on a policy refusal"

    # Directly: a digest of another transaction, another destination, no policy at all.
    from chalicelib.evm import digests
    from chalicelib.evm.transactions import UnsignedTx, signing_hash

    key_id = record["keyId"]
    tx = UnsignedTx(
        chain_id=31337,
        nonce=0,
        to=record["fromAddress"],
        value=0,
        data=real_call(record),
        gas=200_000,
        max_fee=10**10,
        max_priority_fee=10**9,
    )
    aws.table("custody").update_item(  # back to `sending`, as a compromised API function could write it
        Key=withdrawals.key(record["id"]),
        UpdateExpression="SET #s = :s",
        ExpressionAttributeNames={"#s": "status"},
        ExpressionAttributeValues={":s": "sending"},
    )
    greedy = UnsignedTx(
        chain_id=31337,
        nonce=0,
        to=record["fromAddress"],
        value=0,
        data=real_call(record),
        gas=200_000,
        max_fee=10**15,
        max_priority_fee=10**15,
    )
    context = {"purpose": "withdrawal", "id": record["id"]}
    message = digests.personal_message(b"sign in")
    for payload, digest, context_given, reason in (
        (digests.transaction(tx), signing_hash(tx), None, "unknown purpose"),  # no context: nothing it is for
        (digests.transaction(tx), b"\x01" * 32, context, "the digest"),
        (digests.transaction(greedy), signing_hash(greedy), context, "fees"),
        (digests.transaction(tx), signing_hash(tx), {**context, "purpose": "other"}, "unknown purpose"),
        (message, digests.digest_of(message), context, "unknown kind"),
    ):
        with pytest.raises(cosigner_check.PolicyRefusedError, match=reason.split()[0]):
            cosigner_check.check(key_id, payload, digest, context_given)
    # The withdrawal's own payment carrying an authorization: the key would run a delegate's code.
    from dataclasses import replace

    from chalicelib.evm.transactions import SignedAuthorization

    delegating = replace(tx, authorization_list=(SignedAuthorization(31337, thief, 1, 0, 1, 1),))
    with pytest.raises(cosigner_check.PolicyRefusedError, match="set-code"):
        cosigner_check.check(key_id, digests.transaction(delegating), signing_hash(delegating), context)


def test_crash_points_never_send_twice_and_never_lose_the_hold(custody, monkeypatch):
    account = funded_account(custody, usdt=9_000_000)
    recipient = Account.create().address

    # 1. The worker dies after signing, before the record: nothing was broadcast; the retry signs at the same nonce.
    first = request_withdrawal(custody, account, "1", to=recipient).json_body["data"]
    real_record = tracking.record

    def die(*args, **kwargs):
        if args[3] != "withdrawal":  # the deposit address's deployment goes first, and goes through
            return real_record(*args, **kwargs)
        raise RuntimeError("crash before the record")

    monkeypatch.setattr(tracking, "record", die)
    with pytest.raises(RuntimeError):
        sending.process(first["id"])
    monkeypatch.setattr(tracking, "record", real_record)
    record = get(**withdrawals.key(first["id"]))
    assert record["status"] == "sending" and "txHash" not in record
    aws.table("custody").update_item(
        Key=withdrawals.key(first["id"]), UpdateExpression="SET leaseUntil = :z", ExpressionAttributeValues={":z": 0}
    )  # its lease ran out
    assert run_withdrawal(first["id"], custody)["status"] == "success"
    assert int(get(**withdrawals.key(first["id"]))["nonce"]) == int(record["nonce"]), "the same nonce"

    # 2. The worker dies after the record, before the broadcast: the tracker broadcasts the recorded transaction.
    second = request_withdrawal(custody, account, "2", to=recipient).json_body["data"]
    real_broadcast = pipeline._broadcast

    def die_before_broadcast(*args, **kwargs):
        raise RuntimeError("crash before the broadcast")  # (the account is deployed by now: one send only)

    monkeypatch.setattr(pipeline, "_broadcast", die_before_broadcast)
    with pytest.raises(RuntimeError):
        sending.process(second["id"])
    monkeypatch.setattr(pipeline, "_broadcast", real_broadcast)
    record = get(**withdrawals.key(second["id"]))
    assert record["status"] == "sent" and tracking.read(record["txHash"]).status == "pending"  # claimed
    w3 = custody["w3"][31337]
    assert _unknown(w3, record["txHash"]), "never broadcast"
    engine.check(record["txHash"])  # the tracker broadcasts the recorded transaction (never a new one)
    assert run_withdrawal(second["id"], custody)["status"] == "success"

    # 3. The worker dies right after the broadcast: the withdrawal is `sent`; it settles once.
    third = request_withdrawal(custody, account, "3", to=recipient).json_body["data"]

    def broadcast_then_die(*args, **kwargs):
        real_broadcast(*args, **kwargs)
        raise RuntimeError("crash after the broadcast")

    monkeypatch.setattr(pipeline, "_broadcast", broadcast_then_die)
    with pytest.raises(RuntimeError):
        sending.process(third["id"])
    monkeypatch.setattr(pipeline, "_broadcast", real_broadcast)
    sending.process(third["id"])  # the redelivered message: settles, never sends again
    assert run_withdrawal(third["id"], custody)["status"] == "success"

    assert token_balance(custody, 31337, "usdt", recipient) == 6_000_000, "each paid exactly once"
    balance = custody_balance(custody, account["id"], "local-a", "usdt")
    assert balance["activeBalance"] == "3" and balance["heldBalance"] == "0"
    stored = {
        f"{b['network']}#{b['tokenCode']}": {f: int(b[f]) for f in ledger.FIELDS}
        for b in ledger.balances(account["id"])
    }
    assert ledger.replay(account["id"]) == stored


def _unknown(w3, tx_hash):
    try:
        w3.eth.get_transaction(tx_hash)
        return False
    except Exception:  # noqa: BLE001 - web3 raises TransactionNotFound
        return True


def test_the_cosigner_enforces_limits_and_the_allowlist_on_its_own(custody, monkeypatch, caplog):
    """Limits or the allowlist tightened after a withdrawal was accepted: the cosigner's own check refuses it (the
    API function is not trusted to have checked), and its log names the custody document's rule that refused."""
    account = funded_account(custody, usdt=5_000_000)
    over_limit = request_withdrawal(custody, account, "2").json_body["data"]
    off_list = request_withdrawal(custody, account, "1").json_body["data"]
    monkeypatch.setenv("DOMPET_WITHDRAWAL_LIMITS", json.dumps({"usdt": {"perWithdrawal": "1.5"}}))
    settings.load_settings.cache_clear()
    assert _admin_allowlist(custody, over_limit["to"]) == 0  # on the list, but over the new limit
    caplog.set_level("INFO", logger="dompet")
    rules = (f"transactions.maxValue.{_usdt(custody)}", "transactions.destinations.allow")
    for withdrawal, rule in zip((over_limit, off_list), rules, strict=True):
        caplog.clear()
        sending.process(withdrawal["id"])
        record = get(**withdrawals.key(withdrawal["id"]))
        assert record["status"] == "failed" and record["failedReason"] == "policy_refused" and "txHash" not in record
        reasons = [str(r.__dict__.get("reason", "")) for r in caplog.records]
        assert any(f"(rule {rule})" in reason for reason in reasons), reasons
    assert token_balance(custody, 31337, "usdt", account["wallets"][0]["address"]) == 5_000_000


def _usdt(custody):
    return next(c for c in custody["chains"] if c["chainId"] == 31337)["tokens"]["usdt"].lower()


def _admin_allowlist(custody, *addresses):
    """The operator's command: the only writer of the allowlist."""
    from chalicelib import operator as admin

    tenant = custody["tenant"]
    args = ["set-withdrawal-allowlist", "--app-id", tenant.appId, "--organization-id", tenant.organizationId]
    for address in addresses:
        args += ["--address", address]
    return admin.main(args)


def test_a_compromised_api_function_cannot_pay_itself(custody, monkeypatch):
    """The API function can write the custody table: it forges a withdrawal to its own address and drives the
    worker. The cosigner refuses: the destination is not on the operator's allowlist; and with no allowlist, its
    own daily total (which the API function cannot touch) stops it at the daily limit."""
    account = funded_account(custody, usdt=5_000_000)
    thief = Account.create().address
    legit = request_withdrawal(custody, account, "1").json_body["data"]
    record = get(**withdrawals.key(legit["id"]))
    assert _admin_allowlist(custody, record["to"]) == 0

    def forge(amount):
        forged = {**record, "id": str(uuid.uuid4()), "to": thief, "amountInDecimals": str(amount)}
        forged.update(withdrawals.key(forged["id"]))
        aws.table("custody").put_item(Item=forged)  # what a compromised API function can do
        return forged

    fake = forge(2_000_000)
    sending.process(fake["id"])
    assert get(**withdrawals.key(fake["id"]))["failedReason"] == "policy_refused"
    assert (
        run_withdrawal(legit["id"], custody)["status"] == "success"
    )  # the real one, to its allowlisted address, is paid

    from chalicelib import operator as admin

    tenant = custody["tenant"]
    off = ["set-withdrawal-allowlist", "--app-id", tenant.appId, "--organization-id", tenant.organizationId, "--off"]
    assert admin.main(off) == 0
    monkeypatch.setenv("DOMPET_WITHDRAWAL_LIMITS", json.dumps({"usdt": {"perDay": "2"}}))
    settings.load_settings.cache_clear()
    for item in aws.table("custody").scan()["Items"]:  # the API function resets the day's totals it can write
        if str(item["pk"]).startswith("DAY#"):
            aws.table("custody").delete_item(Key={"pk": item["pk"], "sk": item["sk"]})
    fake = forge(1_500_000)  # 1 (paid) + 1.5 > 2 by the cosigner's own count
    sending.process(fake["id"])
    assert get(**withdrawals.key(fake["id"]))["failedReason"] == "policy_refused"
    assert token_balance(custody, 31337, "usdt", thief) == 0
    assert token_balance(custody, 31337, "usdt", account["wallets"][0]["address"]) == 4_000_000

    # Records that name the real key and its funded, deployed deposit address, each within the daily limit for
    # the app it names: the cosigner takes the key's scope from its own table and computes the deposit address
    # from the account id, so none of them is signed.
    victim = account["wallets"][0]["address"]
    real_account = get(f"ACCOUNT#{account['id']}", "ACCOUNT")
    other = create_account(custody, "other")  # another deposit address of the same key, never funded
    for case in FORGERIES:
        account_item, fake = _forgery(case, record, real_account, other, thief)
        before = get(account_item["pk"], "ACCOUNT")
        aws.table("custody").put_item(Item=account_item)  # what a compromised API function can do
        aws.table("custody").put_item(Item=fake)
        sending.process(fake["id"])
        assert get(**withdrawals.key(fake["id"]))["failedReason"] == "policy_refused", case
        assert token_balance(custody, 31337, "usdt", thief) == 0, case
        assert token_balance(custody, 31337, "usdt", victim) == 4_000_000, case
        if before is None:
            aws.table("custody").delete_item(Key={"pk": account_item["pk"], "sk": "ACCOUNT"})
        else:
            aws.table("custody").put_item(Item=before)
    assert custody_balance(custody, account["id"], "local-a", "usdt")["activeBalance"] == "4"


FORGERIES = ("forged app id", "forged deposit address", "forged account")


def _forgery(case, record, real_account, other, thief):
    """(account item, withdrawal record) a compromised API function writes to take 0.5 USDT from the real account's
    deposit address (`record` is a paid withdrawal of that account):

    * forged app id: the real account, rewritten to an invented app (no allowlist, nothing paid today);
    * forged deposit address: the key's other account, rewritten to the real account's deposit address;
    * forged account: an account id the API never made, of the real app and key, at that deposit address."""
    if case == "forged app id":
        account = {**real_account, "appId": str(uuid.uuid4())}
    elif case == "forged deposit address":
        account = {**get(f"ACCOUNT#{other['id']}", "ACCOUNT"), "wallets": real_account["wallets"]}
    else:
        fresh = str(uuid.uuid4())
        account = {**real_account, "pk": f"ACCOUNT#{fresh}", "id": fresh, "subId": "forged"}
    fake = {
        **record,
        "id": str(uuid.uuid4()),
        "appId": account["appId"],
        "accountId": account["id"],
        "fromAddress": real_account["wallets"][0]["address"],
        "to": thief,
        "amountInDecimals": "500000",
    }
    fake.update(withdrawals.key(fake["id"]))
    return account, fake


def test_an_organization_key_pays_only_for_its_apps_and_within_its_own_daily_total(custody, monkeypatch):
    """An organization's pool key serves the apps that `tenancy` puts in the organization.
    A compromised API function forges withdrawals from the key's funded deposit address under other app ids (each
    app has a fresh daily total, and no allowlist): an app of another organization is refused, and one of the same
    organization is stopped by the cosigner's own total for the key."""
    from chalicelib.tenancy import service as tenancy

    monkeypatch.setenv("DOMPET_WITHDRAWAL_LIMITS", json.dumps({"usdt": {"perDay": "2"}}))
    settings.load_settings.cache_clear()
    account = funded_account(custody, usdt=5_000_000, sub_id="org", pool_type="organization_owned")
    address = account["wallets"][0]["address"]
    item = get(f"ACCOUNT#{account['id']}", "ACCOUNT")
    paid = request_withdrawal(custody, account, "1.5").json_body["data"]
    record = get(**withdrawals.key(paid["id"]))  # as the API wrote it (`pending`): the forgeries' template
    assert run_withdrawal(paid["id"], custody)["status"] == "success"  # deploys the address; the key's total is 1.5

    sibling, _ = tenancy.create_app(tenancy.create_client(custody["tenant"].organizationId, "Sibling")[0].clientId, "B")
    stranger = tenancy.create_tenant("Other").appId
    thief = Account.create().address
    for app_id, reason in ((stranger, "another organization's app"), (sibling.appId, "the key's daily total")):
        aws.table("custody").put_item(Item={**item, "appId": app_id})  # what a compromised API function can write
        fake = {**record, "id": str(uuid.uuid4()), "appId": app_id, "to": thief, "amountInDecimals": "1000000"}
        fake.update(withdrawals.key(fake["id"]))
        aws.table("custody").put_item(Item=fake)
        sending.process(fake["id"])
        assert get(**withdrawals.key(fake["id"]))["failedReason"] == "policy_refused", reason
        assert token_balance(custody, 31337, "usdt", thief) == 0, reason
    assert token_balance(custody, 31337, "usdt", address) == 3_500_000


def test_an_app_made_in_the_console_is_bound_by_its_organizations_allowlists(custody):
    """The API function can make apps (the console). A compromised one makes an app in an organization where an app
    has an allowlist on, and forges a withdrawal of that new app from the organization key's funded deposit address,
    within every limit: the cosigner refuses it, since an app the operator set nothing for inherits an empty
    allowlist; the API refuses such a withdrawal too."""
    from chalicelib.tenancy import service as tenancy

    account = funded_account(custody, usdt=5_000_000, sub_id="org-allow", pool_type="organization_owned")
    address = account["wallets"][0]["address"]
    item = get(f"ACCOUNT#{account['id']}", "ACCOUNT")
    paid = request_withdrawal(custody, account, "1").json_body["data"]
    record = get(**withdrawals.key(paid["id"]))
    assert _admin_allowlist(custody, record["to"]) == 0
    assert run_withdrawal(paid["id"], custody)["status"] == "success"

    planted, _ = tenancy.create_app(custody["tenant"].clientId, "Planted")  # what the console can write
    thief = Account.create().address
    aws.table("custody").put_item(Item={**item, "appId": planted.appId})
    fake = {**record, "id": str(uuid.uuid4()), "appId": planted.appId, "to": thief, "amountInDecimals": "500000"}
    fake.update(withdrawals.key(fake["id"]))
    aws.table("custody").put_item(Item=fake)
    sending.process(fake["id"])
    assert get(**withdrawals.key(fake["id"]))["failedReason"] == "policy_refused"
    assert token_balance(custody, 31337, "usdt", thief) == 0
    assert token_balance(custody, 31337, "usdt", address) == 4_000_000
    assert operator_policy.allowlist(planted.appId, planted.organizationId) == {
        "enabled": True,
        "addresses": [],
        "updatedAt": None,
        "inherited": True,
    }


def test_the_user_party_never_signs_for_a_custody_key(custody):
    """Share C of a custody key is kept (sealed) in the custody table; the API function could ask the user party
    to sign with it and skip the cosigner. It is sealed under a context the user party never opens for signing."""
    from chalicelib.evm import digests
    from chalicelib.mpc import service as mpc

    account = funded_account(custody, usdt=1_000_000)
    key = get(f"KEY#app:{custody['tenant'].appId}", "KEY")
    payload = digests.personal_message(b"\x07" * 32)
    with pytest.raises(mpc.MpcRunError):
        mpc.sign(key["keyId"], key["address"], payload, "attacker", secret0=key["secret0"])
    from chalicelib.mpc import parties

    request = {
        "action": "sign",
        "runId": "ab" * 16,
        "walletId": key["keyId"],
        "peers": [0],
        "digest": digests.digest_of(payload).hex(),
        "payload": payload.model_dump(),
        "signers": [0, 2],
        "secret0": key["secret0"],
    }
    assert parties.user_party(request)["code"] == "SECRET0_REJECTED"  # sealed for recovery only: never opened
    assert account


def test_a_withdrawal_whose_message_was_lost_is_queued_again(custody, monkeypatch):
    from chalicelib.platform import clock

    account = funded_account(custody, usdt=2_000_000)
    queued = []
    real_enqueue = withdrawals.enqueue
    monkeypatch.setattr(withdrawals, "enqueue", lambda withdrawal_id, delay_s=0: queued.append(withdrawal_id))
    withdrawal = request_withdrawal(custody, account, "1").json_body["data"]
    queued.clear()  # the message is lost
    assert withdrawals.requeue_stale() == 0  # not stale yet
    try:
        clock.travel(withdrawal_records.STALE_S + 1)
        assert withdrawals.requeue_stale() == 1 and queued == [withdrawal["id"]]
    finally:
        clock.reset()
    monkeypatch.setattr(withdrawals, "enqueue", real_enqueue)
    assert run_withdrawal(withdrawal["id"], custody)["status"] == "success"
    assert withdrawals.requeue_stale() == 0  # ended: out of the due index


def test_the_sqs_worker_and_the_schedule_run_withdrawals(custody):
    """Through what Lambda runs: the `send_withdrawals` consumer of the queue the API wrote to, and the schedule."""
    from app import app
    from devtools.workers import WorkerRunner

    account = funded_account(custody, usdt=3_000_000)
    recipient = Account.create().address
    withdrawal = request_withdrawal(custody, account, "1.25", to=recipient).json_body["data"]
    runner = WorkerRunner(app, region="us-east-1", poll_wait_s=0)
    [source] = [q for q in runner.queues if q.name == "send_withdrawals"]
    [schedule] = [s for s in runner.schedules if s.name == "requeue_withdrawals"]
    [tracker] = [q for q in runner.queues if q.name == "track_transaction"]
    assert runner.poll_once(source) == 1
    record = get(**withdrawals.key(withdrawal["id"]))
    assert record["status"] == "sent"
    w3 = custody["w3"][31337]
    w3.eth.wait_for_transaction_receipt(record["txHash"])
    mine_blocks(w3, CONFIRMATIONS)
    runner.invoke_scheduled(schedule)  # nothing stale: queues nothing
    for _ in range(40):  # the tracker's steps: the transaction settles, then the withdrawal on it
        if get(**withdrawals.key(withdrawal["id"]))["status"] == "success":
            break
        runner.poll_once(tracker)
        runner.poll_once(source)
        time.sleep(0.3)
    assert get(**withdrawals.key(withdrawal["id"]))["status"] == "success"
    assert token_balance(custody, 31337, "usdt", recipient) == 1_250_000


def test_a_stocked_custody_key_signs_from_presignatures_checked_at_the_online_step(custody, pool_settings, monkeypatch):
    """Custody keys sign from presignatures: the cosigner's custody checks run in the online step, before its partial
    signature, as on the full path; a refusal burns the presignature on both sides and pays nothing."""
    import dompet_mpc

    from chalicelib.mpc import presignatures, shares
    from tests.support.mpc import audit_records, refill_messages, run_refill_function

    account = funded_account(custody, usdt=5_000_000)
    (message,) = refill_messages()  # the pool key's first stock, asked for at its generation
    key_id = message["walletId"]
    assert run_refill_function(message) == {"batchItemFailures": []}

    def ready() -> dict[int, list[str]]:
        return {party: sorted(presignatures.ready_ids(party, key_id)) for party in (shares.SIGNER, shares.COSIGNER)}

    assert len(ready()[shares.SIGNER]) == 2 and ready()[shares.SIGNER] == ready()[shares.COSIGNER]

    def no_full_run(*args, **kwargs):
        raise AssertionError("a full signing run started")

    monkeypatch.setattr(dompet_mpc, "signing_session", no_full_run)
    recipient = Account.create().address
    withdrawal = request_withdrawal(custody, account, "1.5", to=recipient).json_body["data"]
    record = run_withdrawal(withdrawal["id"], custody)
    assert record["status"] == "success", record
    assert token_balance(custody, 31337, "usdt", recipient) == 1_500_000  # on chain, exactly
    signed = [r for r in audit_records(key_id) if r["outcome"] == "signed"]
    assert [r["method"] for r in signed] == ["presignature", "presignature"]  # the address's deployment, the payment
    assert ready() == {shares.SIGNER: [], shares.COSIGNER: []}
    counted = aws.table("cosigner-policy").get_item(Key={"pk": f"SIGNED#{withdrawal['id']}", "sk": "SIGNED"})
    assert counted["Item"]["nonce"] == record["nonce"]  # the cosigner's own record of the one nonce it signed
    [success] = outbox_events("withdraw.success")
    assert success["data"]["withdrawal"]["txHash"] == record["txHash"]

    # A compromised API side builds a payment to itself: refused in the online step, before any partial signature.
    assert run_refill_function(message) == {"batchItemFailures": []}  # its demand (2 lately) between floor and ceiling
    stocked = ready()
    assert len(stocked[shares.SIGNER]) == 2
    thief = Account.create().address
    real_call = cosigner_check.expected_call
    monkeypatch.setattr(
        sending, "expected_call", lambda r: real_call({**r, "to": thief, "amountInDecimals": "3500000"})
    )
    partials: list[bytes] = []
    real_partial = dompet_mpc.issue_partial_signature

    def partial(share: bytes, digest: bytes) -> bytes:
        partials.append(digest)
        return real_partial(share, digest)

    monkeypatch.setattr(dompet_mpc, "issue_partial_signature", partial)
    refused = request_withdrawal(custody, account, "1", to=Account.create().address).json_body["data"]
    sending.process(refused["id"])
    record = get(**withdrawals.key(refused["id"]))
    assert record["status"] == "failed" and record["failedReason"] == "policy_refused" and "txHash" not in record
    assert token_balance(custody, 31337, "usdt", thief) == 0
    assert token_balance(custody, 31337, "usdt", account["wallets"][0]["address"]) == 3_500_000
    assert len(partials) == 1  # party A's own, which never left its function: the cosigner issued none
    after = ready()
    assert len(after[shares.SIGNER]) == 1 and after[shares.SIGNER] == after[shares.COSIGNER]
    (burned,) = set(stocked[shares.COSIGNER]) - set(after[shares.COSIGNER])
    used = aws.table(presignatures.TABLE[shares.COSIGNER]).get_item(Key=presignatures.used_key(key_id, burned))
    assert used["Item"]["digest"] == partials[0].hex()  # the cosigner's share is spent on the refused digest alone
    [refusal] = [r for r in audit_records(key_id) if r.get("presignatureId") == burned]
    assert (refusal["method"], refusal["outcome"]) == ("presignature", "failed")


def _kept_and_paid_once(custody, account, withdrawal_id, recipient, paid_by):
    """The withdrawal is kept for review (`needs_review`, `released: false`) while another signature of the custody
    key at its nonce paid it on chain: the amount stays held, no entry or event released it, and its nonce went
    back to no one. The operator's review then finds it paid and settles it: paid and debited exactly once."""
    from chalicelib.custody.withdrawals import review
    from chalicelib.evm import nonces
    from chalicelib.platform.pagination import PageQuery

    w3 = custody["w3"][31337]
    record = get(**withdrawals.key(withdrawal_id))
    assert record["status"] == "failed" and record["failedReason"] == "needs_review", record
    assert record["released"] is False
    nonce = int(record["nonce"])
    assert w3.eth.get_transaction_receipt(paid_by)["status"] == 1
    assert w3.eth.get_transaction(paid_by)["nonce"] == nonce  # the other signature, at the withdrawal's nonce
    assert token_balance(custody, 31337, "usdt", recipient) == 1_000_000
    balance = custody_balance(custody, account["id"], "local-a", "usdt")
    assert balance["heldBalance"] == "1", "paid on chain: never given back to activeBalance"
    kinds = [e["kind"] for e in ledger.journal(account["id"]).page(PageQuery(page=1, limit=100))[0]]
    assert "release" not in kinds and "debit" not in kinds
    [failed] = outbox_events("withdraw.failed")
    assert failed["data"]["withdrawal"]["released"] is False and "release" not in failed["data"]
    assert failed["data"]["withdrawal"]["reason"] == "needs_review"
    assert not outbox_events("withdraw.success")
    item = aws.table(nonces.TABLE).get_item(Key=nonces.key(record["keyAddress"], 31337), ConsistentRead=True)["Item"]
    assert nonce not in nonces.held(item), "the reservation ended with the withdrawal"
    assert nonce not in {int(n) for n in item.get("given", set())}, "its nonce was not given back"

    sending.process(withdrawal_id)  # a later message changes nothing
    assert get(**withdrawals.key(withdrawal_id))["status"] == "failed"
    mine_blocks(w3, CONFIRMATIONS)
    shown = review.inspect(withdrawal_id)
    assert shown["verdict"] == "paid" and shown["chain"]["nonceUsedBy"]["txHash"] == paid_by, shown
    review.settle(withdrawal_id)
    assert get(**withdrawals.key(withdrawal_id))["status"] == "success"
    after = custody_balance(custody, account["id"], "local-a", "usdt")
    assert after["heldBalance"] == "0" and after["activeBalance"] == balance["activeBalance"]
    assert token_balance(custody, 31337, "usdt", recipient) == 1_000_000, "paid once"
    stored = {
        f"{b['network']}#{b['tokenCode']}": {f: int(b[f]) for f in ledger.FIELDS}
        for b in ledger.balances(account["id"])
    }
    assert ledger.replay(account["id"]) == stored


def _until_ended(withdrawal_id, rounds=3):
    """The worker's messages, without waiting for a transaction that will never be mined."""
    for _ in range(rounds):
        sending.process(withdrawal_id)
        if get(**withdrawals.key(withdrawal_id))["status"] in ("success", "failed"):
            return


@pytest.mark.parametrize("other", ["mined", "pooled"])
def test_a_broadcast_refused_for_its_nonce_keeps_the_withdrawal_held(custody, monkeypatch, other):
    """A second signature of the same payment at the withdrawal's nonce, by the same custody key (the service's own
    signing run again, with higher fees, as a retry or a compromised API function gets one), reaches the chain
    just before the worker's broadcast. The node refuses the worker's for its nonce: "nonce too low" once the other
    is mined, "replacement transaction underpriced" while the other waits in the pool. The other pays, so the
    withdrawal is never released: kept for review, its nonce not given back."""
    from dataclasses import replace

    from chalicelib.evm.transactions import assemble

    account = funded_account(custody, usdt=5_000_000)
    recipient = Account.create().address
    withdrawal = request_withdrawal(custody, account, "1", to=recipient).json_body["data"]
    w3 = custody["w3"][31337]
    real_record = tracking.record
    first: list[str] = []

    def another_signature_first(*args, **kwargs):
        signed, kind = args[2], args[3]
        if kind == "withdrawal" and not first:  # signed by the worker, not yet recorded nor broadcast
            record = withdrawals.read(withdrawal["id"])
            fee = 3 * signed.tx.max_fee
            again = replace(signed.tx, max_fee=fee, max_priority_fee=fee)
            signer = sending.CustodySigner(record.keyId, record.keyAddress, "withdrawal", record.id)
            other_tx = assemble(again, record.keyAddress, signer.sign_transaction(again))
            first.append("0x" + bytes(w3.eth.send_raw_transaction(other_tx.raw)).hex())
        return real_record(*args, **kwargs)

    monkeypatch.setattr(tracking, "record", another_signature_first)
    if other == "pooled":
        w3.provider.make_request("evm_setAutomine", [False])
    try:
        sending.process(withdrawal["id"])
    finally:
        if other == "pooled":
            w3.provider.make_request("evm_mine", [])
            w3.provider.make_request("evm_setAutomine", [True])
    monkeypatch.setattr(tracking, "record", real_record)
    record = get(**withdrawals.key(withdrawal["id"]))
    refused = tracking.read(record["txHash"])
    assert refused is not None and refused.status == "failed"
    wording = "nonce too low" if other == "mined" else "replacement transaction underpriced"
    assert wording in (refused.failedReason or "").lower(), refused.failedReason
    assert _unknown(w3, record["txHash"]), "the worker's own signature never reached the chain"
    _until_ended(withdrawal["id"])
    _kept_and_paid_once(custody, account, withdrawal["id"], recipient, first[0])


@pytest.mark.parametrize("funds", ["spent", "left"])
def test_a_withdrawal_whose_nonce_the_chain_passed_is_kept_before_anything_is_signed(custody, monkeypatch, funds):
    """The worker dies after the custody key signed the withdrawal and before the record; that signature reaches the
    chain anyway (whoever held it broadcast it) and pays. Taken up again, the withdrawal finds the key's mined nonce
    past its own: kept for review before anything is signed again, whether the deposit address now holds less than
    the amount (not `insufficient_funds_on_chain`, released) or still enough (not a new signature refused for its
    nonce, released as `refused`)."""
    account = funded_account(custody, usdt=1_000_000 if funds == "spent" else 5_000_000)
    recipient = Account.create().address
    withdrawal = request_withdrawal(custody, account, "1", to=recipient).json_body["data"]
    real_record = tracking.record
    signed_first = []

    def die_after_signing(*args, **kwargs):
        if args[3] != "withdrawal":  # the deposit address's deployment goes first, and goes through
            return real_record(*args, **kwargs)
        signed_first.append(args[2])
        raise RuntimeError("the worker dies after the signature, before the record")

    monkeypatch.setattr(tracking, "record", die_after_signing)
    with pytest.raises(RuntimeError):
        sending.process(withdrawal["id"])
    monkeypatch.setattr(tracking, "record", real_record)
    w3 = custody["w3"][31337]
    paid_by = "0x" + bytes(w3.eth.send_raw_transaction(signed_first[0].raw)).hex()
    w3.eth.wait_for_transaction_receipt(paid_by)
    aws.table("custody").update_item(
        Key=withdrawals.key(withdrawal["id"]),
        UpdateExpression="SET leaseUntil = :z",
        ExpressionAttributeValues={":z": 0},
    )  # its lease ran out
    signatures = []
    real_sign = sending.CustodySigner.sign_transaction

    def counted(self, tx):
        signatures.append(tx)
        return real_sign(self, tx)

    monkeypatch.setattr(sending.CustodySigner, "sign_transaction", counted)
    _until_ended(withdrawal["id"])
    assert signatures == [], "nothing signed again"
    assert "txHash" not in get(**withdrawals.key(withdrawal["id"]))
    _kept_and_paid_once(custody, account, withdrawal["id"], recipient, paid_by)


def test_a_node_that_already_knows_the_withdrawals_own_transaction_is_no_refusal(custody, monkeypatch):
    """A node's "already known" (anvil: "transaction already imported") means it has this very transaction: it is
    tracked and settled as sent, neither kept nor released, and paid once."""
    account = funded_account(custody, usdt=5_000_000)
    recipient = Account.create().address
    withdrawal = request_withdrawal(custody, account, "1", to=recipient).json_body["data"]
    w3 = custody["w3"][31337]
    real_broadcast = pipeline._broadcast
    answers: list[str] = []

    def delivered_first(network, tx, signed, body, **kwargs):
        if tx.kind == "withdrawal":
            w3.eth.send_raw_transaction(signed.raw)  # another URL, or the tracker, delivered it already
            try:
                w3.eth.send_raw_transaction(signed.raw)
            except Exception as exc:  # noqa: BLE001 - what the node answers a second delivery
                answers.append(str(exc))
        return real_broadcast(network, tx, signed, body, **kwargs)

    monkeypatch.setattr(pipeline, "_broadcast", delivered_first)
    w3.provider.make_request("evm_setAutomine", [False])
    try:
        sending.process(withdrawal["id"])
    finally:
        w3.provider.make_request("evm_mine", [])
        w3.provider.make_request("evm_setAutomine", [True])
    monkeypatch.setattr(pipeline, "_broadcast", real_broadcast)
    assert answers and pipeline.ALREADY_KNOWN.search(answers[0]), answers
    record = get(**withdrawals.key(withdrawal["id"]))
    assert record["status"] == "sent" and tracking.read(record["txHash"]).status == "pending"
    assert run_withdrawal(withdrawal["id"], custody)["status"] == "success"
    assert token_balance(custody, 31337, "usdt", recipient) == 1_000_000
    assert custody_balance(custody, account["id"], "local-a", "usdt")["heldBalance"] == "0"
    assert not outbox_events("withdraw.failed")


def test_a_stuck_withdrawal_is_re_priced_by_the_engine_and_settles_once_with_the_mined_hash(custody, monkeypatch):
    """The engine's tracker signs the withdrawal's transaction again at its nonce (its cosigner allows the same
    payment at the nonce it first signed, the withdrawal being `sent`), and the withdrawal settles on the
    replacement: `success` with the mined hash, paid once, one `withdraw.success`."""
    monkeypatch.setenv("DOMPET_TX_BUMP_AFTER_S", "1")
    settings.load_settings.cache_clear()
    w3 = custody["w3"][31337]
    account = funded_account(custody, usdt=10_000_000, eth=10**18)
    first = request_withdrawal(custody, account, "1", to=Account.create().address).json_body["data"]
    assert run_withdrawal(first["id"], custody)["status"] == "success"  # the deposit address is deployed now
    recipient = Account.create().address
    withdrawal = request_withdrawal(custody, account, "1.5", to=recipient).json_body["data"]

    def rpc(method, *params):
        answer = w3.provider.make_request(method, list(params))
        assert "error" not in answer, answer

    base_fee = w3.eth.get_block("latest")["baseFeePerGas"]
    rpc("evm_setAutomine", False)
    try:
        sending.process(withdrawal["id"])
        sent = get(**withdrawals.key(withdrawal["id"]))
        assert sent["status"] == "sent"
        original = tracking.read(sent["txHash"])
        cap = int(json.loads(original.receipt)["maxFeePerGas"] or json.loads(original.receipt)["gasPrice"])
        rpc("anvil_setNextBlockBaseFeePerGas", hex(3 * cap))
        rpc("evm_mine")
    finally:
        rpc("evm_setAutomine", True)
    assert w3.eth.get_transaction_count(original.sender, "latest") == original.nonce  # priced out
    time.sleep(1.1)
    with running_as("track_transaction"):  # its AWS calls are checked against the function's grants (IAM test)
        engine.check(original.hash)  # re-priced and signed again by the custody key at the withdrawal's nonce
    replaced = tracking.read(original.hash)
    assert replaced.status == "pending" and len(replaced.attempts) == 1
    mined_hash = replaced.attempts[0].hash
    w3.eth.wait_for_transaction_receipt(mined_hash)
    mine_blocks(w3, CONFIRMATIONS)
    engine.check(original.hash)
    assert tracking.read(original.hash).minedHash == mined_hash
    sending.process(withdrawal["id"])
    record = get(**withdrawals.key(withdrawal["id"]))
    assert record["status"] == "success" and record["txHash"] == mined_hash
    assert token_balance(custody, 31337, "usdt", recipient) == 1_500_000  # paid exactly once, on chain
    assert w3.eth.get_transaction(mined_hash)["maxFeePerGas"] > cap
    successes = [e for e in outbox_events("withdraw.success") if e["id"] == f"withdraw.success:{withdrawal['id']}"]
    assert len(successes) == 1 and successes[0]["data"]["withdrawal"]["txHash"] == mined_hash
    sending.process(withdrawal["id"])  # a duplicate message: nothing more
    assert token_balance(custody, 31337, "usdt", recipient) == 1_500_000
    rpc("anvil_setNextBlockBaseFeePerGas", hex(base_fee))  # the chain is shared with the other tests
    rpc("evm_mine")


def test_a_sent_withdrawal_is_signed_again_only_for_the_payment_first_signed(custody):
    """A compromised API function rewrites a `sent` withdrawal (a larger amount, another recipient) and asks for a
    "re-pricing" at its nonce: the cosigner compares the call with the payment it first signed there and refuses;
    the same call at higher fees is what it signs again."""
    from dataclasses import replace

    from chalicelib.evm import digests
    from chalicelib.evm.transactions import signing_hash

    account = funded_account(custody, usdt=10_000_000, eth=10**18)
    withdrawal = request_withdrawal(custody, account, "1", to=Account.create().address).json_body["data"]
    sending.process(withdrawal["id"])
    record = get(**withdrawals.key(withdrawal["id"]))
    assert record["status"] == "sent"
    first = tracking.read(record["txHash"]).unsigned()
    context = {"purpose": "withdrawal", "id": record["id"]}
    bumped = replace(first, max_fee=(first.max_fee or 0) * 2, max_priority_fee=(first.max_priority_fee or 0) * 2)
    cosigner_check.check(record["keyId"], digests.transaction(bumped), signing_hash(bumped), context)  # a re-pricing
    for field, value in (("amountInDecimals", "5000000"), ("to", Account.create().address)):
        aws.table("custody").update_item(
            Key=withdrawals.key(record["id"]),
            UpdateExpression="SET #f = :v",
            ExpressionAttributeNames={"#f": field},
            ExpressionAttributeValues={":v": value},
        )
        forged = replace(bumped, data=cosigner_check.expected_call(get(**withdrawals.key(record["id"]))))
        with pytest.raises(cosigner_check.PolicyRefusedError, match="another payment"):
            cosigner_check.check(record["keyId"], digests.transaction(forged), signing_hash(forged), context)
