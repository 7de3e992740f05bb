"""The cosigner's signing policy for custody keys (registered with mpc/cosigner_checks.py by wiring.wire()): it signs
only a transaction that pays exactly what a withdrawal record asks, from a deposit address it computes itself, for
an app in the key's own scope, within limits it counts itself. Nothing the API function says or writes is taken
for more than a claim to check.

At the key's generation (`on_key`) the cosigner records, in its own table `cosigner-policy`, the key's pool scope
(`CUSTODYKEY#<keyId>`: `app:<appId>` for a dedicated pool, `org:<organizationId>` for an organization's) and the
pool's organization (the dedicated app's, as `tenancy` says then), after checking that the app or organization
exists in `tenancy`. From then on the organization whose allowlists bind the key's withdrawals is that record,
never `tenancy`: the API function writes `tenancy` (the console) and could move an app there at any time. A key
without a recorded scope and organization signs nothing.

The cosigner is shown the transaction itself (a `transaction` payload, evm/digests.py; a custody key signs no
other kind) and hashes it itself; the API function says what it is for in the policy context
(`{"purpose": "withdrawal" | "deploy", "id": <withdrawalId>}`). For both purposes the cosigner checks:

1. the digest is that transaction's signing hash (EIP-155 / EIP-1559) on the withdrawal's chain;
2. the withdrawal record (table `custody`, read-only for the cosigner) is this key's and `sending` (or `sent`: the
   engine re-pricing its transaction at the nonce and for the payment first signed, or its deployment, still at most
   3 deployment signatures per withdrawal), and its app is
   in the key's recorded scope: the scope's app, or an app that `tenancy` puts in the scope's organization (a
   claim it only checks: an app made or moved there by the console is bound by the organization's allowlists,
   and an app whose allowlist the operator set in another organization may send nowhere: operator_policy.allowlist);
3. the token is the registry's for the record's network and code; gas and fees are bounded.

`deploy`: a call of the network's factory `createAccount(<key address>, <salt of the record's account id>)`, value
0: it only puts that account's own deposit address on chain (at most 3 per withdrawal).

`withdrawal`: a call of the deposit address the cosigner COMPUTES from the factory, the key's address (its own mark)
and the record's account id (the counterfactual SimpleAccount, pool_keys.deposit_address; no account record is read),
value 0, whose data is `execute(to, amount, "")` for the native coin or `execute(token, 0, transfer(to, amount))`
for an ERC-20. That payment is then judged by the signing-policy engine (chalicelib/policies) under the app's
custody document, which operator_policy.py assembles from the operator's inputs: the per-withdrawal limit
(`transactions.maxValue`), the app's allowlist when it has one (`transactions.destinations.allow`, from table
`custody-policy`, which only the operator writes; read for the key's recorded organization) and the daily limit
(`transactions.maxValuePer24h`), evaluated against each of the cosigner's OWN totals of the day: the app's and the
key's (network and token). One payment per withdrawal: the cosigner keeps, in its own table, the nonce it signed
for each withdrawal and signs again only at that nonce; the first signature adds the amount to both totals.

A forged record can still name a real account of an app in the key's scope: the allowlist and the limits bound
what it pays (docs/security.md, "Custody keys").
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from chalicelib.bitcoin import addresses as bitcoin_addresses
from chalicelib.bitcoin import transactions as bitcoin_transactions
from chalicelib.custody import pool_keys
from chalicelib.custody.store import get
from chalicelib.custody.tokens import accepted
from chalicelib.custody.withdrawals import lifecycle as withdrawals
from chalicelib.custody.withdrawals import operator_policy
from chalicelib.custody.withdrawals.bitcoin_spends import CHANGE_OUTPUT_VBYTES, DUST_SATS, change_script
from chalicelib.evm import abi
from chalicelib.evm.aa.counterfactual import factory_data
from chalicelib.evm.digests import Signable
from chalicelib.evm.rpc import quantity, rpc_call
from chalicelib.evm.transactions import UnsignedTx, signing_hash
from chalicelib.mpc import cosigner_checks
from chalicelib.mpc.cosigner_checks import COSIGNER_POLICY_TABLE, NewKey, PolicyRefusedError, SigningRequest
from chalicelib.platform import aws, clock, unit_of_work
from chalicelib.platform.cache import TtlCache
from chalicelib.platform.networks import AnyNetwork, BitcoinNetwork, Network, registry
from chalicelib.platform.unit_of_work import Plan
from chalicelib.policies.document import PolicyDocument, PolicyDocumentError
from chalicelib.policies.facts import TransactionFacts
from chalicelib.tenancy import store as tenancy

__all__ = ["CUSTODY_POLICY", "PolicyRefusedError", "check", "deploy_call", "expected_call"]

MAX_GAS = 500_000  # a deployment or an execute call; more would only burn the gas wallet
MAX_FEE_TIMES_NODE = 10  # the fee cap may be at most this many times what the node asks now
MAX_DEPLOYS = 3  # deployment signatures per withdrawal (a retry may need one more)

# (scope, organization) of each key: written once, at its generation.
_SCOPES: TtlCache[str, tuple[str, str]] = TtlCache("custody-key-scopes", None, 4096)
# A Bitcoin key's (public key, chain code) as this cosigner recorded them at its generation.
_HD_KEYS: TtlCache[str, tuple[bytes, bytes]] = TtlCache("custody-hd-keys", None, 4096)
# What `tenancy` said of an app's organization: only a claim checked against the key's own record.
_ORGANIZATIONS: TtlCache[str, str] = TtlCache("custody-app-organizations", None, 4096)


def on_key(key: NewKey) -> list[aws.TxItem]:
    """The key's scope and organization, recorded with the cosigner's share: only an app or organization that
    exists."""
    scope = key.context.get("scope")
    try:
        kind, ident = pool_keys.parse_scope(str(scope))
    except ValueError:
        raise PolicyRefusedError("a custody key needs its pool's scope") from None
    item = {
        **_key_item(key.wallet_id),
        "scope": scope,
        "organizationId": _organization_of(kind, ident),
        "address": key.address,
        # A Bitcoin key's public key and chain code, from the cosigner's own share: what it derives an account's
        # child key from when it signs for one.
        **({"publicKey": key.public_key.hex()} if key.public_key else {}),
        **({"chainCode": key.chain_code.hex()} if key.chain_code else {}),
    }
    return [aws.put("custody-key", COSIGNER_POLICY_TABLE, item)]


def on_bitcoin_key(key: NewKey) -> list[aws.TxItem]:
    """A pool's Bitcoin key: recorded as any custody key, and only as an HD key (its accounts are its children)."""
    if key.chain_code is None or key.public_key is None:
        raise PolicyRefusedError("a custody Bitcoin key is an HD key")
    return on_key(key)


def _organization_of(kind: str, ident: str) -> str:
    """The pool's organization as `tenancy` says now (PolicyRefusedError when its app or organization does not
    exist): read only when the cosigner records a key, never when it signs."""
    if kind == "app":
        app = tenancy.get_app(ident)
        if app is None:
            raise PolicyRefusedError(f"no app {ident!r}")
        return app[0].organizationId
    if tenancy.get_organization(ident) is None:
        raise PolicyRefusedError(f"no organization {ident!r}")
    return ident


def check(wallet_id: str, payload: Signable, digest: bytes, context: Mapping[str, Any] | None) -> None:
    """What the cosigner decides for this request (raises PolicyRefusedError), through the registry it consults."""
    cosigner_checks.authorize(wallet_id, payload, digest, context)


def check_transaction(request: SigningRequest) -> None:
    purpose = request.context.get("purpose")
    if purpose == "withdrawal":
        check_withdrawal(request)
    elif purpose == "deploy":
        check_deploy(request)
    else:
        raise PolicyRefusedError("unknown purpose")


def check_withdrawal(request: SigningRequest) -> None:
    tx, record, network = _checked(request)
    deposit = _deposit_address(network, request, record)
    if (tx.to or "").lower() != deposit.lower():
        raise PolicyRefusedError("not a call of the account's deposit address")
    if tx.value != 0 or tx.data != expected_call(record):
        raise PolicyRefusedError("the call does not pay exactly the withdrawal's amount to its address")
    _once(record, request, network, tx.nonce, _payment(tx))


def check_deploy(request: SigningRequest) -> None:
    tx, record, network = _checked(request)
    _deposit_address(network, request, record)  # a factory and an account id it can deploy
    if (tx.to or "").lower() != str(network.accountFactory).lower() or tx.value != 0:
        raise PolicyRefusedError("not a call of the factory")
    if tx.data != deploy_call(request.address, str(record["accountId"])):
        raise PolicyRefusedError("not the deployment of the account's own address")
    _count_deploy(record)


# Presignatures: the same check runs in the online step, with party A's context, before the partial signature.
CUSTODY_POLICY = cosigner_checks.SigningPolicy(
    name=pool_keys.SIGNING_POLICY, on_key=on_key, checks={"transaction": check_transaction}, presignatures=True
)


def check_bitcoin_input(request: SigningRequest) -> None:
    """One input of a Bitcoin withdrawal's transaction, signed with the account's child key. The cosigner
    computes the input's signing hash from the transaction, derives the child key from its own record of the
    pool key and the withdrawal's account id, checks every spent output against its own transaction (amount and
    script), that the outputs pay exactly the withdrawal's amount to its address and the rest only to the
    account's native SegWit address, and that the fee is the withdrawal's and within the network's bounds; then
    the app's custody document, once per withdrawal (one unsigned transaction, `_once`)."""
    if request.context.get("purpose") != "withdrawal":
        raise PolicyRefusedError("unknown purpose")
    scope, organization = _scope(request.wallet_id)
    try:
        tx, index = bitcoin_transactions.input_of(request.payload.bitcoinInput or {})
        digest = tx.sighash(index)
    except ValueError:
        raise PolicyRefusedError("a malformed Bitcoin transaction") from None
    if digest != request.digest:
        raise PolicyRefusedError("the digest is not the input's signing hash")
    record = get(**withdrawals.key(str(request.context.get("id", ""))[:64]))
    if record is None or record.get("keyId") != request.wallet_id:
        raise PolicyRefusedError("no withdrawal of this key")
    if record["status"] != "sending":
        raise PolicyRefusedError(f"the withdrawal is {record['status']}")
    network = registry().any_by_chain_id(int(record["chainId"]))
    if (
        not isinstance(network, BitcoinNetwork)
        or network.name != record.get("network")
        or network.custody_token(str(record.get("tokenCode", ""))) is None
    ):
        raise PolicyRefusedError("not a coin this network accepts")
    record["organizationId"] = _check_scope(scope, organization, str(record.get("appId", "")))
    child = _child_key(request, str(record["accountId"]), network.chainId)
    for spend in tx.inputs:
        if spend.public_key != child:
            raise PolicyRefusedError("an input is not the account's")
        try:
            spend.check_previous()
        except ValueError as exc:
            raise PolicyRefusedError(f"an input's output is not what it claims: {exc}") from None
    _check_bitcoin_outputs(tx, record, network, child)
    _once(record, request, network, 0, tx.payment_id)


def _child_key(request: SigningRequest, account_id: str, chain_id: int) -> bytes:
    """The account's child key on the network, derived from the pool key as this cosigner recorded it at its
    generation; the path asked for must be the account's on that network."""
    try:
        path = pool_keys.bitcoin_path(account_id, chain_id)
    except ValueError:
        raise PolicyRefusedError("not an account id") from None
    if request.derivation != path:
        raise PolicyRefusedError("not the account's derivation path")
    known = _HD_KEYS.get(request.wallet_id)
    if known is None:
        item = (
            aws.table(COSIGNER_POLICY_TABLE).get_item(Key=_key_item(request.wallet_id), ConsistentRead=True).get("Item")
        )
        if item is None or not item.get("publicKey") or not item.get("chainCode"):
            raise PolicyRefusedError("the key was not recorded as an HD key at its generation")
        known = _HD_KEYS.put(request.wallet_id, (bytes.fromhex(item["publicKey"]), bytes.fromhex(item["chainCode"])))
    return pool_keys.bitcoin_key(pool_keys.CustodyKey(request.wallet_id, request.address, *known), account_id, chain_id)


def _check_bitcoin_outputs(
    tx: bitcoin_transactions.UnsignedBitcoinTx, record: dict[str, Any], network: BitcoinNetwork, child: bytes
) -> None:
    try:
        recipient = bitcoin_addresses.script_of(str(record["to"]), network.chain)
    except bitcoin_addresses.InvalidAddressError:
        raise PolicyRefusedError("the withdrawal's address is not one of this network") from None
    change = change_script(child)
    if recipient == change:
        raise PolicyRefusedError("the withdrawal pays the account itself")
    paid = [o for o in tx.outputs if o.script_pubkey == recipient]
    if len(paid) != 1 or paid[0].value != int(record["amountInDecimals"]):
        raise PolicyRefusedError("the transaction does not pay exactly the withdrawal's amount to its address")
    if len(tx.outputs) > 2 or any(o.script_pubkey not in (recipient, change) for o in tx.outputs):
        raise PolicyRefusedError("an output pays someone other than the recipient and the account's change address")
    if str(tx.fee) != str(record.get("fee")):
        raise PolicyRefusedError("the fee is not the withdrawal's")
    # Without change the transaction is smaller, and what change would have been (below dust) went to the fee.
    vsize = tx.vsize() + (0 if len(tx.outputs) == 2 else CHANGE_OUTPUT_VBYTES)
    if tx.fee > network.feeRateBounds.max * vsize + DUST_SATS:
        raise PolicyRefusedError("the fee is above the network's bounds")


# The pools' Bitcoin keys: HD keys whose children are the accounts' keys, signing one input at a time in full runs.
CUSTODY_BITCOIN_POLICY = cosigner_checks.SigningPolicy(
    name=pool_keys.BITCOIN_SIGNING_POLICY,
    on_key=on_bitcoin_key,
    checks={"bitcoin_input": check_bitcoin_input},
    presignatures=False,
    derives=True,
)


def _checked(request: SigningRequest) -> tuple[UnsignedTx, dict[str, Any], Network]:
    """What both kinds check: the digest, the record, the key's scope, the token, gas and fees."""
    scope, organization = _scope(request.wallet_id)
    tx = _transaction(request.payload)
    if signing_hash(tx) != request.digest:
        raise PolicyRefusedError("the digest is not the transaction's signing hash")
    record = get(**withdrawals.key(str(request.context.get("id", ""))[:64]))
    if record is None or record.get("keyId") != request.wallet_id:
        raise PolicyRefusedError("no withdrawal of this key")
    if record["status"] not in ("sending", "sent"):
        raise PolicyRefusedError(f"the withdrawal is {record['status']}")
    if tx.chain_id != int(record["chainId"]):
        raise PolicyRefusedError("another chain")
    record["organizationId"] = _check_scope(scope, organization, str(record.get("appId", "")))
    network = _check_token(record, tx)
    _check_fees(tx, network)
    return tx, record, network


def _scope(wallet_id: str) -> tuple[str, str]:
    """The key's scope and organization as this cosigner recorded them at its generation."""
    known = _SCOPES.get(wallet_id)
    if known is None:
        item = aws.table(COSIGNER_POLICY_TABLE).get_item(Key=_key_item(wallet_id), ConsistentRead=True).get("Item")
        if item is None or not item.get("scope"):
            raise PolicyRefusedError("the key's scope was not recorded at its generation")
        if not item.get("organizationId"):  # its allowlists would be nobody's: it signs nothing
            raise PolicyRefusedError("the key's organization was not recorded at its generation")
        known = _SCOPES.put(wallet_id, (str(item["scope"]), str(item["organizationId"])))
    return known


def _check_scope(scope: str, organization: str, app_id: str) -> str:
    """The record's app is the key's (dedicated pool) or, as `tenancy` claims, one of its organization's; returns
    the organization whose allowlists bind it: the key's own record, never `tenancy`'s. The API function can write
    the record's `appId`, and it can make apps in `tenancy` or move them there (the console), but it cannot take an
    app out of the key's organization's allowlists, nor bring in an allowlist the operator set for an app of
    another organization (operator_policy.allowlist)."""
    kind, ident = pool_keys.parse_scope(scope)
    if kind == "app":
        if app_id != ident:
            raise PolicyRefusedError("the withdrawal's app is not this key's")
        return organization
    claimed = _ORGANIZATIONS.get(app_id)
    if claimed is None:
        found = tenancy.get_app(app_id) if app_id else None
        if found is None:
            raise PolicyRefusedError("the withdrawal's app does not exist")
        claimed = _ORGANIZATIONS.put(app_id, found[0].organizationId)
    if claimed != ident:
        raise PolicyRefusedError("the withdrawal's app is not of this key's organization")
    return ident


def _deposit_address(network: Network, request: SigningRequest, record: dict[str, Any]) -> str:
    """The account's deposit address as the cosigner computes it (never read from a record)."""
    if network.accountFactory is None:
        raise PolicyRefusedError("no factory on this chain")
    try:
        return pool_keys.deposit_address(
            network.accountFactory, pool_keys.CustodyKey(request.wallet_id, request.address), str(record["accountId"])
        )
    except (KeyError, ValueError):
        raise PolicyRefusedError("not an account id") from None


def _check_fees(tx: UnsignedTx, network: Network) -> None:
    """Bounded gas and fees: a compromised API function cannot burn the gas wallet on fees."""
    if tx.gas > MAX_GAS:
        raise PolicyRefusedError("too much gas")
    try:
        node_price = quantity(rpc_call(network, "eth_gasPrice", []))
    except Exception:  # noqa: BLE001 - no reading of the fee market: refuse
        raise PolicyRefusedError("could not read the network's gas price") from None
    cap = tx.gas_price if tx.gas_price is not None else (tx.max_fee or 0)
    if cap > MAX_FEE_TIMES_NODE * max(node_price, 1) or (tx.max_priority_fee or 0) > cap:
        raise PolicyRefusedError("fees far above the network's")
    if network.maxFeePerGasCeiling is not None and cap > network.maxFeePerGasCeiling:
        raise PolicyRefusedError("fees above the network's ceiling")


def _payment(tx: UnsignedTx) -> str:
    """What the withdrawal's transaction pays, whatever its fees: the call (deposit address, value, data), which
    names the token, the recipient and the amount. A signature again at the nonce (a re-pricing) must pay the same."""
    from eth_utils import keccak

    to = bytes.fromhex((tx.to or "0x")[2:].lower())
    return "0x" + keccak(to + tx.value.to_bytes(32, "big") + tx.data).hex()


def _count_deploy(record: dict[str, Any]) -> None:
    key = {"pk": f"DEPLOYS#{record['id']}", "sk": "DEPLOYS"}
    try:
        aws.write(
            aws.update(
                "deploys",
                COSIGNER_POLICY_TABLE,
                key,
                aws.Changes(add={"count": 1}),
                aws.Condition("attribute_not_exists(#c) OR #c < :most", {"#c": "count"}, {":most": MAX_DEPLOYS}),
            )
        )
    except aws.ConditionFailedError:
        raise PolicyRefusedError("enough deployments signed for this withdrawal") from None


def _check_token(record: dict[str, Any], tx: UnsignedTx) -> Network:
    """The record's network, chain and token are what the registry says (a forged record cannot pick another token's
    units or a token the network does not accept)."""
    network = registry().by_chain_id(tx.chain_id)
    token = network.custody_token(str(record.get("tokenCode", ""))) if network else None
    if network is None or token is None or network.name != record.get("network"):
        raise PolicyRefusedError("not a token this network accepts")
    if token.tokenAddress.lower() != str(record.get("tokenAddress", "")).lower():
        raise PolicyRefusedError("the token address is not the registry's")
    return network


def _transaction(payload: Signable) -> UnsignedTx:
    if payload.transaction is None:
        raise PolicyRefusedError("no transaction")
    try:
        tx = UnsignedTx.from_wire(payload.transaction)
    except ValueError:
        raise PolicyRefusedError("a malformed transaction") from None
    if tx.authorization_list:  # a custody key runs no code but its own account's
        raise PolicyRefusedError("a custody key signs no set-code transaction")
    return tx


def expected_call(record: dict[str, Any]) -> bytes:
    """The deposit account's `execute` call that pays the withdrawal (the API builds the same)."""
    amount = int(record["amountInDecimals"])
    if not record.get("tokenAddress"):
        return abi.encode_call("execute(address,uint256,bytes)", record["to"], amount, b"")
    return abi.encode_call(
        "execute(address,uint256,bytes)", record["tokenAddress"], 0, abi.transfer(record["to"], amount)
    )


def deploy_call(owner: str, account_id: str) -> bytes:
    return factory_data(owner, pool_keys.salt(account_id))


def _custody_policy(record: dict[str, Any], network: AnyNetwork) -> tuple[PolicyDocument, TransactionFacts]:
    """The app's custody document as the cosigner reads the operator's inputs, and the payment it judges (the
    record's, which the transaction was checked to pay exactly)."""
    pair = accepted(network.name, str(record["tokenCode"]))
    try:
        document = operator_policy.document(str(record["appId"]), str(record["organizationId"]), network)
    except PolicyDocumentError as exc:
        raise PolicyRefusedError(f"the app's custody policy does not validate ({exc.field})") from None
    return document, operator_policy.payment(pair, str(record["to"]), int(record["amountInDecimals"]))


def _judge(document: PolicyDocument, paid: TransactionFacts, spent_today: int, counted: str) -> None:
    """Refuses unless the policy allows the payment after `spent_today` (`counted` says whose total that is)."""
    decision = operator_policy.judge(document, paid, spent_today)
    if not decision.allowed:
        reason = _REASONS[operator_policy.rule_of(decision)].format(counted=counted)
        raise PolicyRefusedError(f"{reason} (rule {decision.rule})")


_REASONS = {  # the rules a custody document refuses with (operator_policy.document)
    operator_policy.PER_WITHDRAWAL: "above the per-withdrawal limit",
    operator_policy.PER_DAY: "above the daily limit ({counted})",
    operator_policy.ALLOWLIST: "the destination is not on the allowlist",
}


def _once(record: dict[str, Any], request: SigningRequest, network: AnyNetwork, nonce: int, payment: str) -> None:
    """At most one nonce per withdrawal, ever: two signed transactions with the same nonce cannot both be mined,
    so the withdrawal is paid at most once even if the API function broadcast a signature it never recorded. (On
    Bitcoin the nonce is 0 and the payment is the unsigned transaction's id: its inputs and outputs. Its inputs
    are signed one by one, all for that one payment; a transaction spending the same outputs otherwise is refused,
    and two spending the same outputs cannot both be mined.)
    The app's custody policy judges the payment against the cosigner's OWN totals of the day for its app and for
    its key (network and token), each in turn; the withdrawal's first signature adds its amount to both in the same
    transaction: the API function cannot rewrite them, and no choice of app id gets a key past its own total. A
    signature again at the withdrawal's nonce (a re-pricing) must pay exactly what the first paid (`payment`: the
    record, which the API function can write, may have changed since) and is judged as the policy stands, its
    amount counted already."""
    document, paid = _custody_policy(record, network)
    key = {"pk": f"SIGNED#{record['id']}", "sk": "SIGNED"}
    table = aws.table(COSIGNER_POLICY_TABLE)
    item = table.get_item(Key=key, ConsistentRead=True).get("Item")
    if item is not None:
        if int(item["nonce"]) != nonce:
            raise PolicyRefusedError("this withdrawal was signed at another nonce")
        if item.get("payment") != payment:  # the record was rewritten since: never another payment at the nonce
            raise PolicyRefusedError("this withdrawal was signed for another payment")
        _judge(document, paid, 0, "its own amount alone")
        return
    if record["status"] != "sending":  # a sent withdrawal is signed again only at its nonce (a re-pricing)
        raise PolicyRefusedError(f"the withdrawal is {record['status']} and was never signed")
    amount = int(record["amountInDecimals"])
    pair, today = f"{record['network']}#{record['tokenCode']}", clock.iso_now()[:10]
    totals = {
        "day": {"pk": f"DAY#{record['appId']}#{pair}", "sk": today},
        "key-day": {"pk": f"DAYKEY#{request.wallet_id}#{pair}", "sk": today},
    }

    def plan() -> Plan:
        writes = [
            aws.put(
                "signed",
                COSIGNER_POLICY_TABLE,
                {**key, "nonce": nonce, "from": request.address, "amount": str(amount), "payment": payment},
            )
        ]
        for name, total_key in totals.items():
            total = table.get_item(Key=total_key, ConsistentRead=True).get("Item")
            used = int(total["used"]) if total else 0
            whose = "the app's" if name == "day" else "the key's"
            _judge(document, paid, used, f"{whose} total as the cosigner counts it")
            seen = aws.Condition("used = :u", values={":u": str(used)}) if total else aws.NEW_ITEM
            writes.append(aws.put(name, COSIGNER_POLICY_TABLE, {**total_key, "used": str(used + amount)}, seen))
        # another withdrawal of the app or the key moved a total: read them again
        return Plan(writes, replan_on=frozenset(totals))

    try:
        unit_of_work.commit(
            plan, attempts=6, on_busy=lambda: PolicyRefusedError("the day's total kept moving; ask again")
        )
    except aws.TransactionCancelledError as exc:
        if not exc.condition_failed("signed"):
            raise
        again = table.get_item(Key=key, ConsistentRead=True).get("Item")  # signed meanwhile by another run
        if again is None or int(again["nonce"]) != nonce:  # at its nonce only
            raise PolicyRefusedError("this withdrawal was signed at another nonce") from None
        if again.get("payment") != payment:
            raise PolicyRefusedError("this withdrawal was signed for another payment") from None


def signed_for(withdrawal_id: str) -> bool:
    """Whether the cosigner ever signed for the withdrawal (its one payment is recorded with the first signature)."""
    key = {"pk": f"SIGNED#{withdrawal_id}", "sk": "SIGNED"}
    return "Item" in aws.table(COSIGNER_POLICY_TABLE).get_item(Key=key, ConsistentRead=True)


def _key_item(wallet_id: str) -> dict[str, str]:
    return {"pk": f"CUSTODYKEY#{wallet_id}", "sk": "KEY"}
