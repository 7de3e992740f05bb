"""The networks registry: which chains the service talks to, of each family (`kind`): EVM chains and Bitcoin.

Loaded from the JSON file named by DOMPET_NETWORKS_FILE (`{"networks": [...]}`, each entry an EVM network
(`"kind": "evm"`, the default) or a Bitcoin network (`"kind": "bitcoin"`), fields below); validated at start-up,
so a bad registry stops the service with a message naming the entry and field. Names and chain ids are unique
across families: Bitcoin has no chain id, so its entries declare a number of their own (docs/custody.md).

`registry().networks` are the EVM networks, which everything but custody works on; `registry().bitcoin` the
Bitcoin networks, which only custody uses.

A network supports smart accounts (ERC-4337 v0.7) when it has all of SMART_ACCOUNT_FIELDS
and a `usdt` token; one that has some but not all stops start-up naming what is missing. It supports EIP-7702
smart accounts (an MPC wallet delegating to Simple7702Account, operations through EntryPoint v0.8) when it also
has all of EIP7702_FIELDS.
"""

from __future__ import annotations

import functools
import json
import re
from decimal import Decimal, InvalidOperation
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Discriminator, Field, Tag, ValidationError, model_validator

from chalicelib.platform import aws
from chalicelib.platform.cache import TtlCache
from chalicelib.platform.errors import VALIDATION_ERROR, bad_request
from chalicelib.platform.settings import SettingsError, load_settings

ADDRESS = r"^0x[0-9a-fA-F]{40}$"
_LOOPBACK = re.compile(r"^http://(127\.\d+\.\d+\.\d+|localhost|\[::1\])(:\d+)?(/|$)")
_CHAIN_ID = re.compile(r"[0-9]{1,20}")
NETWORK_REQUIRED = "NETWORK_REQUIRED"
UNKNOWN_NETWORK = "UNKNOWN_NETWORK"
NETWORK_MISMATCH = "NETWORK_MISMATCH"
SMART_ACCOUNT_FIELDS = (
    "entryPoint",
    "accountFactory",
    "paymaster",
    "bundlerUrls",
    "poolAddress",
    "usdtDecimals",
    "nativeToGasTankRate",
)
EIP7702_FIELDS = ("entryPointV08", "eip7702Account", "paymasterV08")


class CustodyToken(BaseModel):
    """A token the custodial deposit product accepts on a network (docs/custody.md)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    tokenCode: str = Field(pattern=r"^[a-z0-9][a-z0-9_-]{0,19}$", description="e.g. usdt, eth.")
    symbol: str = Field(min_length=1, max_length=16)
    decimals: int = Field(ge=0, le=36)
    tokenAddress: str = Field("", description="The ERC-20 contract; empty for the native coin.")

    @property
    def native(self) -> bool:
        return self.tokenAddress == ""


def _check_urls(urls: tuple[str, ...]) -> None:
    for url in urls:
        # Plain http only to this machine (local chains); anything remote must be https.
        if not (url.startswith("https://") or _LOOPBACK.match(url)):
            raise ValueError(
                "rpcUrls/bundlerUrls/explorerUrl: each must be https:// (http:// only for 127.0.0.1/localhost)"
            )


class Network(BaseModel):
    """An EVM network."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    kind: Literal["evm"] = "evm"
    name: str = Field(pattern=r"^[a-z0-9][a-z0-9-]{0,39}$", description="Name callers use in `network`.")
    chainId: int = Field(gt=0)
    rpcUrls: tuple[str, ...] = Field(min_length=1, description="Tried in turn.")
    nativeSymbol: str = Field(min_length=1, max_length=12)
    nativeDecimals: int = Field(18, ge=0, le=36)
    confirmations: int = Field(1, ge=0, le=1000, description="Blocks after which a transfer counts as final.")
    tokens: dict[str, str] = Field(default_factory=dict, description="Well-known token contracts by code, e.g. usdt.")
    explorerUrl: str | None = Field(
        None,
        max_length=200,
        pattern=r"^https?://[^\s/?#]+(/[^\s?#]*)?$",
        description="Block explorer base URL (e.g. https://etherscan.io): the console links <url>/tx/<hash> and "
        "<url>/address/<address>.",
    )
    maxFeePerGasCeiling: int | None = Field(
        None,
        gt=0,
        lt=2**256,
        description="Wei per gas a re-priced transaction (a bump, speed-up, cancel or gap fill) may offer at most: "
        "the engine stops raising fees there, and the cosigner signs no replacement above it. Absent: 10 times the "
        "fee cap of the transaction's first signature.",
    )
    # Smart accounts and gas tanks (all or none, see module docstring).
    entryPoint: str | None = Field(None, pattern=ADDRESS, description="ERC-4337 v0.7 EntryPoint.")
    accountFactory: str | None = Field(None, pattern=ADDRESS, description="SimpleAccountFactory v0.7.")
    paymaster: str | None = Field(None, pattern=ADDRESS, description="The service's VerifyingPaymaster.")
    # EIP-7702 smart accounts (all or none, and only beside the fields above).
    entryPointV08: str | None = Field(None, pattern=ADDRESS, description="ERC-4337 v0.8 EntryPoint.")
    eip7702Account: str | None = Field(
        None, pattern=ADDRESS, description="The delegate of EIP-7702 accounts: Simple7702Account 0.8."
    )
    paymasterV08: str | None = Field(
        None, pattern=ADDRESS, description="The service's paymaster for v0.8 (GasTankPaymaster; the same signer)."
    )
    bundlerUrls: tuple[str, ...] = Field((), description="ERC-4337 bundlers (Alto, Pimlico, ...), tried in turn.")
    poolAddress: str | None = Field(None, pattern=ADDRESS, description="Where gas-tank top-ups are sent.")
    usdtDecimals: int | None = Field(None, ge=0, le=18, description="Decimals of this network's USDT token.")
    nativeToGasTankRate: str | None = Field(
        None, description='Gas-tank currency (USDT) per native coin, a decimal string, e.g. "2000.5".'
    )
    priceFeed: str | None = Field(
        None, pattern=ADDRESS, description="Optional Chainlink native/USD feed; read on chain instead of the rate."
    )
    clientFeeBps: int = Field(0, ge=0, le=10_000, description="The client's fee on gas-tank charges, basis points.")
    serviceFeeBps: int = Field(0, ge=0, le=10_000, description="The service's fee on gas-tank charges, basis points.")
    # Custodial deposits (docs/custody.md): deposit addresses are accounts of `accountFactory`.
    custodyTokens: tuple[CustodyToken, ...] = Field((), description="Tokens custody accounts accept here.")
    custodyScanBlocks: int = Field(100, ge=1, le=10_000, description="Most blocks one watcher step reads.")
    custodyStartBlock: int | None = Field(None, ge=0, description="Where the watcher starts (default: the head).")

    @model_validator(mode="after")
    def _check(self) -> Network:
        _check_urls((*self.rpcUrls, *self.bundlerUrls, *([self.explorerUrl] if self.explorerUrl else [])))
        for code, address in self.tokens.items():
            if not _is_address(address):
                raise ValueError(f"tokens.{code}: not a 20-byte hex address")
        if self.nativeToGasTankRate is not None:
            try:
                rate = Decimal(self.nativeToGasTankRate)
            except InvalidOperation:
                rate = Decimal(0)
            if (
                not rate.is_finite()
                or rate <= 0
                or not re.fullmatch(r"[0-9]{1,30}(\.[0-9]{1,30})?", self.nativeToGasTankRate)
            ):
                raise ValueError('nativeToGasTankRate: a positive decimal string such as "2000.5"')
        if self.custodyTokens:
            if self.accountFactory is None:
                raise ValueError("custodyTokens: deposit addresses need accountFactory")
            codes = [t.tokenCode for t in self.custodyTokens]
            addresses = [t.tokenAddress.lower() for t in self.custodyTokens]
            if len(set(codes)) != len(codes) or len(set(addresses)) != len(addresses):
                raise ValueError("custodyTokens: a tokenCode or tokenAddress appears twice")
            for token in self.custodyTokens:
                if token.tokenAddress and not _is_address(token.tokenAddress):
                    raise ValueError(f"custodyTokens.{token.tokenCode}: tokenAddress is not a 20-byte hex address")
        # Only the smart-account fields make a network half-configured: `tokens.usdt` alone serves the wallets.
        present = {f for f in SMART_ACCOUNT_FIELDS if getattr(self, f)}
        if present:
            missing = sorted({*SMART_ACCOUNT_FIELDS} - present) + ([] if "usdt" in self.tokens else ["tokens.usdt"])
            if missing:
                raise ValueError(f"smart accounts half-configured: missing {', '.join(missing)}")
        with_7702 = {f for f in EIP7702_FIELDS if getattr(self, f)}
        if with_7702 and (with_7702 != set(EIP7702_FIELDS) or not present):
            missing = sorted({*EIP7702_FIELDS} - with_7702) or ["the smart-account fields"]
            raise ValueError(f"EIP-7702 accounts half-configured: missing {', '.join(missing)}")
        return self

    @property
    def supports_smart_accounts(self) -> bool:
        return self.entryPoint is not None

    @property
    def supports_eip7702_accounts(self) -> bool:
        return self.entryPointV08 is not None

    def entry_point_for(self, version: str) -> str:
        """The EntryPoint of an operation's `bundlerVersion`: "0.8" (EIP-7702 accounts) or "0.7"."""
        address = self.entryPointV08 if version == "0.8" else self.entryPoint
        assert address is not None, f"{self.name} has no EntryPoint {version}"
        return address

    @property
    def custody(self) -> bool:
        return bool(self.custodyTokens)

    def custody_token(self, code: str) -> CustodyToken | None:
        return next((t for t in self.custodyTokens if t.tokenCode == code), None)

    @property
    def usdt(self) -> str:
        """The USDT token of a network with smart accounts."""
        return self.tokens["usdt"]

    def rpc_headers(self) -> dict[str, str]:
        """EVM nodes take no credentials in headers (providers put their keys in the URL)."""
        return {}


class FeeRateBounds(BaseModel):
    """Sat per virtual byte a withdrawal may pay: the node's estimate, kept within these bounds."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    min: int = Field(1, ge=1, le=100_000)
    max: int = Field(500, ge=1, le=100_000)

    @model_validator(mode="after")
    def _ordered(self) -> FeeRateBounds:
        if self.min > self.max:
            raise ValueError("feeRateBounds: min is above max")
        return self


class BitcoinNetwork(BaseModel):
    """A Bitcoin network, read through a btcd (or compatible) node's JSON-RPC: custody only (docs/custody.md)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    kind: Literal["bitcoin"]
    name: str = Field(pattern=r"^[a-z0-9][a-z0-9-]{0,39}$", description="Name callers use in `network`.")
    chainId: int = Field(
        gt=0,
        lt=2**31,
        description="The registry's number for it (Bitcoin has none); unique in the registry. Never change it: "
        "the accounts' keys on the network are derived from it.",
    )
    chain: Literal["main", "test", "regtest"] = Field(description="Which chain: its address prefixes.")
    rpcUrls: tuple[str, ...] = Field(min_length=1, description="Tried in turn.")
    rpcUser: str = Field(min_length=1, max_length=100)
    rpcPassword: str | None = Field(
        None, min_length=1, max_length=200, description="Only for a node on this machine (a local stack)."
    )
    rpcPasswordSecret: str | None = Field(
        None,
        pattern=r"^[a-z0-9-]{1,60}$",
        description="The node's password: this key of the JSON object in the secret dompet/<stage>/node-credentials.",
    )
    nativeSymbol: str = Field("BTC", min_length=1, max_length=12)
    nativeDecimals: int = Field(8, ge=0, le=18)
    confirmations: int = Field(1, ge=0, le=1000, description="Blocks after which a payment counts as final.")
    feeRateBounds: FeeRateBounds = Field(default_factory=FeeRateBounds)
    explorerUrl: str | None = Field(None, max_length=200, pattern=r"^https?://[^\s/?#]+(/[^\s?#]*)?$")
    custodyTokens: tuple[CustodyToken, ...] = Field((), description="The coin, when custody accepts it here.")
    custodyScanBlocks: int = Field(20, ge=1, le=1_000, description="Most blocks one watcher step reads.")
    custodyStartBlock: int | None = Field(None, ge=0, description="Where the watcher starts (default: the head).")

    @model_validator(mode="after")
    def _check(self) -> BitcoinNetwork:
        _check_urls((*self.rpcUrls, *([self.explorerUrl] if self.explorerUrl else [])))
        if (self.rpcPassword is None) == (self.rpcPasswordSecret is None):
            raise ValueError("give rpcPassword (a local node) or rpcPasswordSecret, one of them")
        if self.rpcPassword is not None and not all(_LOOPBACK.match(url) for url in self.rpcUrls):
            raise ValueError("rpcPassword: only for a node on this machine; use rpcPasswordSecret")
        if any(t.tokenAddress for t in self.custodyTokens) or len(self.custodyTokens) > 1:
            raise ValueError("custodyTokens: a Bitcoin network has one coin and no token addresses")
        return self

    @property
    def custody(self) -> bool:
        return bool(self.custodyTokens)

    def custody_token(self, code: str) -> CustodyToken | None:
        return next((t for t in self.custodyTokens if t.tokenCode == code), None)

    def rpc_headers(self) -> dict[str, str]:
        """HTTP basic authentication for the node (the password from Secrets Manager when deployed)."""
        import base64

        password = self.rpcPassword if self.rpcPassword is not None else _secret(str(self.rpcPasswordSecret))
        token = base64.b64encode(f"{self.rpcUser}:{password}".encode()).decode()
        return {"Authorization": f"Basic {token}"}


AnyNetwork = Network | BitcoinNetwork


NODE_CREDENTIALS = "node-credentials"  # the secret: a JSON object of node passwords by the registry's key
_PASSWORDS: TtlCache[str, str] = TtlCache("node-passwords", 300)  # a rotated password is read within minutes


def _secret(name: str) -> str:
    """The password `name` in the node credentials secret."""
    known = _PASSWORDS.get(name)
    if known is None:
        answer = aws.client("secretsmanager").get_secret_value(SecretId=aws.secret_id(NODE_CREDENTIALS))
        passwords = json.loads(answer["SecretString"])
        if not isinstance(passwords, dict) or not isinstance(passwords.get(name), str):
            raise SettingsError(f"the {NODE_CREDENTIALS} secret has no password {name!r}")
        known = _PASSWORDS.put(name, passwords[name])
    return known


def _kind(entry: Any) -> str:
    """An entry's family: its `kind`, EVM when it names none."""
    kind = entry.get("kind", "evm") if isinstance(entry, dict) else getattr(entry, "kind", "evm")
    return str(kind)


_Entry = Annotated[
    Annotated[Network, Tag("evm")] | Annotated[BitcoinNetwork, Tag("bitcoin")],
    Discriminator(_kind, custom_error_type="network_kind", custom_error_message="kind: evm or bitcoin"),
]


class Registry(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)

    entries: tuple[_Entry, ...] = Field(alias="networks")

    @model_validator(mode="after")
    def _unique(self) -> Registry:
        for attr in ("name", "chainId"):
            values = [getattr(n, attr) for n in self.entries]
            duplicates = {v for v in values if values.count(v) > 1}
            if duplicates:
                raise ValueError(f"duplicate network {attr}: {sorted(duplicates)}")
        return self

    @property
    def networks(self) -> tuple[Network, ...]:
        """The EVM networks."""
        return tuple(n for n in self.entries if isinstance(n, Network))

    @property
    def bitcoin(self) -> tuple[BitcoinNetwork, ...]:
        return tuple(n for n in self.entries if isinstance(n, BitcoinNetwork))

    def by_name(self, name: str) -> Network | None:
        """The EVM network of that name."""
        return next((n for n in self.networks if n.name == name), None)

    def by_chain_id(self, chain_id: int) -> Network | None:
        """The EVM network of that chain id."""
        return next((n for n in self.networks if n.chainId == chain_id), None)

    def any_by_name(self, name: str) -> AnyNetwork | None:
        """The network of that name, of any family."""
        return next((n for n in self.entries if n.name == name), None)

    def any_by_chain_id(self, chain_id: int) -> AnyNetwork | None:
        return next((n for n in self.entries if n.chainId == chain_id), None)


def _is_address(value: str) -> bool:
    return re.fullmatch(ADDRESS, value) is not None


@functools.cache
def registry() -> Registry:
    path = load_settings().networks_file
    try:
        return Registry.model_validate(json.loads(path.read_text()))
    except json.JSONDecodeError as exc:
        raise SettingsError(
            f"DOMPET_NETWORKS_FILE: {path} is not valid JSON ({exc.msg} at line {exc.lineno})"
        ) from None
    except ValidationError as exc:
        problems = "; ".join(f"{'.'.join(str(p) for p in e['loc'])}: {e['msg']}" for e in exc.errors())
        raise SettingsError(f"DOMPET_NETWORKS_FILE: {path}: {problems}") from None


def resolve(name: str | None, chain_id: str | None) -> Network:
    """The network a request names by `network` or `chainId` (a decimal string); both must agree."""
    if not name and not chain_id:
        raise _chain_error(NETWORK_REQUIRED, "Give network or chainId", "network", "required when chainId is empty")
    by_name = registry().by_name(name) if name else None
    if name and by_name is None:
        other = registry().any_by_name(name)
        if other is not None:
            raise _chain_error(
                UNKNOWN_NETWORK,
                f"{other.name} is a {other.kind} network: this serves EVM networks",
                "network",
                "not EVM",
            )
        raise _chain_error(UNKNOWN_NETWORK, f"Unknown network {name[:40]!r}", "network", "not a configured network")
    by_id = None
    if chain_id:
        if not _CHAIN_ID.fullmatch(chain_id):
            raise bad_request(
                VALIDATION_ERROR,
                "Request validation failed",
                errors=[{"field": "chainId", "message": "must be a decimal string", "type": "chain_id"}],
            )
        by_id = registry().by_chain_id(int(chain_id))
        if by_id is None:
            raise _chain_error(
                UNKNOWN_NETWORK, f"No configured network has chainId {chain_id}", "chainId", "not configured"
            )
    if by_name and by_id and by_name != by_id:
        raise _chain_error(
            NETWORK_MISMATCH, f"network {name!r} is not chainId {chain_id}", "chainId", "names another network"
        )
    network = by_name or by_id
    assert network is not None
    return network


def _chain_error(code: str, message: str, field: str, reason: str) -> Exception:
    return bad_request(code, message, errors=[{"field": field, "message": reason, "type": code.lower()}])
