"""The custody pools' keys: one 2-of-3 threshold key per pool owner, and the deposit addresses it controls.

A custody account does not get a key of its own (a key generation per account would cost an aux-info set and a
multi-party run). Its deposit address on a network is the counterfactual SimpleAccount (the network's
`accountFactory`, ERC-4337 v0.7) whose owner is the pool's threshold key and whose CREATE2 salt is the account
id: computed here without an RPC call, the same on every network that shares the factory address, and usable
before anything is deployed (a transfer to it needs no code there). The threshold key signs, with the full
protocol, the owner's calls (`execute`) that move funds out of a deposit address later (docs/custody.md). No
derivation is involved, so presignatures never meet additive key derivation (docs/mpc.md).

Pools (`poolType`): `dedicated` (one key per app, the default) or `organization_owned` (one key for every app of
the organization). `mpcSubId` of an account is the id of its pool's key.

The key is made once, on the first account of its pool: a conditional put reserves `KEY#<scope>` (`creating`,
with a lease); the winner runs the key generation with the cosigner and the user party and stores the address;
concurrent callers wait for it. A creator that died leaves a lease that runs out, and the next caller starts
over with a fresh key id (shares written under the dead one's id are never used).
"""

from __future__ import annotations

import time
import uuid
from dataclasses import dataclass
from typing import Literal

from chalicelib.custody.store import TABLE, get
from chalicelib.evm.aa.counterfactual import account_address
from chalicelib.mpc import aux_pool
from chalicelib.mpc import service as mpc
from chalicelib.mpc.aux_pool import WALLET_POOL_EMPTY
from chalicelib.mpc.cosigner_checks import KeyPolicy
from chalicelib.platform import aws, clock
from chalicelib.platform.errors import ApiError
from chalicelib.platform.logging import logger

PoolType = Literal["dedicated", "organization_owned"]
Family = Literal["evm", "bitcoin"]
SIGNING_POLICY = (
    "custody"  # the cosigner's policy that governs custody keys (withdrawals/cosigner_check.py, wired by wiring.wire())
)
# The cosigner's policy of the pools' Bitcoin keys: HD keys (non-hardened children per account) that never presign.
BITCOIN_SIGNING_POLICY = "custody-bitcoin"
KEYGEN_LEASE_S = 60
WAIT_S = 25.0
CUSTODY_KEY_PENDING = "CUSTODY_KEY_PENDING"


@dataclass(frozen=True)
class CustodyKey:
    key_id: str  # the MPC wallet id of the key's shares: an account's `mpcSubId` (the EVM key's)
    address: str  # the key's own address: owner of every EVM deposit address of the pool
    public_key: bytes | None = None  # compressed; a Bitcoin key's, whose children are the accounts' keys
    chain_code: bytes | None = None


def key_pk(key_scope: str, family: Family) -> str:
    """The key item of a pool's key of a chain family: `KEY#<scope>` (EVM) or `KEY#<scope>#bitcoin`."""
    return f"KEY#{key_scope}" if family == "evm" else f"KEY#{key_scope}#{family}"


def scope(pool_type: PoolType, app_id: str, organization_id: str) -> str:
    return f"app:{app_id}" if pool_type == "dedicated" else f"org:{organization_id}"


def parse_scope(key_scope: str) -> tuple[Literal["app", "org"], str]:
    """("app", appId) or ("org", organizationId); ValueError for anything else."""
    kind, _, ident = key_scope.partition(":")
    if kind not in ("app", "org") or not ident:
        raise ValueError(f"not a pool scope: {key_scope!r}")
    return ("app" if kind == "app" else "org"), ident


def ensure(key_scope: str, family: Family = "evm") -> CustodyKey:
    """The pool's key of a chain family, made now if it does not exist yet (waiting for a concurrent maker)."""
    deadline = clock.monotonic() + WAIT_S
    while True:
        item = get(key_pk(key_scope, family), "KEY")
        if item is not None and item.get("status") == "ready":
            return _ready(item)
        if item is None or int(item.get("until", 0)) < clock.epoch():
            key_id = uuid.uuid4().hex  # the MPC parties take 32 hex digits
            if _reserve(key_scope, family, key_id, item):
                return _make(key_scope, family, key_id)
        if clock.monotonic() > deadline:
            raise ApiError(503, CUSTODY_KEY_PENDING, "The custody key of this pool is being made; retry shortly")
        time.sleep(0.2)


def made(key_scope: str, family: Family) -> CustodyKey | None:
    """The pool's key of a chain family if it is made (never makes one: for what only an existing key serves)."""
    item = get(key_pk(key_scope, family), "KEY")
    return _ready(item) if item is not None and item.get("status") == "ready" else None


def _ready(item: dict[str, object]) -> CustodyKey:
    public, chain = item.get("publicKey"), item.get("chainCode")
    return CustodyKey(
        str(item["keyId"]),
        str(item["address"]),
        bytes.fromhex(str(public)) if public else None,
        bytes.fromhex(str(chain)) if chain else None,
    )


def _reserve(key_scope: str, family: Family, key_id: str, seen: dict[str, object] | None) -> bool:
    item = {
        "pk": key_pk(key_scope, family),
        "sk": "KEY",
        "status": "creating",
        "keyId": key_id,
        "until": clock.epoch() + KEYGEN_LEASE_S,
        "createdAt": clock.iso_now(),
    }
    condition = (
        aws.Condition("attribute_not_exists(pk)")
        if seen is None
        else aws.Condition(
            "keyId = :k AND #s = :creating", {"#s": "status"}, {":k": seen["keyId"], ":creating": "creating"}
        )
    )
    try:
        aws.write(aws.put("key", TABLE, item, condition))
        return True
    except aws.ConditionFailedError:
        return False


def _make(key_scope: str, family: Family, key_id: str) -> CustodyKey:
    aux_id: str | None = None
    try:
        try:
            aux_id = aux_pool.claim(key_id)
        except aux_pool.PoolEmptyError:
            raise ApiError(
                503, WALLET_POOL_EMPTY, "No key material is ready for a custody key; retry in a few minutes"
            ) from None
        try:
            # The cosigner records the key's scope in its own table and from then on signs for it only what
            # the custody policy allows; share C is sealed for recovery only.
            policy = SIGNING_POLICY if family == "evm" else BITCOIN_SIGNING_POLICY
            material = mpc.generate_key(
                key_id, aux_id, KeyPolicy(name=policy, context={"scope": key_scope}), hd=family == "bitcoin"
            )
        except mpc.MpcRunError as exc:
            raise exc.api_error() from None
        ready = aws.update(
            "key",
            TABLE,
            {"pk": key_pk(key_scope, family), "sk": "KEY"},
            # secret0 is share C sealed under the recovery key with a custody-only context (the user party never
            # signs with it): kept so an operator can recover the key if share A or B is lost.
            aws.Changes(
                set={
                    "status": "ready",
                    "address": material.address,
                    "secret0": material.secret0,
                    "publicKey": material.public_key.hex(),
                    **({"chainCode": material.chain_code.hex()} if material.chain_code else {}),
                    "readyAt": clock.iso_now(),
                },
                remove=["until"],
            ),
            aws.Condition("keyId = :k", values={":k": key_id}),
        )
        aws.write(ready)
    except BaseException:
        try:
            aws.write(
                aws.delete(
                    "key",
                    TABLE,
                    {"pk": key_pk(key_scope, family), "sk": "KEY"},
                    aws.Condition("keyId = :k AND #s = :c", {"#s": "status"}, {":k": key_id, ":c": "creating"}),
                )
            )
        except Exception as exc:  # noqa: BLE001 - the reservation's lease runs out instead
            logger.warning("custody key reservation not released", extra={"errorType": type(exc).__name__})
        raise
    finally:
        if aux_id is not None:
            try:
                aux_pool.consume(aux_id)
            except Exception as exc:  # noqa: BLE001 - a leftover claimed set is skipped by claim()
                logger.warning("aux set not deleted", extra={"auxId": aux_id, "errorType": type(exc).__name__})
    logger.info("custody key made", extra={"keyId": key_id, "scope": key_scope, "family": family})
    if family == "evm":
        mpc.stock_presignatures(key_id)  # a Bitcoin key never presigns: its children sign in full runs
    return CustodyKey(key_id, material.address, material.public_key, material.chain_code)


def deposit_address(factory: str, key: CustodyKey, account_id: str) -> str:
    """The account's deposit address on a network with this factory: SimpleAccount(owner = key, salt = id)."""
    return account_address(factory, key.address, salt(account_id))


def salt(account_id: str) -> int:
    return uuid.UUID(account_id).int


_INDEX = 2**31 - 1


def bitcoin_path(account_id: str, chain_id: int) -> tuple[int, ...]:
    """The account's child of its pool's Bitcoin key on one network: the network's registry number, then the
    account id's 128 bits as five non-hardened indices (31, 31, 31, 31 and 4 bits), so no two accounts, and no two
    networks, share a child (an output on one network can never be spent under another network's limits). The
    cosigner derives it from the withdrawal's network and account id itself."""
    if not 0 < chain_id <= _INDEX:
        raise ValueError("a Bitcoin network's chainId is a non-hardened index")
    n = uuid.UUID(account_id).int
    return (chain_id, (n >> 97) & _INDEX, (n >> 66) & _INDEX, (n >> 35) & _INDEX, (n >> 4) & _INDEX, n & 0xF)


def bitcoin_key(key: CustodyKey, account_id: str, chain_id: int) -> bytes:
    """The account's child public key (compressed) under the pool's Bitcoin key, on one network."""
    if key.public_key is None or key.chain_code is None:
        raise ValueError("not an HD key")
    return mpc.derive_public_key(key.public_key, key.chain_code, bitcoin_path(account_id, chain_id))
