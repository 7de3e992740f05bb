"""Replacements, cancels and gap fills at the cosigner (policies/cosigner_check.py, usage.py), decided from the
transaction the cosigner reads and its own nonce marks, never from what the API function says:

* a transaction of a payment (to, value, data) the wallet signed at that nonce, with other fees, is a replacement:
  the documents still decide it, it counts once, and its fees stay under the ceiling (the network's
  `maxFeePerGasCeiling`, else 10 times the first signature's fee cap);
* another payment at that nonce is a new transaction (the compromised API's "replacement");
* a self-send of nothing at or below the wallet's highest signed nonce is a no-op (cancel or gap fill): allowed
  without the documents, counted in no window; any other self-send is an ordinary transaction.
"""

from __future__ import annotations

import base64
import threading
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from boto3.dynamodb.conditions import Key
from eth_utils import keccak
from nacl.signing import SigningKey

from chalicelib.auth.models import WalletPrincipal
from chalicelib.evm import digests
from chalicelib.evm.digests import Signable
from chalicelib.evm.transactions import UnsignedTx
from chalicelib.mpc import cosigner_checks, parties, presignatures, shares
from chalicelib.platform import aws, clock
from chalicelib.platform.errors import ApiError
from chalicelib.platform.invocation import running_as
from chalicelib.policies import cosigner_check, signed, store, usage
from chalicelib.policies.cosigner_check import register_policy_key
from chalicelib.wallets import provisioning
from tests.support.cosigner import cosigner_decides, cosigner_policy_reads, no_full_signing
from tests.support.mpc import principal_for, recovered_address, refill_messages, refreshed, run_refill_function

FRIEND = "0x" + "11" * 20
STRANGER = "0x" + "22" * 20
CHAIN_ID = 31337
GWEI = 10**9
LOCAL_A = {"name": "local-a", "chainId": CHAIN_ID, "rpcUrls": ["http://127.0.0.1:9"], "nativeSymbol": "ETH"}
# Sends to FRIEND only: a transfer to the wallet itself is refused (a default-deny policy that a gap fill would jam).
DEFAULT_DENY = {"version": 1, "default": "deny", "transactions": {"destinations": {"allow": [FRIEND]}}}
ALLOW_LIST = "transactions.destinations.allow"


@pytest.fixture(autouse=True)
def networks(use_networks: Callable[[list[dict[str, Any]]], Any]) -> None:
    use_networks([LOCAL_A])


@pytest.fixture(autouse=True)
def _no_leftover_travel() -> Iterator[None]:
    yield
    clock.reset()


@pytest.fixture
def policy_key(tenant: Any) -> SigningKey:
    key = SigningKey.generate()
    register_policy_key(tenant.appId, base64.b64encode(bytes(key.verify_key)).decode(), tenant.clientId)
    return key


@pytest.fixture
def wallet(tenant: Any, aux_sets: Any) -> WalletPrincipal:
    aux_sets(1)
    principal = principal_for(tenant, "alice")
    provisioning.create(principal, None)
    return refreshed(principal)


@pytest.fixture
def stocked(tenant: Any, aux_sets: Any, pool_settings: None) -> WalletPrincipal:
    """A wallet whose pool holds two presignatures."""
    aux_sets(1)
    principal = principal_for(tenant, "bob")
    provisioning.create(principal, None)
    principal = refreshed(principal)
    (message,) = refill_messages()
    assert run_refill_function(message) == {"batchItemFailures": []}
    return principal


def set_policy(app_id: str, key: SigningKey, document: dict[str, Any]) -> None:
    signature = base64.b64encode(key.sign(signed.policy_message(app_id, document)).signature).decode()
    answer = parties.cosigner({"action": "policy-set", "appId": app_id, "policy": document, "signature": signature})
    assert answer["ok"], answer


def tx(
    to: str | None,
    value: int = 0,
    data: bytes = b"",
    nonce: int = 0,
    fee: int = GWEI,
    tip: int | None = None,
    legacy: bool = False,
) -> Signable:
    """A transaction at `fee` per gas: gasPrice (legacy) or maxFeePerGas with a priority fee of `tip` (else 1 wei)."""
    if legacy:
        return digests.transaction(UnsignedTx(CHAIN_ID, nonce, to, value, data, 21_000, gas_price=fee))
    return digests.transaction(
        UnsignedTx(CHAIN_ID, nonce, to, value, data, 21_000, max_fee=fee, max_priority_fee=1 if tip is None else tip)
    )


def window(wallet_id: str) -> tuple[dict[str, int], int]:
    item = aws.table(store.TABLE).get_item(Key=usage.usage_key(wallet_id), ConsistentRead=True).get("Item")
    spent = usage.usage(usage.window_of(item), clock.epoch())
    return dict(spent.spent), spent.count


def counted(wallet_id: str) -> int:
    items = aws.table(store.TABLE).scan(ConsistentRead=True)["Items"]
    return sum(1 for item in items if str(item["pk"]).startswith(f"COUNTED#{wallet_id}#"))


def nonce_marks(wallet_id: str) -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = aws.table(store.TABLE).query(
        KeyConditionExpression=Key("pk").eq(f"NONCES#{wallet_id}#{CHAIN_ID}"), ConsistentRead=True
    )["Items"]
    return items


# --- replacements ----------------------------------------------------------------------------------------------


def test_a_replacement_with_higher_fees_is_allowed_and_counted_once(tenant, policy_key, wallet):
    wallet_id = wallet.user.walletId
    limits = {"maxCountPer24h": 1, "maxValuePer24h": {"native": "100"}}
    set_policy(tenant.appId, policy_key, {"version": 1, "transactions": limits})
    assert cosigner_decides(wallet_id, tx(FRIEND, 60, fee=GWEI)) is None
    assert window(wallet_id) == ({"native": 60}, 1)

    # Re-priced twice (and once as a legacy transaction of the same payment): the same payment, counted once.
    for bumped in (
        tx(FRIEND, 60, fee=2 * GWEI, tip=GWEI),
        tx(FRIEND, 60, fee=5 * GWEI),
        tx(FRIEND, 60, fee=3 * GWEI, legacy=True),
    ):
        assert cosigner_decides(wallet_id, bumped) is None
    assert window(wallet_id) == ({"native": 60}, 1)
    assert counted(wallet_id) == 1
    [mark] = nonce_marks(wallet_id)
    assert mark["feeCap"] == str(GWEI)  # the first signature's

    # The documents still decide a replacement: a new payment is over the count, and the replacement signs in full.
    assert cosigner_decides(wallet_id, tx(FRIEND, 1, nonce=1)) == "transactions.maxCountPer24h"
    payload = tx(FRIEND, 60, fee=8 * GWEI)
    signature = provisioning.sign(wallet, payload)
    assert recovered_address(signature, digests.digest_of(payload)) == wallet.user.walletAddress
    assert window(wallet_id) == ({"native": 60}, 1)

    # A stricter document refuses the replacement as it would the payment (no policy is loosened).
    set_policy(tenant.appId, policy_key, {"version": 2, "transactions": {"maxValue": {"native": "59"}}})
    assert cosigner_decides(wallet_id, tx(FRIEND, 60, fee=9 * GWEI)) == "transactions.maxValue.native"


def test_another_payment_at_a_signed_nonce_is_a_new_transaction(tenant, policy_key, wallet):
    """What a compromised API might present as a replacement: another recipient, value or call data at the nonce."""
    wallet_id = wallet.user.walletId
    set_policy(tenant.appId, policy_key, {"version": 1, "transactions": {"maxCountPer24h": 1}})
    assert cosigner_decides(wallet_id, tx(FRIEND, 60)) is None
    for other in (tx(STRANGER, 60, fee=2 * GWEI), tx(FRIEND, 61, fee=2 * GWEI), tx(FRIEND, 60, b"\x01", fee=2 * GWEI)):
        assert cosigner_decides(wallet_id, other) == "transactions.maxCountPer24h"
    assert window(wallet_id) == ({"native": 60}, 1)
    assert len(nonce_marks(wallet_id)) == 1

    # A nonce given back and reused by another send: judged and counted as any transaction.
    set_policy(tenant.appId, policy_key, {"version": 2, "transactions": {"maxCountPer24h": 2}})
    assert cosigner_decides(wallet_id, tx(STRANGER, 7)) is None
    assert window(wallet_id) == ({"native": 67}, 2)
    assert len(nonce_marks(wallet_id)) == 2
    # A "replacement" on another chain is not one either.
    other_chain = digests.transaction(UnsignedTx(31338, 0, FRIEND, 60, b"", 21_000, max_fee=GWEI, max_priority_fee=1))
    assert cosigner_decides(wallet_id, other_chain) == "transactions.maxCountPer24h"


def test_replacement_fees_above_the_networks_ceiling_are_refused(tenant, policy_key, wallet, use_networks):
    use_networks([{**LOCAL_A, "maxFeePerGasCeiling": 50 * GWEI}])
    wallet_id = wallet.user.walletId
    assert cosigner_decides(wallet_id, tx(FRIEND, 5, fee=GWEI)) is None
    # At the ceiling, not at 10 times the first fee cap:
    assert cosigner_decides(wallet_id, tx(FRIEND, 5, fee=50 * GWEI)) is None
    assert cosigner_decides(wallet_id, tx(FRIEND, 5, fee=50 * GWEI + 1)) == "replacement"
    assert cosigner_decides(wallet_id, tx(FRIEND, 5, fee=50 * GWEI + 1, legacy=True)) == "replacement"
    tip_above_the_cap = tx(FRIEND, 5, fee=2 * GWEI, tip=2 * GWEI + 1)
    assert cosigner_decides(wallet_id, tip_above_the_cap) == "replacement"
    assert window(wallet_id) == ({"native": 5}, 1)
    # An ordinary transaction is not bounded by the ceiling (its fees are not a replacement's).
    assert cosigner_decides(wallet_id, tx(FRIEND, 5, nonce=1, fee=60 * GWEI)) is None

    # Refused with a rule: on the full path nothing is signed, answered POLICY_DENIED.
    with pytest.raises(ApiError) as refused:
        provisioning.sign(wallet, tx(FRIEND, 5, fee=51 * GWEI))
    assert (refused.value.status, refused.value.code, refused.value.details["rule"]) == (
        403,
        "POLICY_DENIED",
        "replacement",
    )


def test_without_a_network_ceiling_ten_times_the_first_fee_cap(wallet):
    wallet_id = wallet.user.walletId
    assert cosigner_decides(wallet_id, tx(FRIEND, 5, fee=GWEI)) is None
    assert cosigner_decides(wallet_id, tx(FRIEND, 5, fee=10 * GWEI)) is None
    # Still bounded by the FIRST signature's fee cap, not by the last replacement's.
    assert cosigner_decides(wallet_id, tx(FRIEND, 5, fee=10 * GWEI + 1)) == "replacement"
    assert cosigner_decides(wallet_id, tx(FRIEND, 5, fee=11 * GWEI)) == "replacement"
    # A legacy first signature: its gasPrice is the fee cap.
    assert cosigner_decides(wallet_id, tx(FRIEND, 6, nonce=1, fee=3 * GWEI, legacy=True)) is None
    assert cosigner_decides(wallet_id, tx(FRIEND, 6, nonce=1, fee=30 * GWEI, tip=30 * GWEI)) is None
    assert cosigner_decides(wallet_id, tx(FRIEND, 6, nonce=1, fee=30 * GWEI + 1, legacy=True)) == "replacement"
    assert window(wallet_id) == ({"native": 11}, 2)
    # The same digest again (a retry of the first signature) is no replacement: counted once, as before.
    assert cosigner_decides(wallet_id, tx(FRIEND, 5, fee=GWEI)) is None
    assert counted(wallet_id) == 2


# --- no-ops: cancels and gap fills -------------------------------------------------------------------------------


def test_a_gap_fill_and_a_cancel_are_allowed_under_default_deny_and_not_counted(tenant, policy_key, wallet):
    wallet_id = wallet.user.walletId
    me = wallet.user.walletAddress
    set_policy(tenant.appId, policy_key, DEFAULT_DENY)
    assert cosigner_decides(wallet_id, tx(FRIEND, 10, nonce=0)) is None
    assert cosigner_decides(wallet_id, tx(FRIEND, 20, nonce=3, fee=2 * GWEI)) is None  # nonces 1 and 2 given back
    assert window(wallet_id) == ({"native": 30}, 2)

    assert cosigner_decides(wallet_id, tx(me, nonce=1)) is None  # gap fills
    assert cosigner_decides(wallet_id, tx(me.lower(), nonce=2, fee=20 * GWEI)) is None  # 10x the highest mark's fee cap
    assert cosigner_decides(wallet_id, tx(me, nonce=1, fee=10 * GWEI)) is None  # a gap fill re-priced: its replacement
    assert cosigner_decides(wallet_id, tx(me, nonce=1, fee=10 * GWEI + 1)) == "replacement"
    assert cosigner_decides(wallet_id, tx(me, nonce=3, fee=3 * GWEI)) is None  # the cancel of the payment at nonce 3
    assert window(wallet_id) == ({"native": 30}, 2)
    assert counted(wallet_id) == 2
    marks = {(str(m["sk"])[:20], m["n"]) for m in nonce_marks(wallet_id)}
    assert marks == {(f"{0:020d}", 1), (f"{1:020d}", 0), (f"{2:020d}", 0), (f"{3:020d}", 1), (f"{3:020d}", 0)}

    # Through the service, on the full path.
    payload = tx(me, nonce=2, fee=21 * GWEI)
    assert recovered_address(provisioning.sign(wallet, payload), digests.digest_of(payload)) == me


def test_a_self_send_that_is_no_no_op_is_judged_by_the_documents(tenant, policy_key, wallet):
    wallet_id = wallet.user.walletId
    me = wallet.user.walletAddress
    set_policy(tenant.appId, policy_key, DEFAULT_DENY)
    assert cosigner_decides(wallet_id, tx(me)) == ALLOW_LIST  # no marks yet
    assert cosigner_decides(wallet_id, tx(FRIEND, 10, nonce=0)) is None
    assert cosigner_decides(wallet_id, tx(FRIEND, 10, nonce=1)) is None
    assert cosigner_decides(wallet_id, tx(me, nonce=2)) == ALLOW_LIST  # above every mark
    assert cosigner_decides(wallet_id, tx(me, nonce=1, fee=10 * GWEI + 1)) == ALLOW_LIST  # fees above the ceiling
    assert cosigner_decides(wallet_id, tx(me, nonce=1, fee=2 * GWEI, tip=2 * GWEI + 1)) == ALLOW_LIST
    assert cosigner_decides(wallet_id, tx(me, 1, nonce=1)) == ALLOW_LIST  # a value
    assert cosigner_decides(wallet_id, tx(me, 0, b"\x00", nonce=1)) == ALLOW_LIST  # call data
    assert cosigner_decides(wallet_id, tx(STRANGER, nonce=1)) == ALLOW_LIST  # another address
    assert cosigner_decides(wallet_id, tx(None, nonce=1)) == "default"  # a creation (of 0: no rule allows it)
    assert window(wallet_id) == ({"native": 20}, 2)
    assert len(nonce_marks(wallet_id)) == 2
    # A far nonce opens no unbounded range of uncounted no-ops: at most NO_OP_WINDOW below the highest mark.
    set_policy(tenant.appId, policy_key, {"version": 2, "default": "allow"})
    assert cosigner_decides(wallet_id, tx(FRIEND, 1, nonce=1000)) is None
    set_policy(tenant.appId, policy_key, {**DEFAULT_DENY, "version": 3})
    assert cosigner_decides(wallet_id, tx(me, nonce=1000 - cosigner_check.NO_OP_WINDOW)) is None
    assert cosigner_decides(wallet_id, tx(me, nonce=1000 - cosigner_check.NO_OP_WINDOW - 1)) == ALLOW_LIST

    # Under a policy that allows it, a self-send above every mark is an ordinary transaction: counted.
    set_policy(tenant.appId, policy_key, {"version": 4, "transactions": {"maxCountPer24h": 4}})
    assert cosigner_decides(wallet_id, tx(me, nonce=1005)) is None
    assert window(wallet_id) == ({"native": 21}, 4)
    assert cosigner_decides(wallet_id, tx(FRIEND, 1, nonce=1006)) == "transactions.maxCountPer24h"
    # Re-pricing it is a replacement, which a self-send of nothing is allowed without counting again.
    assert cosigner_decides(wallet_id, tx(me, nonce=1005, fee=2 * GWEI)) is None
    assert window(wallet_id) == ({"native": 21}, 4)


# --- races and reads -----------------------------------------------------------------------------------------


def test_concurrent_first_signatures_of_one_payment_at_one_nonce_count_once(tenant, policy_key, wallet):
    wallet_id = wallet.user.walletId
    set_policy(tenant.appId, policy_key, {"version": 1, "transactions": {"maxCountPer24h": 1}})
    payloads = [tx(FRIEND, 3, fee=(n + 1) * GWEI) for n in range(6)]
    results: dict[int, str | None] = {}
    start = threading.Barrier(len(payloads))

    def sign(n: int) -> None:
        start.wait()
        results[n] = cosigner_decides(wallet_id, payloads[n])

    threads = [threading.Thread(target=sign, args=(n,)) for n in range(len(payloads))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert results == {n: None for n in range(len(payloads))}
    assert window(wallet_id) == ({"native": 3}, 1)
    assert counted(wallet_id) == 1
    [mark] = nonce_marks(wallet_id)
    assert int(mark["feeCap"]) in {(n + 1) * GWEI for n in range(len(payloads))}


def test_the_nonce_mark(wallet):
    wallet_id = wallet.user.walletId
    payload = tx(FRIEND, 12345, b"\xab\xcd", nonce=7, fee=4 * GWEI)
    assert cosigner_decides(wallet_id, payload) is None
    [mark] = nonce_marks(wallet_id)
    payment = keccak(bytes.fromhex(FRIEND[2:]) + (12345).to_bytes(32, "big") + b"\xab\xcd").hex()
    assert mark["sk"] == f"{7:020d}#{payment}"
    assert (mark["feeCap"], mark["n"], mark["spent"]) == (str(4 * GWEI), 1, {"native": "12345"})
    assert int(mark["expiresAt"]) == clock.epoch() + 30 * 86_400
    assert mark["createdAt"]
    # A creation's payment has no recipient; a nonce no chain takes is refused (no rule: no decision of a document).
    assert cosigner_decides(wallet_id, tx(None, 0, b"\x60\x00", nonce=8)) is None
    creation = keccak((0).to_bytes(32, "big") + b"\x60\x00").hex()
    assert any(m["sk"] == f"{8:020d}#{creation}" for m in nonce_marks(wallet_id))
    with running_as("cosigner"), pytest.raises(cosigner_checks.PolicyRefusedError) as refused:
        huge = tx(FRIEND, 1, nonce=2**64)
        cosigner_checks.authorize(wallet_id, huge, digests.digest_of(huge), None)
    assert refused.value.rule is None


def test_the_online_step_reads_the_nonce_mark_in_its_one_batch(tenant, policy_key, stocked, monkeypatch):
    wallet_id = stocked.user.walletId
    me = stocked.user.walletAddress
    set_policy(tenant.appId, policy_key, DEFAULT_DENY)
    provisioning.sign(stocked, tx(FRIEND, 1, nonce=0))  # warm: the wallet's client is known from here on
    # A replacement in the online step: the window, the digest's mark and the nonce mark came in one batch.
    with cosigner_policy_reads() as reads, monkeypatch.context() as patched:
        no_full_signing(patched)
        payload = tx(FRIEND, 1, nonce=0, fee=2 * GWEI)
        assert recovered_address(provisioning.sign(stocked, payload), digests.digest_of(payload)) == me
    assert reads == ["BatchGetItem"]
    assert window(wallet_id) == ({"native": 1}, 1)
    # A no-op candidate also asks for the highest mark (here in full: the pool is empty); the cancel of nonce 0.
    with cosigner_policy_reads() as reads:
        payload = tx(me, nonce=0, fee=3 * GWEI)
        assert recovered_address(provisioning.sign(stocked, payload), digests.digest_of(payload)) == me
    assert "Query" in reads
    assert window(wallet_id) == ({"native": 1}, 1)
    assert presignatures.ready_ids(shares.COSIGNER, wallet_id) == []
