"""The cosigner's policy for custody keys: it signs only a transaction that pays exactly what a withdrawal record
asks, as the cosigner itself reads the record, the account and the limits (never what the API function says).

The API function sends, with the digest, the transaction it is the signing hash of and what it is for
(`{"kind": "withdrawal" | "deploy", "id": <withdrawalId>, "tx": {...}}`). The cosigner then checks:

1. the digest is that transaction's signing hash (EIP-155 / EIP-1559) on the withdrawal's chain;
2. `deploy`: a call of the network's factory `createAccount(<custody key>, <account's salt>)`, value 0: it only
   puts the account's own deposit address on chain;
3. `withdrawal`: a call of the account's deposit address (a SimpleAccount the key owns), value 0, whose data is
   `execute(to, amount, "")` for the native coin or `execute(token, 0, transfer(to, amount))` for an ERC-20,
   with the record's `to`, `amount` and token (the registry's token for its code and network); the record is
   `sending`, of an account of this key and of the record's app; the amount within the per-withdrawal limit
   (settings), `to` on the app's allowlist when it has one (table `custody-policy`, which only the operator writes);
4. one payment per withdrawal: the cosigner keeps, in its own table, the nonce it signed for each withdrawal and
   signs again only at that nonce (of two transactions with the same nonce at most one can be mined); the first
   signature adds the amount to the cosigner's OWN total of the day for the app and token, against the daily limit.

Which wallets are custody keys the cosigner learns at their key generation and keeps in its own table; share C of
a custody key is sealed for recovery only, so the user party never signs with it.

Nothing the API function writes can make the cosigner sign a payment twice, to a non-allowlisted address, above a
limit, or for another key. The API function can forge withdrawal records, so with neither an allowlist nor a daily
limit it could still pay a forged withdrawal anywhere: docs/security.md says to configure both.
"""

from __future__ import annotations

from typing import Any

from chalicelib.platform import aws, retry

POLICY_TABLE = "cosigner-policy"


class PolicyRefusedError(Exception):
    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


_KNOWN_KEYS: dict[str, str] = {}


def mark_custody_key(wallet_id: str, address: str) -> None:
    """The cosigner, generating a custody key, marks it in its OWN table: no other function can unmark it."""
    aws.write(
        aws.put("custody-key", POLICY_TABLE, {"pk": f"CUSTODYKEY#{wallet_id}", "sk": "KEY", "address": address}, None)
    )


def _custody_key(wallet_id: str) -> str | None:
    """The address of a custody key; None for any other wallet. Custody keys are remembered (a key's kind never
    changes); other wallets are asked again every time."""
    if wallet_id in _KNOWN_KEYS:
        return _KNOWN_KEYS[wallet_id]
    item = (
        aws.table(POLICY_TABLE)
        .get_item(Key={"pk": f"CUSTODYKEY#{wallet_id}", "sk": "KEY"}, ConsistentRead=True)
        .get("Item")
    )
    if item is None:
        return None
    if len(_KNOWN_KEYS) > 4096:
        _KNOWN_KEYS.clear()
    _KNOWN_KEYS[wallet_id] = str(item["address"])
    return _KNOWN_KEYS[wallet_id]


def is_custody_key(wallet_id: str) -> bool:
    return _custody_key(wallet_id) is not None


def check(wallet_id: str, digest: bytes, policy: dict[str, Any] | None) -> None:
    """Raise PolicyRefusedError unless signing `digest` with custody key `wallet_id` is allowed (a wallet that is
    not a custody key: nothing to check)."""
    owner = _custody_key(wallet_id)
    if owner is None:
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
    if account is None or account.get("appId") != record.get("appId") or account.get("mpcSubId") != wallet_id:
        raise PolicyRefusedError("the withdrawal's account is not of its app, or not of this key")
    _check_token(record, tx)
    _check_fees(tx)
    kind = policy.get("kind")
    if kind == "deploy":
        _check_deploy(tx, record, account, owner)
        _count_deploy(record)
        return
    if kind != "withdrawal":
        raise PolicyRefusedError("unknown kind")
    _check_payment(tx, record, account)
    _check_limits(record)
    _once(record, tx, owner, _daily_limit(record))


MAX_GAS = 500_000  # a deployment or an execute call; more would only burn the gas wallet
MAX_FEE_TIMES_NODE = 10  # the fee cap may be at most this many times what the node asks now
MAX_DEPLOYS = 3  # deployment signatures per withdrawal (a retry may need one more)


def _check_fees(tx: Any) -> None:
    """Bounded gas and fees: a compromised API function cannot burn the gas wallet on fees."""
    from chalicelib.platform.chain import rpc_call
    from chalicelib.platform.networks import registry

    if tx.gas > MAX_GAS:
        raise PolicyRefusedError("too much gas")
    network = registry().by_chain_id(tx.chain_id)
    assert network is not None  # checked by _check_token
    try:
        node_price = int(rpc_call(network, "eth_gasPrice", []), 16)
    except Exception:  # noqa: BLE001 - no reading of the fee market: refuse
        raise PolicyRefusedError("could not read the network's gas price") from None
    cap = tx.gas_price if tx.gas_price is not None else (tx.max_fee or 0)
    if cap > MAX_FEE_TIMES_NODE * max(node_price, 1) or (tx.max_priority_fee or 0) > cap:
        raise PolicyRefusedError("fees far above the network's")


def _count_deploy(record: dict[str, Any]) -> None:
    key = {"pk": f"DEPLOYS#{record['id']}", "sk": "DEPLOYS"}
    try:
        aws.write(
            aws.update(
                "deploys",
                POLICY_TABLE,
                key,
                aws.Changes(add={"count": 1}),
                aws.Condition("attribute_not_exists(#c) OR #c < :most", {"#c": "count"}, {":most": MAX_DEPLOYS}),
            )
        )
    except aws.ConditionFailedError:
        raise PolicyRefusedError("enough deployments signed for this withdrawal") from None


def _check_token(record: dict[str, Any], tx: Any) -> None:
    """The record's network, chain and token are what the registry says (a forged record cannot pick another token's
    units or a token the network does not accept)."""
    from chalicelib.platform.networks import registry

    network = registry().by_chain_id(tx.chain_id)
    token = network.custody_token(str(record.get("tokenCode", ""))) if network else None
    if network is None or token is None or network.name != record.get("network"):
        raise PolicyRefusedError("not a token this network accepts")
    if token.tokenAddress.lower() != str(record.get("tokenAddress", "")).lower():
        raise PolicyRefusedError("the token address is not the registry's")


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
    for _ in retry.attempts(6, base_s=0.02, cap_s=0.3):
        total = table.get_item(Key=day, ConsistentRead=True).get("Item")
        used = int(total["used"]) if total else 0
        if per_day is not None and used + amount > per_day:
            raise PolicyRefusedError("above the daily limit (the cosigner's own total)")
        seen = (
            aws.Condition("used = :u", values={":u": str(used)}) if total else aws.Condition("attribute_not_exists(pk)")
        )
        try:
            aws.transact(
                [
                    aws.put("signed", POLICY_TABLE, {**key, "nonce": tx.nonce, "from": sender, "amount": str(amount)}),
                    aws.put("day", POLICY_TABLE, {**day, "used": str(used + amount)}, seen),
                ]
            )
            return
        except aws.TransactionCancelledError as exc:
            if exc.condition_failed("signed"):  # signed meanwhile by another run: at its nonce only
                again = table.get_item(Key=key, ConsistentRead=True).get("Item")
                if again is not None and int(again["nonce"]) == tx.nonce:
                    return
                raise PolicyRefusedError("this withdrawal was signed at another nonce") from None
            # another withdrawal of the app moved the day's total: read it again
    raise PolicyRefusedError("the day's total kept moving; ask again")


def _today() -> str:
    from chalicelib.platform import clock

    return clock.iso_now()[:10]
