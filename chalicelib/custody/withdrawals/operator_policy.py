"""The operator's custody policy: the signing-policy engine's document (chalicelib/policies) that judges an app's
withdrawals, and the facts of the payment a withdrawal makes.

The document is assembled here, and only here, from the operator's two inputs:

- the setting `withdrawal_limits` (`DOMPET_WITHDRAWAL_LIMITS`, per token code in human units) gives
  `transactions.maxValue` (`perWithdrawal`) and `transactions.maxValuePer24h` (`perDay`), per asset of the
  network: "native" or the token's address, in base units rounded down to what the token can express;
- the app's allowlist (table `custody-policy`, which only the operator's admin command writes:
  `python -m chalicelib.operator set-withdrawal-allowlist`) gives `transactions.destinations.allow` while it
  is on. An app the operator set nothing for, in an organization where some app's allowlist is on, may send
  nowhere: apps can be made in the console (by the API function), and a new app must not be a way around its
  organization's allowlists. The operator lets such an app withdraw by setting its own allowlist (or `--off`).
  An allowlist records the organization the operator set it for: read for another organization (the app moved
  there in `tenancy`, which the API function writes), it is on and empty, so an app cannot carry its allowlist, or
  its `--off`, into another organization's pool.

The API judges a withdrawal when it is requested and the cosigner before it signs (cosigner_check.py), each reading the
inputs itself; neither input is writable by the API function. The 24 h window of a custody document is the UTC
day, counted in totals its caller keeps: the API its own per app, the cosigner its own per app and per key.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from chalicelib.bitcoin.addresses import InvalidAddressError, script_of
from chalicelib.custody.store import canonical_address
from chalicelib.custody.tokens import TokenOnNetwork
from chalicelib.platform import amounts, aws, clock
from chalicelib.platform.addresses import checksum_address
from chalicelib.platform.errors import ApiError
from chalicelib.platform.logging import logger
from chalicelib.platform.networks import AnyNetwork, CustodyToken, Network, registry
from chalicelib.platform.settings import load_settings
from chalicelib.policies.document import NATIVE, PolicyDocument
from chalicelib.policies.engine import Decision, Usage, evaluate
from chalicelib.policies.facts import TransactionFacts, Transfer

__all__ = [
    "ALLOWLIST",
    "CUSTODY_POLICY_TABLE",
    "PER_DAY",
    "PER_WITHDRAWAL",
    "AllowlistOrganizationError",
    "allowlist",
    "day_key",
    "document",
    "judge",
    "payment",
    "rule_of",
    "set_allowlist",
]

CUSTODY_POLICY_TABLE = "custody-policy"  # the operator's custody policy: allowlists (not the cosigner's table)
VERSION = 1  # a custody document is assembled on every reading, never stored: its version says nothing more
# The rules a custody document can refuse with (the engine's paths, without the asset of a limit).
PER_WITHDRAWAL = "transactions.maxValue"
PER_DAY = "transactions.maxValuePer24h"
ALLOWLIST = "transactions.destinations.allow"
_ERC20_TRANSFER = "0xa9059cbb"


def document(app_id: str, organization_id: str, network: AnyNetwork) -> PolicyDocument:
    """The app's custody document on `network`: limits name assets of one network (its native coin is "native");
    the allowlist's addresses of the network's family, as the engine names them (`policy_address`)."""
    configured: dict[str, dict[str, str]] = json.loads(load_settings().withdrawal_limits)
    per_withdrawal: dict[str, str] = {}
    per_day: dict[str, str] = {}
    for token in network.custodyTokens:
        limits = configured.get(token.tokenCode, {})
        for name, into in (("perWithdrawal", per_withdrawal), ("perDay", per_day)):
            if name in limits:
                # Exact, and rounded down to what the token can express (a limit may be given more precisely).
                into[_asset(token)] = str(amounts.base_units(limits[name], token.decimals, round_down=True))
    transactions: dict[str, Any] = {}
    if per_withdrawal:
        transactions["maxValue"] = per_withdrawal
    if per_day:
        transactions["maxValuePer24h"] = per_day
    listed = allowlist(app_id, organization_id)
    if listed["enabled"]:
        transactions["destinations"] = {
            "allow": sorted({policy_address(network, a) for a in listed["addresses"] if _of_family(network, a)})
        }
    return PolicyDocument.parse({"version": VERSION, **({"transactions": transactions} if transactions else {})})


def policy_address(network: AnyNetwork, address: str) -> str:
    """A destination as the policy engine names it. The engine speaks EVM addresses: an EVM address is itself (in
    lower case); another family's address is named by a stand-in, the first 20 bytes of its tagged SHA-256 (one
    per address and network: an allowlist that lists it allows exactly it). Stand-ins never leave the judging:
    the allowlist keeps the addresses themselves."""
    if isinstance(network, Network):
        return address.lower()
    return "0x" + hashlib.sha256(f"dompet-destination:{network.name}:{address}".encode()).hexdigest()[:40]


def _of_family(network: AnyNetwork, address: str) -> bool:
    if isinstance(network, Network):
        return address.startswith("0x")
    try:
        script_of(address, network.chain)
    except InvalidAddressError:
        return False
    return True


def valid_destination(address: str) -> str | None:
    """`address` as the allowlist keeps it: an EVM address (checksummed) or an address of a configured Bitcoin
    network's chain; None for anything else."""
    if address.startswith("0x"):
        try:
            return checksum_address(address, "address")
        except ApiError:
            return None
    return address if any(_of_family(n, address) for n in registry().bitcoin) else None


def payment(pair: TokenOnNetwork, to: str, amount: int) -> TransactionFacts:
    """What a withdrawal pays, as the engine reads a payment: the coin sent to `to`, or the token's
    `transfer(to, amount)`. (The deposit account's `execute` call around it is checked by the cosigner itself.)"""
    recipient = policy_address(pair.network, to)
    transfer = Transfer(_asset(pair.token), amount, recipient)
    if pair.token.native:
        return TransactionFacts(pair.network.chainId, recipient, amount, None, False, (transfer,), True)
    return TransactionFacts(pair.network.chainId, transfer.asset, 0, _ERC20_TRANSFER, True, (transfer,), True)


def judge(custody_document: PolicyDocument, paid: TransactionFacts, spent_today: int) -> Decision:
    """The engine's decision on a payment, after `spent_today` base units of its asset in the total counted."""
    usage = Usage(spent={transfer.asset: spent_today for transfer in paid.transfers})
    return evaluate(custody_document, paid, usage, {n.name: n.chainId for n in registry().networks})


def rule_of(decision: Decision) -> str:
    """The refusing rule without its asset: PER_WITHDRAWAL, PER_DAY or ALLOWLIST."""
    for rule in (PER_WITHDRAWAL, PER_DAY):
        if decision.rule.startswith(rule + "."):
            return rule
    return decision.rule


def day_key(app_id: str, pair: TokenOnNetwork, day: str | None = None) -> dict[str, str]:
    """The app's withdrawn total of a token on a UTC day (`YYYY-MM-DD`)."""
    return {"pk": f"DAY#{app_id}#{pair.key}", "sk": day or clock.iso_now()[:10]}


def _allowlist_key(app_id: str) -> dict[str, str]:
    return {"pk": f"ALLOWLIST#{app_id}", "sk": "ALLOWLIST"}


def _organization_key(organization_id: str) -> dict[str, str]:
    """The organization's apps whose allowlist is on (a string set `apps`)."""
    return {"pk": f"ORGALLOWLISTS#{organization_id}", "sk": "ORG"}


def allowlist(app_id: str, organization_id: str) -> dict[str, Any]:
    """The app's allowlist as the operator set it for `organization_id`; for an app it set nothing for, in an
    organization where some app's allowlist is on: on, and empty (`inherited`); set for another organization: on,
    and empty."""
    keys = [_allowlist_key(app_id), _organization_key(organization_id)]
    found = {str(i["pk"]): i for i in aws.batch_get(CUSTODY_POLICY_TABLE, keys)}
    item = found.get(keys[0]["pk"])
    if item is None:
        restricted = bool(found.get(keys[1]["pk"], {}).get("apps"))
        return {"enabled": restricted, "addresses": [], "updatedAt": None, "inherited": restricted}
    if item.get("organizationId") != organization_id:
        logger.warning(
            "an allowlist read for another organization than the operator set it for",
            extra={"appId": app_id, "organizationId": organization_id, "recorded": item.get("organizationId")},
        )
        return {"enabled": True, "addresses": [], "updatedAt": item.get("updatedAt"), "inherited": False}
    return {
        "enabled": bool(item.get("enabled")),
        "addresses": sorted(item.get("addresses", [])),
        "updatedAt": item.get("updatedAt"),
        "inherited": False,
    }


class AllowlistOrganizationError(ValueError):
    """The app's allowlist was set for another organization: an allowlist never moves to another one."""


def set_allowlist(app_id: str, organization_id: str, enabled: bool, addresses: list[str]) -> dict[str, Any]:
    """The operator's command only (no function may write table `custody-policy`): the app's allowlist, and its
    place in its organization's set of apps with an allowlist on, in one transaction. An allowlist recorded for an
    organization is set again only for that one (AllowlistOrganizationError): the command checks the organization
    against `tenancy`, which the API function writes, and an app moved there must not take its allowlist, or its
    `--off`, into another organization's pool."""
    item = {
        **_allowlist_key(app_id),
        "organizationId": organization_id,
        "enabled": enabled,
        "addresses": sorted({canonical_address(a): a for a in addresses}.values(), key=canonical_address),
        "updatedAt": clock.iso_now(),
    }
    member = {"apps": {app_id}}
    changes = aws.Changes(add=member) if enabled else aws.Changes(delete=member)
    same = aws.Condition("attribute_not_exists(organizationId) OR organizationId = :o", values={":o": organization_id})
    try:
        aws.transact(
            [
                aws.put("allowlist", CUSTODY_POLICY_TABLE, item, same),
                aws.update("organization", CUSTODY_POLICY_TABLE, _organization_key(organization_id), changes, None),
            ]
        )
    except aws.TransactionCancelledError as exc:
        if not exc.condition_failed("allowlist"):
            raise
        recorded = exc.old.get("allowlist", {}).get("organizationId")
        raise AllowlistOrganizationError(
            f"app {app_id}'s allowlist was set for organization {recorded}, not {organization_id}"
        ) from None
    return allowlist(app_id, organization_id)


def _asset(token: CustodyToken) -> str:
    return NATIVE if token.native else token.tokenAddress.lower()
