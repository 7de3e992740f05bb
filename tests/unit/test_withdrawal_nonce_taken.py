"""A withdrawal whose broadcast a node refused: the wordings that say another transaction has its nonce (pipeline's
one reading of them), and the worker's settle of the refused transaction against moto and a fake chain reader:
refused for its nonce, or with the key's mined nonce past the withdrawal's, it is kept for review (`needs_review`,
`released: false`, nothing released, its nonce not given back); otherwise released as `refused`."""

from __future__ import annotations

from typing import Any

import pytest

from chalicelib.custody import ledger
from chalicelib.custody.store import TABLE
from chalicelib.custody.tokens import TokenOnNetwork
from chalicelib.custody.withdrawals import lifecycle as withdrawals
from chalicelib.custody.withdrawals import sending
from chalicelib.custody.withdrawals.records import Withdrawal
from chalicelib.evm import nonces, pipeline, tracking
from chalicelib.platform import aws
from chalicelib.platform.pagination import PageQuery
from tests.support.networks import aa_network

TOKEN = "0x" + "12" * 20
KEY_ADDRESS = "0x" + "a" * 40
CHAIN = 31337
NONCE = 4
AMOUNT = 1_250_000
TX_HASH = "0x" + "ab" * 32
HOLDER = "withdrawal:w-1"

NONCE_REFUSALS = [
    "nonce too low: next nonce 5, tx nonce 4",  # geth, erigon, anvil
    "replacement transaction underpriced",  # geth, anvil: another transaction waits in the pool at the nonce
    "NONCE_TOO_LOW",  # besu
    "REPLACEMENT_UNDERPRICED",  # besu
    "OldNonce, Current nonce: 5, nonce of rejected tx: 4",  # nethermind
    "ReplacementNotAllowed",  # nethermind
]
OTHER_REFUSALS = [
    "intrinsic gas too low",
    "insufficient funds for gas * price + value",
    "exceeds block gas limit",
    "reverted on chain",  # the tracker's reason for a mined, reverted transaction
    None,
]


@pytest.mark.parametrize("reason", NONCE_REFUSALS)
def test_the_refusals_that_say_another_transaction_has_the_nonce(reason: str) -> None:
    assert pipeline.refused_for_nonce(reason)


@pytest.mark.parametrize("reason", [*OTHER_REFUSALS[:3], "already known", "transaction already imported"])
def test_other_refusals_and_a_known_transaction_are_not_read_as_a_taken_nonce(reason: str) -> None:
    """A node's "already known" means it has this very transaction: the pipeline takes it as a success (it is
    tracked), never as a refusal."""
    assert not pipeline.refused_for_nonce(reason)
    assert bool(pipeline.ALREADY_KNOWN.search(reason)) == ("already" in reason)


class Chain:
    """The reads settle makes of a refused transaction: the key's mined nonce."""

    def __init__(self, mined_nonce: int) -> None:
        self.mined_nonce = mined_nonce

    def head(self) -> int:
        raise AssertionError("a refused transaction has no receipt to confirm")

    def receipt(self, tx_hash: str) -> dict[str, Any] | None:
        raise AssertionError("a refused transaction has no receipt to confirm")

    def block_hash(self, number: int) -> str | None:
        raise AssertionError("a refused transaction has no receipt to confirm")

    def transaction_count(self, address: str, block: str) -> int:
        assert address == KEY_ADDRESS and block == "latest"
        return self.mined_nonce

    def holding(self, pair: TokenOnNetwork, address: str) -> int:
        raise AssertionError("not read when settling")

    def code(self, address: str) -> str:
        raise AssertionError("not read when settling")


@pytest.fixture
def sent(aws_env: None, use_networks: Any) -> Withdrawal:
    """A withdrawal `sent` at its reserved nonce, its amount held, and its transaction refused at broadcast."""
    use_networks(
        [
            aa_network(
                "local-a",
                CHAIN,
                confirmations=3,
                custodyTokens=[{"tokenCode": "usdt", "symbol": "USDT", "decimals": 6, "tokenAddress": TOKEN}],
            )
        ]
    )
    item = {
        **withdrawals.key("w-1"),
        "id": "w-1",
        "appId": "app",
        "accountId": "acct",
        "userId": "alice",
        "keyId": "key",
        "keyAddress": KEY_ADDRESS,
        "walletId": "wallet",
        "fromAddress": "0x" + "d" * 40,
        "network": "local-a",
        "chainId": CHAIN,
        "tokenCode": "usdt",
        "tokenAddress": TOKEN,
        "to": "0x" + "e" * 40,
        "amountInDecimals": str(AMOUNT),
        "status": "sent",
        "attempts": 1,
        "nonce": NONCE,
        "reservation": HOLDER,
        "txHash": TX_HASH,
        "createdAt": "2024-01-01T00:00:00.000Z",
        "updatedAt": "2024-01-01T00:00:00.000Z",
    }
    record = Withdrawal(**item)
    index = record.status_index()
    aws.table(TABLE).put_item(Item={**record.to_item(), **index.set})
    aws.table(TABLE).put_item(
        Item={
            **ledger.balance_key("acct", "local-a#usdt"),
            "accountId": "acct",
            "active": "0",
            "pending": "0",
            "held": str(AMOUNT),
            "version": 1,
        }
    )
    aws.table(nonces.TABLE).put_item(
        Item={**nonces.key(KEY_ADDRESS, CHAIN), "next": NONCE + 1, f"{nonces.HELD}{NONCE}": HOLDER}
    )
    return record


def refused_with(reason: str | None) -> None:
    item = {
        "pk": f"TX#{TX_HASH}",
        "sk": "TX",
        "hash": TX_HASH,
        "walletId": "custody:key",
        "network": "local-a",
        "chainId": CHAIN,
        "kind": "withdrawal",
        "from": KEY_ADDRESS,
        "nonce": NONCE,
        "value": "0",
        "status": "failed",
        "receipt": "{}",
        "raw": "0x",
        "createdAt": "2024-01-01T00:00:00.000Z",
        "updatedAt": "2024-01-01T00:00:00.000Z",
        "version": 2,
        **({"failedReason": reason} if reason is not None else {}),
    }
    aws.table(tracking.TABLE).put_item(Item=item)


def outcome(record: Withdrawal, chain: Chain) -> tuple[dict[str, Any], dict[str, Any], list[str]]:
    """The withdrawal, its balance and its journal's kinds after settle; the nonce item's state checked by callers."""
    sending.settle(record, chain)
    stored = aws.table(TABLE).get_item(Key=withdrawals.key("w-1"), ConsistentRead=True)["Item"]
    balance = aws.table(TABLE).get_item(Key=ledger.balance_key("acct", "local-a#usdt"), ConsistentRead=True)["Item"]
    kinds = [str(e["kind"]) for e in ledger.journal("acct").page(PageQuery(page=1, limit=10))[0]]
    return stored, balance, kinds


def nonce_item() -> dict[str, Any]:
    item: dict[str, Any] = aws.table(nonces.TABLE).get_item(Key=nonces.key(KEY_ADDRESS, CHAIN), ConsistentRead=True)[
        "Item"
    ]
    return item


def assert_kept(stored: dict[str, Any], balance: dict[str, Any], kinds: list[str]) -> None:
    assert stored["status"] == "failed" and stored["failedReason"] == "needs_review" and stored["released"] is False
    assert "reservation" not in stored
    assert (balance["active"], balance["held"]) == ("0", str(AMOUNT)), "still held"
    assert kinds == [], "no release entry"
    item = nonce_item()
    assert NONCE not in nonces.held(item), "the reservation ended with the withdrawal"
    assert NONCE not in {int(n) for n in item.get("given", set())}, "its nonce not given back"


@pytest.mark.parametrize("reason", NONCE_REFUSALS)
def test_a_broadcast_refused_for_its_nonce_is_kept_for_review(sent: Withdrawal, reason: str) -> None:
    refused_with(reason)
    assert_kept(*outcome(sent, Chain(mined_nonce=NONCE)))  # the other transaction may still wait in a pool


@pytest.mark.parametrize("reason", OTHER_REFUSALS[:3])
def test_any_refusal_with_the_keys_mined_nonce_past_the_withdrawals_is_kept(sent: Withdrawal, reason: str) -> None:
    refused_with(reason)
    assert_kept(*outcome(sent, Chain(mined_nonce=NONCE + 1)))


@pytest.mark.parametrize("reason", OTHER_REFUSALS[:3])
def test_another_refusal_with_the_nonce_unused_is_released_and_gives_the_nonce_back(
    sent: Withdrawal, reason: str
) -> None:
    refused_with(reason)
    stored, balance, kinds = outcome(sent, Chain(mined_nonce=NONCE))
    assert stored["status"] == "failed" and stored["failedReason"] == "refused" and stored["released"] is True
    assert (balance["active"], balance["held"]) == (str(AMOUNT), "0")
    assert kinds == ["release"]
    item = nonce_item()
    assert NONCE not in nonces.held(item) and NONCE in {int(n) for n in item["given"]}, "handed on"
