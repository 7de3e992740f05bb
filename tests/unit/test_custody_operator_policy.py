"""The app's custody document (custody/withdrawals/operator_policy.py): the signing-policy engine's rules that
the operator's withdrawal limits (a setting) and allowlist (table `custody-policy`) produce, the payment facts a
withdrawal is judged on, and the engine's decisions on them (against moto; no chain)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from eth_account import Account

from chalicelib.custody.tokens import accepted
from chalicelib.custody.withdrawals import operator_policy
from chalicelib.evm import abi
from chalicelib.evm.transactions import UnsignedTx
from chalicelib.platform import networks, settings
from chalicelib.policies.document import PolicyDocument
from chalicelib.policies.engine import Decision
from chalicelib.policies.facts import transaction_facts
from tests.support.networks import aa_network

TOKEN = "0x" + "ab" * 20  # lower case: how a document names the asset
TOKEN_CHECKSUMMED = "0xaBaBaBaBaBaBaBaBaBaBaBaBaBaBaBaBaBaBaBaB"
ORG = "org-1"
APP = "app-1"


@pytest.fixture
def network(aws_env: None, use_networks: Any) -> networks.Network:
    use_networks(
        [
            aa_network(
                "local-a",
                31337,
                custodyTokens=[
                    {"tokenCode": "usdt", "symbol": "USDT", "decimals": 6, "tokenAddress": TOKEN_CHECKSUMMED},
                    {"tokenCode": "eth", "symbol": "ETH", "decimals": 18},
                ],
            )
        ]
    )
    found = networks.registry().by_name("local-a")
    assert found is not None
    return found


def set_limits(monkeypatch: pytest.MonkeyPatch, value: dict[str, Any]) -> None:
    monkeypatch.setenv("DOMPET_WITHDRAWAL_LIMITS", json.dumps(value))
    settings.load_settings.cache_clear()


def test_no_limits_and_no_allowlist_is_a_document_without_rules(network: networks.Network) -> None:
    document = operator_policy.document(APP, ORG, network)
    assert document == PolicyDocument.parse({"version": 1})
    decision = operator_policy.judge(
        document, operator_policy.payment(accepted("local-a", "usdt"), "0x" + "11" * 20, 10**30), 10**40
    )
    assert decision.allowed and decision.rule == "default"


def test_the_settings_and_the_allowlist_become_the_engines_rules(
    network: networks.Network, monkeypatch: pytest.MonkeyPatch
) -> None:
    # `perDay` more precise than the token's 6 decimals is rounded down, exactly as before.
    set_limits(monkeypatch, {"usdt": {"perWithdrawal": "1.5", "perDay": "2.0000009"}, "eth": {"perDay": "0.5"}})
    listed = [Account.create().address, Account.create().address]
    operator_policy.set_allowlist(APP, ORG, True, listed)
    document = operator_policy.document(APP, ORG, network)
    assert document.model_dump(exclude_none=True) == {
        "version": 1,
        "default": "allow",
        "transactions": {
            "maxValue": {TOKEN: "1500000"},
            "maxValuePer24h": {TOKEN: "2000000", "native": str(5 * 10**17)},
            "destinations": {"allow": sorted(a.lower() for a in listed)},
            "raw": True,
        },
    }
    assert operator_policy.document("another-app", "another-org", network).transactions.destinations is None  # type: ignore[union-attr]
    # An app of the same organization the operator set nothing for (one made in the console) may send nowhere.
    inherited = operator_policy.document("new-app", ORG, network).transactions.destinations  # type: ignore[union-attr]
    assert inherited is not None and inherited.allow == []
    assert operator_policy.allowlist("new-app", ORG)["inherited"] is True
    operator_policy.set_allowlist("new-app", ORG, False, [])  # the operator's `--off` for it: any destination
    assert operator_policy.document("new-app", ORG, network).transactions.destinations is None  # type: ignore[union-attr]
    operator_policy.set_allowlist(APP, ORG, False, listed)  # `--off`: any destination
    assert operator_policy.document(APP, ORG, network).transactions.destinations is None  # type: ignore[union-attr]
    assert operator_policy.allowlist("third-app", ORG) == {
        "enabled": False,
        "addresses": [],
        "updatedAt": None,
        "inherited": False,
    }


def test_the_engine_judges_a_withdrawal_by_its_payment(
    network: networks.Network, monkeypatch: pytest.MonkeyPatch
) -> None:
    set_limits(monkeypatch, {"usdt": {"perWithdrawal": "1.5", "perDay": "2"}, "eth": {"perWithdrawal": "1"}})
    allowed, other = Account.create().address, Account.create().address
    usdt, eth = accepted("local-a", "usdt"), accepted("local-a", "eth")
    operator_policy.set_allowlist(APP, ORG, True, [allowed])
    document = operator_policy.document(APP, ORG, network)

    def refused_by(pair: Any, to: str, amount: int, spent: int = 0) -> str | None:
        decision = operator_policy.judge(document, operator_policy.payment(pair, to, amount), spent)
        return None if decision.allowed else decision.rule

    assert refused_by(usdt, allowed, 1_500_000) is None
    assert refused_by(usdt, allowed, 1_500_001) == f"transactions.maxValue.{TOKEN}"
    assert refused_by(usdt, allowed, 1_000_000, spent=1_000_000) is None
    assert refused_by(usdt, allowed, 1_000_000, spent=1_000_001) == f"transactions.maxValuePer24h.{TOKEN}"
    assert refused_by(usdt, other, 1) == "transactions.destinations.allow"
    assert refused_by(usdt, allowed.lower(), 1) is None  # compared without case
    assert refused_by(eth, allowed, 10**18) is None
    assert refused_by(eth, allowed, 10**18 + 1) == "transactions.maxValue.native"
    assert refused_by(eth, allowed, 10**18, spent=10**30) is None  # no daily limit of eth
    # The destination is judged first (the engine's order), then the per-withdrawal limit, then the day's.
    assert refused_by(usdt, other, 5_000_000, spent=5_000_000) == "transactions.destinations.allow"
    assert refused_by(usdt, allowed, 5_000_000, spent=5_000_000) == f"transactions.maxValue.{TOKEN}"
    rules = {
        f"transactions.maxValue.{TOKEN}": operator_policy.PER_WITHDRAWAL,
        "transactions.maxValuePer24h.native": operator_policy.PER_DAY,
        "transactions.destinations.allow": operator_policy.ALLOWLIST,
    }
    for rule, kind in rules.items():
        assert operator_policy.rule_of(Decision(False, rule, "refused")) == kind


def test_an_empty_allowlist_refuses_every_withdrawal(network: networks.Network) -> None:
    operator_policy.set_allowlist(APP, ORG, True, [])
    document = operator_policy.document(APP, ORG, network)
    decision = operator_policy.judge(
        document, operator_policy.payment(accepted("local-a", "eth"), Account.create().address, 1), 0
    )
    assert not decision.allowed and decision.rule == "transactions.destinations.allow"


def test_a_payment_is_what_the_engine_reads_of_the_same_call(network: networks.Network) -> None:
    """The facts of a withdrawal's payment are the engine's own reading of a direct coin send or token transfer."""
    to = Account.create().address
    usdt, eth = accepted("local-a", "usdt"), accepted("local-a", "eth")
    token_call = UnsignedTx(31337, 0, TOKEN_CHECKSUMMED, 0, abi.transfer(to, 2_500_000), 0)
    assert operator_policy.payment(usdt, to, 2_500_000) == transaction_facts(token_call)
    assert operator_policy.payment(eth, to, 3 * 10**17) == transaction_facts(
        UnsignedTx(31337, 0, to, 3 * 10**17, b"", 0)
    )
