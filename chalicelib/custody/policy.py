"""The cosigner's policy for custody keys: it signs only a transaction that pays exactly what a withdrawal record
asks, as the cosigner itself reads the record, the account and the limits (never what the API function says).

The API function sends, with the digest, the transaction it is the signing hash of and what it is for
(`{"kind": "withdrawal" | "deploy", "id": <withdrawalId>, "tx": {...}}`). The cosigner then checks:

1. the digest is that transaction's signing hash (EIP-155 / EIP-1559) on the withdrawal's chain;
2. `deploy`: a call of the network's factory `createAccount(<custody key>, <account's salt>)`, value 0: it only
   puts the account's own deposit address on chain;
3. `withdrawal`: a call of the account's deposit address (a SimpleAccount the key owns), value 0, whose data is
   `execute(to, amount, "")` for the native coin or `execute(token, 0, transfer(to, amount))` for an ERC-20,
   with the record's `to`, `amount` and token; the record is `sending` and belongs to this key; the amount
   within the per-withdrawal limit, the app's total of the day within the daily limit, `to` on the app's
   allowlist when it has one;
4. one payment per withdrawal: the cosigner keeps, in its own table, the nonce it signed for each withdrawal and
   signs again only at that nonce (of two transactions with the same nonce at most one can be mined).

A compromised API function can therefore make the cosigner sign only payments the records ask for, once each.
"""

from __future__ import annotations

from typing import Any

from chalicelib.platform import aws

POLICY_TABLE = "cosigner-policy"


class PolicyRefusedError(Exception):
    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


_KNOWN_KEYS: dict[str, tuple[str, str]] = {}


def _custody_key(wallet_id: str) -> tuple[str, str] | None:
    """(scope, address) of a custody key; None for any other wallet. Custody keys are remembered (a key's kind never
    changes); other wallets are asked again every time (a key being made may not be marked yet)."""
    from chalicelib.custody.store import get

    if wallet_id in _KNOWN_KEYS:
        return _KNOWN_KEYS[wallet_id]
    item = get(f"KEYID#{wallet_id}", "KEY")
    if item is None:
        return None
    if len(_KNOWN_KEYS) > 4096:
        _KNOWN_KEYS.clear()
    _KNOWN_KEYS[wallet_id] = (str(item["scope"]), str(item["address"]))
    return _KNOWN_KEYS[wallet_id]


def is_custody_key(wallet_id: str) -> bool:
    return _custody_key(wallet_id) is not None


def check(wallet_id: str, digest: bytes, policy: dict[str, Any] | None) -> None:
    """Raise PolicyRefusedError unless signing `digest` with custody key `wallet_id` is allowed (a wallet that is
    not a custody key: nothing to check)."""
    key = _custody_key(wallet_id)
    if key is None:
        return
    if not isinstance(policy, dict):
        raise PolicyRefusedError("a custody key signs only with a policy")
    tx = _transaction(policy.get("tx"))
    from chalicelib.evm.transactions import signing_hash

    if signing_hash(tx) != digest:
        raise PolicyRefusedError("the digest is not the transaction's signing hash")
    from chalicelib.custody import withdrawals
    from chalicelib.custody.store import get

    record = get(**withdrawals.key(str(policy.get("id", ""))[:64]))
    if record is None or record.get("keyId") != wallet_id:
        raise PolicyRefusedError("no withdrawal of this key")
    if record["status"] != "sending":
        raise PolicyRefusedError(f"the withdrawal is {record['status']}")
    if tx.chain_id != int(record["chainId"]):
        raise PolicyRefusedError("another chain")
    account = get(f"ACCOUNT#{record['accountId']}", "ACCOUNT")
    if account is None:
        raise PolicyRefusedError("no account")
    kind = policy.get("kind")
    if kind == "deploy":
        _check_deploy(tx, record, account, key[1])
        return
    if kind != "withdrawal":
        raise PolicyRefusedError("unknown kind")
    _check_payment(tx, record, account)
    _check_limits(record)
    _once(record, tx, key[1], _daily_limit(record))


def _transaction(fields: Any) -> Any:
    from chalicelib.evm.transactions import UnsignedTx

    if not isinstance(fields, dict):
        raise PolicyRefusedError("no transaction")
    try:
        return UnsignedTx(
            chain_id=int(fields["chainId"]),
            nonce=int(fields["nonce"]),
            to=str(fields["to"]),
            value=int(fields["value"]),
            data=bytes.fromhex(str(fields["data"]).removeprefix("0x")),
            gas=int(fields["gas"]),
            gas_price=int(fields["gasPrice"]) if fields.get("gasPrice") is not None else None,
            max_fee=int(fields["maxFee"]) if fields.get("maxFee") is not None else None,
            max_priority_fee=int(fields["maxPriorityFee"]) if fields.get("maxPriorityFee") is not None else None,
        )
    except (KeyError, TypeError, ValueError):
        raise PolicyRefusedError("a malformed transaction") from None


def describe(tx: Any) -> dict[str, Any]:
    """The transaction as the policy payload carries it (the API side)."""
    return {
        "chainId": tx.chain_id,
        "nonce": tx.nonce,
        "to": tx.to,
        "value": str(tx.value),
        "data": "0x" + tx.data.hex(),
        "gas": tx.gas,
        "gasPrice": str(tx.gas_price) if tx.gas_price is not None else None,
        "maxFee": str(tx.max_fee) if tx.max_fee is not None else None,
        "maxPriorityFee": str(tx.max_priority_fee) if tx.max_priority_fee is not None else None,
    }


def expected_call(record: dict[str, Any]) -> bytes:
    """The deposit account's `execute` call that pays the withdrawal (the API builds the same)."""
    from chalicelib.evm import abi

    amount = int(record["amountInDecimals"])
    if not record.get("tokenAddress"):
        return abi.encode_call("execute(address,uint256,bytes)", record["to"], amount, b"")
    return abi.encode_call(
        "execute(address,uint256,bytes)", record["tokenAddress"], 0, abi.transfer(record["to"], amount)
    )


def deploy_call(owner: str, account_id: str) -> bytes:
    from chalicelib.custody.keys import salt
    from chalicelib.smart_accounts.counterfactual import factory_data

    return factory_data(owner, salt(account_id))


def _deposit_address(record: dict[str, Any], account: dict[str, Any]) -> str:
    wallet = next((w for w in account["wallets"] if int(w["chainId"]) == int(record["chainId"])), None)
    if wallet is None:
        raise PolicyRefusedError("the account has no address on this chain")
    return str(wallet["address"])


def _check_payment(tx: Any, record: dict[str, Any], account: dict[str, Any]) -> None:
    if (tx.to or "").lower() != _deposit_address(record, account).lower():
        raise PolicyRefusedError("not a call of the account's deposit address")
    if tx.value != 0 or tx.data != expected_call(record):
        raise PolicyRefusedError("the call does not pay exactly the withdrawal's amount to its address")


def _check_deploy(tx: Any, record: dict[str, Any], account: dict[str, Any], owner: str) -> None:
    from chalicelib.platform.networks import registry

    network = registry().by_chain_id(int(record["chainId"]))
    if network is None or network.accountFactory is None:
        raise PolicyRefusedError("no factory on this chain")
    if (tx.to or "").lower() != network.accountFactory.lower() or tx.value != 0:
        raise PolicyRefusedError("not a call of the factory")
    if tx.data != deploy_call(owner, str(account["id"])):
        raise PolicyRefusedError("not the deployment of the account's own address")


def _check_limits(record: dict[str, Any]) -> None:
    from chalicelib.custody import limits
    from chalicelib.custody.tokens import accepted

    pair = accepted(str(record["network"]), str(record["tokenCode"]))
    limit = limits.limits_for(pair)
    amount = int(record["amountInDecimals"])
    if limit.per_withdrawal is not None and amount > limit.per_withdrawal:
        raise PolicyRefusedError("above the per-withdrawal limit")
    if not limits.allowed(str(record["appId"]), str(record["to"])):
        raise PolicyRefusedError("the destination is not on the allowlist")


def _daily_limit(record: dict[str, Any]) -> int | None:
    from chalicelib.custody import limits
    from chalicelib.custody.tokens import accepted

    return limits.limits_for(accepted(str(record["network"]), str(record["tokenCode"]))).per_day


def _once(record: dict[str, Any], tx: Any, sender: str, per_day: int | None) -> None:
    """At most one nonce per withdrawal, ever: two signed transactions with the same nonce cannot both be mined,
    so the withdrawal is paid at most once even if the API function broadcast a signature it never recorded.
    The withdrawal's first signature also adds its amount to the cosigner's OWN total of the day for its app and
    token (in the same transaction), against the daily limit: the API function cannot rewrite that total."""
    key = {"pk": f"SIGNED#{record['id']}", "sk": "SIGNED"}
    table = aws.table(POLICY_TABLE)
    item = table.get_item(Key=key, ConsistentRead=True).get("Item")
    if item is not None:
        if int(item["nonce"]) != tx.nonce:
            raise PolicyRefusedError("this withdrawal was signed at another nonce")
        return
    amount = int(record["amountInDecimals"])
    day = {"pk": f"DAY#{record['appId']}#{record['network']}#{record['tokenCode']}", "sk": _today()}
    total = table.get_item(Key=day, ConsistentRead=True).get("Item")
    used = int(total["used"]) if total else 0
    if per_day is not None and used + amount > per_day:
        raise PolicyRefusedError("above the daily limit (the cosigner's own total)")
    seen = aws.Condition("used = :u", values={":u": str(used)}) if total else aws.Condition("attribute_not_exists(pk)")
    try:
        aws.transact(
            [
                aws.put("signed", POLICY_TABLE, {**key, "nonce": tx.nonce, "from": sender, "amount": str(amount)}),
                aws.put("day", POLICY_TABLE, {**day, "used": str(used + amount)}, seen),
            ]
        )
    except aws.TransactionCancelledError:
        raise PolicyRefusedError("signed concurrently; ask again") from None


def _today() -> str:
    from chalicelib.platform import clock

    return clock.iso_now()[:10]
