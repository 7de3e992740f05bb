"""What the cosigner asks before it releases its share: the signing policies that domains register.

`mpc/` knows no domain. A domain whose keys must sign only what it allows defines a `SigningPolicy`: a
name, a key-generation hook and one check per kind of signature. The entry point (app.py) registers it; the
cosigner consults the registry in the same process.

A key is governed by a policy when its key generation names one (party request `keyPolicy`). The cosigner then
writes, in ONE transaction with its share B, its own mark `GOVERNED#<walletId>` (table `cosigner-policy`, which
only the cosigner can write) naming the policy and the key's address, and whatever the policy's `on_key` returns
(its own record of the key, such as the key's scope). No share B of a governed key exists without its mark, and
a mark is written once. From then on, for that wallet, the cosigner:

* joins a full signing run only if the policy is registered here, it has a check for the kind of payload it was
  shown (`transaction`, `personal_message`, `typed_data`: evm/digests.py, hashed by the cosigner itself), the
  request carries a context, and the check passes (it raises `PolicyRefusedError`);
* refuses presignatures (an online step signs a digest without any check);
* seals share C for the policy's recovery only (`shares.seal_secret0`), so the user party never signs with it.

Everything fails closed: an unregistered policy (an entry point that forgot to wire it), an unknown kind or a
missing context is a refusal, never a signature.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from chalicelib.evm.digests import Signable
from chalicelib.platform import aws
from chalicelib.platform.cache import TtlCache

COSIGNER_POLICY_TABLE = "cosigner-policy"  # the cosigner's own table: governed keys and what each policy keeps
NAME = r"^[a-z][a-z0-9_-]{0,31}$"


class PolicyRefusedError(Exception):
    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class KeyPolicy(BaseModel):
    """Party A's request that a new key be governed by policy `name`; `context` is for the policy's `on_key`."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str = Field(pattern=NAME)
    context: dict[str, Any] = Field(default_factory=dict)


@dataclass(frozen=True)
class NewKey:
    """A governed key the cosigner just generated, with the context party A stated for it (e.g. its scope)."""

    wallet_id: str
    address: str
    context: Mapping[str, Any]


@dataclass(frozen=True)
class SigningRequest:
    """What the cosigner is asked to sign for a governed key. `address` is the key's address from the cosigner's
    own mark; `payload` what it was shown and `digest` its hash as the cosigner computed it (what it would sign);
    `kind` the payload's kind; `context` party A's claim of what the signature is for (e.g. the withdrawal a
    transaction pays), which the check verifies on its own."""

    wallet_id: str
    address: str
    digest: bytes
    payload: Signable
    context: Mapping[str, Any]

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


@dataclass(frozen=True)
class Governance:
    policy: str
    address: str


_REGISTERED: dict[str, SigningPolicy] = {}
# A key's governance never changes once written; a wallet no policy governs is asked again every time.
_GOVERNED: TtlCache[str, Governance] = TtlCache("cosigner-governance", None, max_entries=4096)


def register(policy: SigningPolicy) -> None:
    """Called by the entry point; registering the same name again replaces it (a reloaded module)."""
    if not re.match(NAME, policy.name):
        raise ValueError(f"not a policy name: {policy.name!r}")
    _REGISTERED[policy.name] = policy


def registered(name: str) -> SigningPolicy:
    policy = _REGISTERED.get(name)
    if policy is None:
        raise PolicyRefusedError(f"no signing policy {name!r} is registered")
    return policy


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


def authorize(wallet_id: str, payload: Signable, digest: bytes, context: Mapping[str, Any] | None) -> None:
    """Raise PolicyRefusedError unless the cosigner may sign `payload` (whose hash it computed: `digest`) with
    `wallet_id` (nothing to check for a wallet that no policy governs)."""
    governed = governance(wallet_id)
    if governed is None:
        return
    policy = registered(governed.policy)
    if not isinstance(context, Mapping):
        raise PolicyRefusedError(f"a {policy.name} key signs only with a policy context")
    check_kind = policy.checks.get(payload.kind)
    if check_kind is None:
        raise PolicyRefusedError("unknown kind")
    check_kind(SigningRequest(wallet_id, governed.address, digest, payload, context))


def mark_key(wallet_id: str) -> dict[str, str]:
    return {"pk": f"GOVERNED#{wallet_id}", "sk": "GOVERNED"}
