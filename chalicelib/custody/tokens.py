"""The tokens custody accepts, per network of any family (EVM, Bitcoin), from the networks registry
(`custodyTokens`)."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from decimal import Decimal

from chalicelib.platform.amounts import format_units
from chalicelib.platform.errors import bad_request
from chalicelib.platform.networks import (
    UNKNOWN_NETWORK,
    AnyNetwork,
    BitcoinNetwork,
    CustodyToken,
    Network,
    registry,
)

NAMESPACE = uuid.UUID("0b0f6f5e-8c1e-5b7a-9c39-5d0b1f3c2a10")  # Dompet custody ids (UUIDv5)
UNKNOWN_TOKEN = "UNKNOWN_TOKEN"
NETWORK_NOT_CUSTODIAL = "NETWORK_NOT_CUSTODIAL"
# The ERC-20 `Transfer(address,address,uint256)` event's topic: how a token's deposits and withdrawals show.
TRANSFER_TOPIC = "0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef"


@dataclass(frozen=True)
class TokenOnNetwork:
    """A token custody accepts, on the network where it accepts it."""

    network: AnyNetwork
    token: CustodyToken

    @property
    def blockchain_type(self) -> str:
        """The interface's `blockchainType`: evm, bitcoin."""
        return self.network.kind

    @property
    def evm(self) -> Network:
        """The EVM network, for EVM-only work; TypeError on another family (a wrong branch, never client input)."""
        if not isinstance(self.network, Network):
            raise TypeError(f"{self.network.name} is not an EVM network")
        return self.network

    @property
    def id(self) -> str:
        return token_id(self.network, self.token)

    @property
    def key(self) -> str:
        """`<network>#<tokenCode>`: how balances and lists name the pair."""
        return f"{self.network.name}#{self.token.tokenCode}"

    def public(self) -> dict[str, object]:
        """The reference API's `token` object plus where it lives."""
        return {
            "id": self.id,
            "tokenCode": self.token.tokenCode,
            "symbol": self.token.symbol,
            "decimals": self.token.decimals,
            "network": self.network.name,
            "chainId": self.network.chainId,
            "tokenAddress": self.token.tokenAddress,
            "confirmations": self.network.confirmations,
        }

    def event_token(self) -> dict[str, object]:
        """The reference API's `token` object as events carry it."""
        return {
            "id": self.id,
            "tokenCode": self.token.tokenCode,
            "symbol": self.token.symbol,
            "decimals": self.token.decimals,
        }

    def human(self, base_units: int) -> Decimal:
        """Base units as an exact human amount (a JSON number in events; see jsonsafe.dumps_exact)."""
        return Decimal(format_units(base_units, self.token.decimals))  # exact: no decimal context involved


def token_id(network: AnyNetwork, token: CustodyToken) -> str:
    return str(uuid.uuid5(NAMESPACE, f"token:{network.chainId}:{token.tokenAddress.lower() or 'native'}"))


def custody_networks() -> list[Network]:
    """The EVM networks with custody."""
    return [n for n in registry().networks if n.custody]


def bitcoin_custody_networks() -> list[BitcoinNetwork]:
    return [n for n in registry().bitcoin if n.custody]


def all_custody_networks() -> list[AnyNetwork]:
    return [*custody_networks(), *bitcoin_custody_networks()]


def all_accepted() -> list[TokenOnNetwork]:
    return [TokenOnNetwork(n, t) for n in all_custody_networks() for t in n.custodyTokens]


def custody_network(network_name: str) -> AnyNetwork:
    """The network of any family a custody request names; 400 UNKNOWN_NETWORK when none has that name."""
    network = registry().any_by_name(network_name)
    if network is None:
        raise bad_request(
            UNKNOWN_NETWORK,
            f"Unknown network {network_name[:40]!r}",
            errors=[{"field": "network", "message": "not a configured network", "type": "unknown_network"}],
        )
    return network


def accepted(network_name: str, token_code: str) -> TokenOnNetwork:
    """The pair a request names; 400 for a network without custody or a token it does not accept."""
    network = custody_network(network_name)
    if not network.custody:
        raise bad_request(
            NETWORK_NOT_CUSTODIAL,
            f"Custody accounts are not offered on {network.name}",
            errors=[{"field": "network", "message": "no custody tokens configured", "type": "network"}],
        )
    token = network.custody_token(token_code)
    if token is None:
        raise bad_request(
            UNKNOWN_TOKEN,
            f"{network.name} does not accept token {token_code[:20]!r}",
            errors=[{"field": "tokenCode", "message": "not accepted on this network", "type": "token"}],
        )
    return TokenOnNetwork(network, token)


def by_address(network: Network, token_address: str) -> TokenOnNetwork | None:
    """The accepted token of a contract address ('' for the native coin) on `network`."""
    wanted = token_address.lower()
    token = next((t for t in network.custodyTokens if t.tokenAddress.lower() == wanted), None)
    return TokenOnNetwork(network, token) if token else None
