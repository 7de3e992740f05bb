"""Speed-up and cancel through the API (POST /api/v1/wallet/transactions/{hash}/speed-up and /cancel), without a
chain: AWS is moto in process, the MPC wallet is real (its parties run in process), the records are written as the
tracker leaves them, and the node is a stand-in where a replacement reaches it.

What is checked: which records a wallet may replace (its own, by any of their hashes; 404 otherwise, malformed
hashes included), the fees a request may offer (400 INVALID_FEES naming the field), the engine's refusals as the
route answers them (409 TRANSACTION_FINAL, 409 REPLACEMENT_UNDERPRICED, 422 FEE_ABOVE_CEILING), the answer of a
replacement (its receipt, signed by the wallet at the same nonce, recorded on the record), and the
Idempotency-Key (a replay is the first answer, and the key names the record as its effect).
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from eth_account import Account
from eth_keys import keys as eth_keys

from chalicelib.auth import users
from chalicelib.evm import engine, rpc, tracking
from chalicelib.evm.transactions import SignedTx, UnsignedTx, assemble, receipt, signing_hash
from chalicelib.platform import aws, idempotency
from chalicelib.wallets.models import TransactionView
from tests.unit.test_path_ids import BAD_IDS

CHAIN = 31337
GWEI = 10**9
KEY = "0x" + "44" * 32  # signs the records' first transactions (their hashes are ids here, nothing more)
KEY_ADDRESS = Account.from_key(KEY).address
RECIPIENT = "0xAb8483F64d9C6d1EcF9b849Ae677dD3315835cb2"
NETWORK = {"name": "local-a", "chainId": CHAIN, "rpcUrls": ["http://127.0.0.1:9"], "nativeSymbol": "ETH"}
TRANSACTIONS = "/api/v1/wallet/transactions"


class Wallet:
    def __init__(self, api: Any, tenant: Any, data: dict[str, Any], access_token: str, wallet_id: str) -> None:
        self.api, self.tenant = api, tenant
        self.token, self.secret0, self.address = data["walletToken"], data["secret0"], data["address"]
        self.access_token, self.wallet_id = access_token, wallet_id

    def headers(self, token: str | None = None, **extra: str) -> dict[str, str]:
        return {
            "Content-Type": "application/json",
            "Authorization": f"Bearer {token or self.token}",
            "x-client-secret": self.tenant.clientSecret,
            **extra,
        }

    def post(self, path: str, body: Any = None, token: str | None = None, **headers: str) -> Any:
        return self.api.post(
            path, body="" if body is None else json.dumps(body), headers=self.headers(token, **headers)
        )

    def get(self, path: str) -> Any:
        return self.api.get(path, headers=self.headers())


@pytest.fixture
def wallet(api, tenant, aux_sets, use_networks) -> Wallet:
    """A wallet created through the API, on a registry with one network whose node is unreachable."""
    use_networks([NETWORK])
    aux_sets(1)
    client = {"Content-Type": "application/json", "x-client-secret": tenant.clientSecret}
    login = api.post("/api/v1/auth/login", body=json.dumps({"subId": "alice"}), headers=client)
    access = login.json_body["data"]["accessToken"]
    created = api.post("/api/v1/account/create", body="{}", headers={**client, "Authorization": f"Bearer {access}"})
    assert created.status_code == 200, created.json_body
    user = users.get(tenant.clientId, "alice")
    assert user is not None and user.walletId
    return Wallet(api, tenant, created.json_body["data"], access, user.walletId)


def _signed(nonce: int, eip1559: bool) -> SignedTx:
    fees: dict[str, int] = {"max_fee": 20 * GWEI, "max_priority_fee": 2 * GWEI} if eip1559 else {"gas_price": 10 * GWEI}
    tx = UnsignedTx(chain_id=CHAIN, nonce=nonce, to=RECIPIENT, value=10**15, data=b"", gas=21_000, **fees)
    signature = eth_keys.PrivateKey(bytes.fromhex(KEY[2:])).sign_msg_hash(signing_hash(tx))
    raw = signature.r.to_bytes(32, "big") + signature.s.to_bytes(32, "big") + bytes([signature.v])
    return assemble(tx, KEY_ADDRESS, raw)


def _record(
    owner: Wallet | str,
    status: str,
    *,
    nonce: int = 3,
    eip1559: bool = False,
    attempts: list[dict[str, Any]] | None = None,
    **extra: Any,
) -> str:
    """A record of `owner` (a wallet, or another wallet's id) as the tracker left it in `status`; its hash."""
    signed = _signed(nonce, eip1559)
    sent = {**receipt(signed), "from": owner.address if isinstance(owner, Wallet) else KEY_ADDRESS}
    item = {
        "pk": f"TX#{signed.hash.lower()}",
        "sk": "TX",
        "hash": signed.hash,
        "walletId": owner.wallet_id if isinstance(owner, Wallet) else owner,
        "network": NETWORK["name"],
        "chainId": CHAIN,
        "kind": "coin",
        "from": sent["from"],
        "to": RECIPIENT,
        "value": str(10**15),
        "nonce": nonce,
        "status": status,
        "receipt": json.dumps(sent, separators=(",", ":")),
        "raw": "0x" + signed.raw.hex(),
        "chosenNonce": False,
        "createdAt": "2026-11-22T08:00:00.000Z",
        "updatedAt": "2026-11-22T08:00:02.000Z",
        "checks": 1,
        "version": 1,
        **({"attempts": attempts} if attempts else {}),
        **extra,
    }
    item = {k: v for k, v in item.items() if v is not None}  # None: the attribute is absent
    aws.write(aws.put("record", tracking.TABLE, item, None))
    for attempt in attempts or []:  # each replacement's hash leads to the record
        alias = {"pk": f"TX#{attempt['hash'].lower()}", "sk": "TX", "aliasOf": signed.hash}
        aws.write(aws.put("alias", tracking.TABLE, {**alias, "walletId": item["walletId"], "createdAt": "x"}, None))
    return signed.hash


def _answer(response: Any) -> tuple[int, str]:
    body = response.json_body
    assert body["status"] == response.status_code, body
    return response.status_code, body["data"]["code"]


def _fields(response: Any) -> list[str]:
    return [e["field"] for e in response.json_body["data"]["errors"]]


@pytest.fixture
def node(monkeypatch) -> dict[str, list[Any]]:
    """The network's node: it takes every broadcast and answers the market (base fee 10 gwei, tip 1 gwei)."""
    seen: dict[str, list[Any]] = {"sent": []}

    def rpc_call(network: Any, method: str, params: list[Any]) -> Any:
        assert method == "eth_sendRawTransaction", method
        seen["sent"].append(params[0])
        return None

    def rpc_batch(network: Any, calls: list[tuple[str, list[Any]]]) -> list[Any]:
        answers = {
            "eth_getBlockByNumber": {"baseFeePerGas": hex(10 * GWEI), "number": "0x10"},
            "eth_maxPriorityFeePerGas": hex(GWEI),
            "eth_gasPrice": hex(11 * GWEI),
            "eth_getBalance": hex(10**20),
        }
        return [answers[method] for method, _ in calls]

    monkeypatch.setattr(engine, "rpc_call", rpc_call)
    monkeypatch.setattr(rpc, "rpc_batch", rpc_batch)
    return seen


# --- whose records -------------------------------------------------------------------------------------------


@pytest.mark.parametrize("action", ["speed-up", "cancel"])
def test_another_wallets_transaction_an_unknown_hash_and_a_malformed_one_are_404(wallet, action):
    theirs = _record("someone-else", "pending")
    for tx_hash in [theirs, "0x" + "ab" * 32, *BAD_IDS]:
        answer = wallet.post(f"{TRANSACTIONS}/{tx_hash}/{action}", {})
        assert _answer(answer) == (404, "TRANSACTION_NOT_FOUND"), tx_hash[:80]
    assert _answer(wallet.get(f"{TRANSACTIONS}/{theirs}")) == (404, "TRANSACTION_NOT_FOUND")
    after = tracking.read(theirs)
    assert after is not None and after.attempts == [] and after.version == 1  # nothing moved


@pytest.mark.parametrize("action", ["speed-up", "cancel"])
def test_an_access_token_is_403(wallet, action):
    mine = _record(wallet, "pending")
    answer = wallet.post(f"{TRANSACTIONS}/{mine}/{action}", {}, token=wallet.access_token)
    assert _answer(answer) == (403, "WALLET_TOKEN_REQUIRED")


def test_a_record_answers_by_any_of_its_hashes_with_its_replacements(wallet):
    replacement = "0x" + "cd" * 32
    attempts = [
        {"hash": replacement, "reason": "speed_up", "gasPrice": str(12 * GWEI), "createdAt": "2026-11-22T08:00:40.000Z"}
    ]
    first = _record(
        wallet, "mined", attempts=attempts, minedHash=replacement, blockNumber=16, blockHash="0x" + "ef" * 32
    )
    by_first, by_replacement = wallet.get(f"{TRANSACTIONS}/{first}"), wallet.get(f"{TRANSACTIONS}/{replacement}")
    assert by_first.status_code == by_replacement.status_code == 200, by_replacement.json_body
    view = by_replacement.json_body["data"]
    assert view == by_first.json_body["data"]
    assert view["hash"] == first and view["minedHash"] == replacement and view["status"] == "mined"
    assert view["replacements"] == [
        {"hash": replacement, "gasPrice": str(12 * GWEI), "reason": "speed_up", "createdAt": "2026-11-22T08:00:40.000Z"}
    ]
    TransactionView.model_validate(view)


# --- the fees a request may offer ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("body", "fields"),
    [
        ({"gasPrice": "12000000000", "maxFeePerGas": "30000000000"}, ["gasPrice", "maxFeePerGas"]),
        (
            {"gasPrice": "1", "maxFeePerGas": "3", "maxPriorityFeePerGas": "2"},
            ["gasPrice", "maxFeePerGas", "maxPriorityFeePerGas"],
        ),
        ({"maxFeePerGas": "30000000000"}, ["maxPriorityFeePerGas"]),
        ({"maxPriorityFeePerGas": "3000000000"}, ["maxFeePerGas"]),
        ({"maxFeePerGas": "3000000000", "maxPriorityFeePerGas": "4000000000"}, ["maxPriorityFeePerGas"]),
        ({"gasPrice": "12.5"}, ["gasPrice"]),
        ({"gasPrice": "0x2cb417800"}, ["gasPrice"]),
        ({"gasPrice": "-1"}, ["gasPrice"]),
        ({"maxFeePerGas": str(2**256), "maxPriorityFeePerGas": "1"}, ["maxFeePerGas"]),
        ({"gasPrice": ""}, ["gasPrice"]),
    ],
)
def test_fees_of_both_kinds_half_a_pair_or_not_a_uint256_are_invalid_fees(wallet, body, fields):
    mine = _record(wallet, "pending", eip1559=True)
    answer = wallet.post(f"{TRANSACTIONS}/{mine}/speed-up", body)
    assert _answer(answer) == (400, "INVALID_FEES"), answer.json_body
    assert _fields(answer) == fields


def test_fees_of_the_other_kind_of_transaction_are_invalid_fees(wallet):
    legacy = _record(wallet, "pending", nonce=3)
    typed = _record(wallet, "pending", nonce=4, eip1559=True)
    answer = wallet.post(f"{TRANSACTIONS}/{legacy}/speed-up", {"maxFeePerGas": "90", "maxPriorityFeePerGas": "9"})
    assert _answer(answer) == (400, "INVALID_FEES") and _fields(answer) == ["maxFeePerGas", "maxPriorityFeePerGas"]
    answer = wallet.post(f"{TRANSACTIONS}/{typed}/speed-up", {"gasPrice": str(100 * GWEI)})
    assert _answer(answer) == (400, "INVALID_FEES") and _fields(answer) == ["gasPrice"]


def test_a_cancel_takes_no_fees(wallet):
    mine = _record(wallet, "pending")
    answer = wallet.post(f"{TRANSACTIONS}/{mine}/cancel", {"gasPrice": str(20 * GWEI)})
    assert _answer(answer) == (400, "VALIDATION_ERROR") and _fields(answer) == ["gasPrice"]


# --- the engine's refusals --------------------------------------------------------------------------------------


@pytest.mark.parametrize("status", ["mined", "failed", "dropped", "cancelled"])
@pytest.mark.parametrize(("action", "body"), [("speed-up", {}), ("speed-up", {"gasPrice": "99"}), ("cancel", None)])
def test_a_transaction_no_longer_pending_is_final(wallet, party_runs, status, action, body):
    mine = _record(wallet, status, minedHash=None)
    answer = wallet.post(f"{TRANSACTIONS}/{mine}/{action}", body, **{"Idempotency-Key": f"{action}-{status}"})
    assert _answer(answer) == (409, "TRANSACTION_FINAL"), answer.json_body
    assert status in answer.json_body["message"]
    assert party_runs == []  # refused before anything was signed
    # Refused before any effect: the key is free again, and the same request is answered afresh.
    again = wallet.post(f"{TRANSACTIONS}/{mine}/{action}", body, **{"Idempotency-Key": f"{action}-{status}"})
    assert _answer(again) == (409, "TRANSACTION_FINAL") and "Idempotent-Replayed" not in again.headers


def test_a_replacement_must_offer_ten_percent_more_and_stay_under_the_ceiling(wallet, use_networks, party_runs):
    legacy = _record(wallet, "pending", nonce=3)  # 10 gwei; no ceiling: 10 times that
    typed = _record(wallet, "pending", nonce=4, eip1559=True)  # 20 gwei and 2 gwei
    under = wallet.post(f"{TRANSACTIONS}/{legacy}/speed-up", {"gasPrice": str(10_900_000_000)})
    assert _answer(under) == (409, "REPLACEMENT_UNDERPRICED")
    half = wallet.post(
        f"{TRANSACTIONS}/{typed}/speed-up", {"maxFeePerGas": str(40 * GWEI), "maxPriorityFeePerGas": str(2 * GWEI)}
    )
    assert _answer(half) == (409, "REPLACEMENT_UNDERPRICED")  # both fees rise, or it is no replacement
    over = wallet.post(f"{TRANSACTIONS}/{legacy}/speed-up", {"gasPrice": str(100 * GWEI + 1)})
    assert _answer(over) == (422, "FEE_ABOVE_CEILING")

    use_networks([{**NETWORK, "maxFeePerGasCeiling": 30 * GWEI}])
    over = wallet.post(
        f"{TRANSACTIONS}/{typed}/speed-up", {"maxFeePerGas": str(31 * GWEI), "maxPriorityFeePerGas": str(3 * GWEI)}
    )
    assert _answer(over) == (422, "FEE_ABOVE_CEILING")
    assert party_runs == []


# --- replacements -----------------------------------------------------------------------------------------------


@pytest.fixture
def party_runs(monkeypatch) -> list[str]:
    """The party functions the requests reached (the calls go through)."""
    from chalicelib.mpc import remote

    calls: list[str] = []
    real = remote.call

    def spy(function: str, payload: dict[str, Any]) -> Any:
        calls.append(function)
        return real(function, payload)

    monkeypatch.setattr(remote, "call", spy)
    return calls


def test_a_speed_up_signs_the_same_transaction_at_its_nonce_with_the_fees_asked(wallet, node):
    first = _record(wallet, "pending", nonce=3)
    key = {"Idempotency-Key": "speed-up-1"}
    answer = wallet.post(f"{TRANSACTIONS}/{first}/speed-up", {"gasPrice": str(12 * GWEI)}, **key)
    assert answer.status_code == 200, answer.json_body
    assert answer.json_body["message"] == "transaction is processing"
    sent = answer.json_body["data"]["txReceipt"]
    assert sent["hash"] != first and sent["nonce"] == 3 and sent["from"] == wallet.address
    assert (sent["gasPrice"], sent["to"], sent["value"], sent["type"]) == (str(12 * GWEI), RECIPIENT, str(10**15), 0)
    [raw] = node["sent"]
    assert Account.recover_transaction(raw) == wallet.address  # the wallet's own key signed it

    record = tracking.read(sent["hash"])
    assert record is not None and record.hash == first and record.status == "pending"
    assert [(a.hash, a.reason, a.gasPrice) for a in record.attempts] == [(sent["hash"], "speed_up", str(12 * GWEI))]
    view = wallet.get(f"{TRANSACTIONS}/{sent['hash']}").json_body["data"]
    assert [r["hash"] for r in view["replacements"]] == [sent["hash"]] and view["hash"] == first

    # The key names the record as its effect, written with the replacement; a replay is the first answer.
    stored = aws.table(idempotency.TABLE).scan(ConsistentRead=True)["Items"]
    assert [item["effects"] for item in stored] == [{"txHash": first}]
    replay = wallet.post(f"{TRANSACTIONS}/{first}/speed-up", {"gasPrice": str(12 * GWEI)}, **key)
    assert replay.headers.get("Idempotent-Replayed") == "true" and replay.json_body == answer.json_body
    assert len(node["sent"]) == 1


def test_a_cancel_is_a_no_op_to_the_wallet_itself_at_the_next_bump(wallet, node):
    first = _record(wallet, "pending", nonce=5, eip1559=True)  # 20 gwei and 2 gwei; the chain asks 10 + 1
    answer = wallet.post(f"{TRANSACTIONS}/{first}/cancel")
    assert answer.status_code == 200, answer.json_body
    sent = answer.json_body["data"]["txReceipt"]
    assert (sent["nonce"], sent["to"], sent["value"], sent["data"], sent["gasLimit"]) == (
        5,
        wallet.address,
        "0",
        "0x",
        "21000",
    )
    assert int(sent["maxFeePerGas"]) >= 22 * GWEI and int(sent["maxPriorityFeePerGas"]) >= 2_200_000_000
    record = tracking.read(first)
    assert record is not None and record.cancelling and record.attempts[-1].reason == "cancel"

    # A speed-up of a cancelled-in-waiting record re-prices the cancel, not the payment.
    faster = wallet.post(
        f"{TRANSACTIONS}/{sent['hash']}/speed-up",
        {"maxFeePerGas": str(40 * GWEI), "maxPriorityFeePerGas": str(4 * GWEI)},
    )
    assert faster.status_code == 200, faster.json_body
    again = faster.json_body["data"]["txReceipt"]
    assert (again["to"], again["value"], again["nonce"]) == (wallet.address, "0", 5)
    record = tracking.read(first)
    assert record is not None and [a.reason for a in record.attempts] == ["cancel", "speed_up"]


def test_a_broadcast_no_node_confirmed_is_502_with_the_replacements_hash(wallet, node, monkeypatch):
    from chalicelib.platform.errors import UPSTREAM_UNAVAILABLE, UpstreamUnavailableError

    def silent(network: Any, method: str, params: list[Any]) -> Any:
        raise UpstreamUnavailableError(UPSTREAM_UNAVAILABLE, "no node answered")

    monkeypatch.setattr(engine, "rpc_call", silent)  # the market was read; then no node answers the broadcast
    first = _record(wallet, "pending", nonce=6)
    answer = wallet.post(f"{TRANSACTIONS}/{first}/speed-up", {"gasPrice": str(15 * GWEI)})
    assert _answer(answer) == (502, "UPSTREAM_UNAVAILABLE"), answer.json_body
    record = tracking.read(first)
    assert record is not None and [a.hash for a in record.attempts] == [answer.json_body["data"]["hash"]]


def test_without_a_node_nothing_is_signed(wallet, party_runs):
    first = _record(wallet, "pending", nonce=6)  # no node answers the market's reads: refused before signing
    answer = wallet.post(f"{TRANSACTIONS}/{first}/speed-up", {"gasPrice": str(15 * GWEI)})
    assert _answer(answer) == (502, "UPSTREAM_UNAVAILABLE"), answer.json_body
    assert party_runs == [] and tracking.read(first).attempts == []
