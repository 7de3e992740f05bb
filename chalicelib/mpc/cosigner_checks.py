"""What the cosigner asks before it releases its share: the signing policies that domains register.

`mpc/` knows no domain. A domain whose keys must sign only what it allows defines a `SigningPolicy`: a
name, a key-generation hook and one check per kind of signature. `wiring.wire()` registers it; the
cosigner consults the registry in the same process.

A key is governed by a policy when its key generation names one (party request `keyPolicy`). The cosigner then
writes, in ONE transaction with its share B, its own mark `GOVERNED#<walletId>` (table `cosigner-policy`, which
only the cosigner can write) naming the policy and the key's address, and whatever the policy's `on_key` returns
(its own record of the key, such as the key's scope). No share B of a governed key exists without its mark, and
a mark is written once. From then on, for that wallet, the cosigner:

* joins a full signing run only if the policy is registered here, it has a check for the kind of payload it was
  shown (`transaction`, `personal_message`, `typed_data`: evm/digests.py, hashed by the cosigner itself), the
  request carries a context (a policy that allows presignatures gets an empty one when party A sent none, and
  decides from what it reads), and the check passes (it raises `PolicyRefusedError`);
* makes no presignatures, unless the policy says `presignatures`: then it makes them, and runs the same check, with
  the context party A sent, in a presignature's online step BEFORE it consumes its share (a refusal with a rule
  burns nothing; one without burns the presignature, parties.py);
* seals share C for the policy's recovery only (`shares.seal_secret0`), so the user party never signs with it,
  unless the policy says `user_signs` (the user's own secret0 then signs with A, as for any wallet);
* signs with a child key of the key (a request's derivation path, BIP32 non-hardened) only if the policy says
  `derives`, and then hands the path to the check, which compares it with the path it derives from its own
  records. A key generated with `hd` (a chain code: the only keys that have children) is made only under a policy
  that never presigns: presignatures and derived keys together are insecure (docs/mpc.md).

A check refuses with `PolicyRefusedError(reason, rule)`: with a `rule` (the path of a rule of a policy document
that decided) the cosigner answers `POLICY_DENIED`, a decision the caller shows its client; without one,
`POLICY_REFUSED` (a request the cosigner will not serve at all).

Everything fails closed: an unregistered policy (an entry point that forgot to wire it), an unknown kind or a
missing context is a refusal, never a signature.

Domains may also register cosigner ACTIONS (`register_action`): requests other than the MPC runs (e.g. storing a
signed policy document in the cosigner's own table), which `parties.cosigner` dispatches by their `action` name.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from pydantic import ConfigDict, Field

from chalicelib.evm.digests import Signable
from chalicelib.platform import aws
from chalicelib.platform.cache import TtlCache
from chalicelib.platform.hooks import Hooks
from chalicelib.platform.wire import WireModel

COSIGNER_POLICY_TABLE = "cosigner-policy"  # the cosigner's own table: governed keys and what each policy keeps
NAME = r"^[a-z][a-z0-9_-]{0,31}$"
RUN_ACTIONS = frozenset({"keygen", "import", "sign", "presign", "partial"})  # parties.PartyRequest's


class PolicyRefusedError(Exception):
    """`rule`: the rule of a policy document that refused (answered as POLICY_DENIED); None for a request the
    cosigner does not serve at all (POLICY_REFUSED)."""

    def __init__(self, reason: str, rule: str | None = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.rule = rule


class KeyPolicy(WireModel):
    """Party A's request that a new key be governed by policy `name`; `context` is for the policy's `on_key`."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str = Field(pattern=NAME)
    context: dict[str, Any] = Field(default_factory=dict)


@dataclass(frozen=True)
class NewKey:
    """A governed key the cosigner just generated, with the context party A stated for it (e.g. its scope).
    `public_key` (compressed SEC1) and `chain_code` (an `hd` key's; None otherwise) as the cosigner's own share
    records them: what the policy keeps to derive the key's child keys itself."""

    wallet_id: str
    address: str
    context: Mapping[str, Any]
    public_key: bytes | None = None
    chain_code: bytes | None = None


@dataclass(frozen=True)
class SigningRequest:
    """What the cosigner is asked to sign for a governed key. `address` is the key's address from the cosigner's
    own mark; `payload` what it was shown and `digest` its hash as the cosigner computed it (what it would sign);
    `kind` the payload's kind; `context` party A's claim of what the signature is for (e.g. the withdrawal a
    transaction pays), which the check verifies on its own. `derivation`: the non-hardened path of the child key
    party A asked to sign with (only for a policy that `derives`; None: the key itself), which the check compares
    with the path it derives from its own records."""

    wallet_id: str
    address: str
    digest: bytes
    payload: Signable
    context: Mapping[str, Any]
    # The items of the policy's `prefetch` keys, read in one consistent batch with the request's own reads: by
    # (pk, sk), None for an absent item. None when nothing was read ahead (the check reads for itself).
    prefetched: Mapping[tuple[str, str], Mapping[str, Any] | None] | None = None
    derivation: tuple[int, ...] | None = None

    @property
    def kind(self) -> str:
        return self.payload.kind


@dataclass(frozen=True)
class SigningPolicy:
    name: str
    # Returns the policy's own items to write with the key's mark and share B; raises PolicyRefusedError to refuse
    # the key (its context is not one the policy accepts).
    on_key: Callable[[NewKey], Sequence[aws.TxItem]]
    checks: Mapping[str, Callable[[SigningRequest], None]]  # by payload kind; each raises PolicyRefusedError
    # May a presignature's online step sign for such a key (its check then runs before the share is consumed, with
    # the context party A sent, as on the full path)?
    presignatures: bool = False
    user_signs: bool = False  # share C sealed as any wallet's: the user's secret0 signs with share A
    # May it sign with child keys of its keys (a derivation path, checked by its check)? Only for a policy that never
    # presigns (`register` refuses both), and only keys generated with `hd` have children.
    derives: bool = False
    # Keys of the cosigner's own table (COSIGNER_POLICY_TABLE) the check will read for (wallet id, payload, digest):
    # an online step reads them with its own, in one batch (SigningRequest.prefetched).
    prefetch: Callable[[str, Signable, bytes], Sequence[Mapping[str, str]]] | None = None
    # Whose hourly presignature budget a key's presignatures count against (wallets: their client), from the
    # cosigner's own records; None: no budget (presignatures.take_budget).
    presign_budget: Callable[[str], str | None] | None = None


# A cosigner action: the request (JSON, its `action` included) -> the answer ({"ok": ...}); refusals are answers.
Action = Callable[[dict[str, Any]], dict[str, Any]]


@dataclass(frozen=True)
class Governance:
    policy: str
    address: str


POLICIES: Hooks[SigningPolicy] = Hooks("signing policy")
ACTIONS: Hooks[Action] = Hooks("cosigner action")
# A key's governance never changes once written; a wallet no policy governs is asked again every time.
_GOVERNED: TtlCache[str, Governance] = TtlCache("cosigner-governance", None, max_entries=4096)


def register(policy: SigningPolicy) -> None:
    """Called by `wiring.wire()`; registering the same name again replaces it."""
    if not re.match(NAME, policy.name):
        raise ValueError(f"not a policy name: {policy.name!r}")
    if policy.derives and policy.presignatures:
        raise ValueError(f"policy {policy.name!r}: a policy that derives child keys never uses presignatures")
    POLICIES.register(policy.name, policy)


def registered(name: str) -> SigningPolicy:
    policy = POLICIES.get(name)
    if policy is None:
        raise PolicyRefusedError(f"no signing policy {name!r} is registered")
    return policy


def admit_key(name: str, hd: bool) -> SigningPolicy:
    """The registered policy a new key is to be governed by; PolicyRefusedError when it is not registered, or the
    key is to be an `hd` key (one with child keys) and the policy uses presignatures."""
    policy = registered(name)
    if hd and policy.presignatures:
        raise PolicyRefusedError(f"an hd key is never governed by {name!r}: its keys use presignatures")
    return policy


def user_signs(name: str) -> bool:
    """Whether share C of a key under policy `name` is sealed for its user (False when it is not registered)."""
    policy = POLICIES.get(name)
    return policy is not None and policy.user_signs


def register_action(name: str, handler: Action) -> None:
    """Called by `wiring.wire()`: the cosigner answers requests `{"action": name, ...}` with `handler` (registering
    the same name again replaces it). The names of the MPC runs are not available."""
    if not re.match(NAME, name) or name in RUN_ACTIONS:
        raise ValueError(f"not an action name: {name!r}")
    ACTIONS.register(name, handler)


def action(name: object) -> Action | None:
    """The handler registered for `name` (None for anything else, an MPC run's name included)."""
    return ACTIONS.get(name) if isinstance(name, str) else None


def key_items(policy_name: str, key: NewKey) -> list[aws.TxItem]:
    """The mark of a new governed key and the policy's own items, to write with share B."""
    policy = registered(policy_name)
    mark = {**mark_key(key.wallet_id), "policy": policy.name, "address": key.address}
    return [aws.put("governed", COSIGNER_POLICY_TABLE, mark), *policy.on_key(key)]


def governance(wallet_id: str) -> Governance | None:
    """The policy that governs `wallet_id` (None for a wallet that no policy governs; asked again every time)."""
    return _GOVERNED.get_or_put(wallet_id, lambda: _read_governance(wallet_id))


def known_governance(wallet_id: str) -> Governance | None:
    """`governance` as this process knows it already, without reading (None: not known to be governed)."""
    return _GOVERNED.get(wallet_id)


def governance_in(wallet_id: str, mark: Mapping[str, Any] | None) -> Governance | None:
    """`governance` from the key's mark (`mark_key`) as the caller read it, consistently: in one batch with the
    caller's own reads of the same request."""
    if mark is None:
        return None
    return _GOVERNED.put(wallet_id, Governance(str(mark["policy"]), str(mark["address"])))


def _read_governance(wallet_id: str) -> Governance | None:
    item = aws.table(COSIGNER_POLICY_TABLE).get_item(Key=mark_key(wallet_id), ConsistentRead=True).get("Item")
    return governance_in(wallet_id, item)


def authorize(
    wallet_id: str,
    payload: Signable,
    digest: bytes,
    context: Mapping[str, Any] | None,
    governed: Governance | None = None,
    prefetched: Mapping[tuple[str, str], Mapping[str, Any] | None] | None = None,
    derivation: tuple[int, ...] | None = None,
) -> None:
    """Raise PolicyRefusedError unless the cosigner may sign `payload` (whose hash it computed: `digest`) with
    `wallet_id`, or with its child key at `derivation` (a policy that does not `derive` refuses any path).
    `governed`: the wallet's governance as the caller just read it (else `governance`); `prefetched`: the policy's
    `prefetch` items read with it. A key with no mark signs nothing: every key the cosigner makes is marked with its
    share, so a missing mark is a fault, never a key to sign for unchecked."""
    governed = governed or governance(wallet_id)
    if governed is None:
        raise PolicyRefusedError("the key has no signing policy mark")
    policy = registered(governed.policy)
    if derivation is not None and not policy.derives:
        raise PolicyRefusedError(f"a {policy.name} key signs with no derived key")
    if not isinstance(context, Mapping):
        if not policy.presignatures:
            raise PolicyRefusedError(f"a {policy.name} key signs only with a policy context")
        context = {}  # its checks decide without one, or refuse what needs one
    check_kind = policy.checks.get(payload.kind)
    if check_kind is None:
        raise PolicyRefusedError("unknown kind")
    check_kind(SigningRequest(wallet_id, governed.address, digest, payload, context, prefetched, derivation))


def prefetch_keys(governed: Governance, wallet_id: str, payload: Signable, digest: bytes) -> list[Mapping[str, str]]:
    """The keys of the cosigner's table that the check of `governed`'s policy reads (none when it is not
    registered: it refuses anyway)."""
    policy = POLICIES.get(governed.policy)
    if policy is None or policy.prefetch is None:
        return []
    return list(policy.prefetch(wallet_id, payload, digest))


def mark_key(wallet_id: str) -> dict[str, str]:
    return {"pk": f"GOVERNED#{wallet_id}", "sk": "GOVERNED"}
