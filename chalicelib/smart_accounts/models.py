"""Models of smart accounts: the wire's owner record, account and gas tank objects (the reference API's shapes); the
stored owner record and account."""

from __future__ import annotations

from typing import Literal

from pydantic import ConfigDict, Field

from chalicelib.platform.addresses import Address
from chalicelib.platform.records import Record
from chalicelib.platform.wire import WireModel

# Example values shared by several fields.
_EXAMPLE_OWNER_ADDRESS = "0x5B38Da6a701c568545dCfcB03FcB875f56beddC4"
_EXAMPLE_OWNER_RECORD_ID = "6e1c3a5b-7d9f-4b2e-8a4c-6f8e0a2c4b6d"
_EXAMPLE_CREATED_AT = "2026-11-22T08:00:00.000Z"
_EXAMPLE_USDT = "0xc2132D05D31c914a87C6611C10748AEb04B58e8F"


class OwnerRef(WireModel):
    model_config = ConfigDict(extra="forbid")

    id: Address = Field(
        description="The owner's Ethereum address (controls the accounts).", examples=[_EXAMPLE_OWNER_ADDRESS]
    )
    provider: str = Field(
        min_length=1, max_length=40, description="Account provider; only `wallet` is supported.", examples=["wallet"]
    )


AccountType = Literal["simple", "eip7702"]
_ACCOUNT_TYPE_DOC = (
    "`simple`: a SimpleAccount (ERC-4337 v0.7) the factory deploys at a counterfactual address. `eip7702`: the "
    "owner's own address (an MPC wallet of the service) delegating to Simple7702Account (EIP-7702, EntryPoint v0.8)."
)


class CreateSmartAccount(WireModel):
    model_config = ConfigDict(extra="forbid")

    owner: OwnerRef
    accountType: AccountType = Field(
        "simple",
        description=_ACCOUNT_TYPE_DOC + " Creating the other type for an owner that has accounts adds them.",
        examples=["simple"],
    )


class GasTank(WireModel):
    id: str = Field(examples=["9b1d3f5a-7c9e-4b2d-8f6a-0c2e4a6b8d0f"])
    createdAt: str = Field(examples=[_EXAMPLE_CREATED_AT])
    updatedAt: str | None
    ownerId: str = Field(description="The owner record's id.", examples=[_EXAMPLE_OWNER_RECORD_ID])
    balance: str = Field(description="Base units of the tank currency (USDT with `decimals`).", examples=["0"])
    type: str = "token"
    tokenName: str = "USDT"
    decimals: int = Field(examples=[6])


class Account(WireModel):
    id: str = Field(examples=["2f4a6c8e-0b1d-4f3a-9c5e-7b9d1f3a5c7e"])
    createdAt: str = Field(examples=[_EXAMPLE_CREATED_AT])
    updatedAt: str | None
    ownerId: str = Field(description="The owner record's id.", examples=[_EXAMPLE_OWNER_RECORD_ID])
    status: str = Field(
        description="`not_deployed` until the first user operation deploys it (an `eip7702` account: delegates the "
        "wallet), then `deployed`.",
        examples=["not_deployed"],
    )
    aaAddress: str = Field(
        description="The counterfactual address the factory deploys the account to; an `eip7702` account's is the "
        "wallet's own address.",
        examples=["0x4B0897b0513fdC7C541B6d9D7E929C4e5364D2dB"],
    )
    chainId: int = Field(examples=[137])
    network: str = Field(examples=["polygon-pos"])
    clientId: str = Field(examples=["5d9e2c1a-7b3f-4e8d-a6c2-1f0b9e8d7c6a"])
    appId: str = Field(examples=["0b7d5f3e-5a8c-4c1e-9d1a-2f6b8e4c7a10"])
    version: str = Field(
        description="The account's implementation: `0.7` (SimpleAccount 0.7.0), `simple7702-0.8` (Simple7702Account "
        "0.8.0).",
        examples=["0.1"],
    )
    accountType: AccountType = Field(
        "simple",
        exclude_if=lambda v: v == "simple",  # a simple account keeps the reference API's shape
        description=_ACCOUNT_TYPE_DOC + " Present only on `eip7702` accounts.",
        examples=["eip7702"],
    )


class OwnerRecord(WireModel):
    id: str = Field(examples=[_EXAMPLE_OWNER_RECORD_ID])
    createdAt: str = Field(examples=[_EXAMPLE_CREATED_AT])
    updatedAt: str | None
    ownerId: str = Field(description="The owner's address (EIP-55).", examples=[_EXAMPLE_OWNER_ADDRESS])
    provider: str = Field(examples=["wallet"])
    clientId: str = Field(examples=["5d9e2c1a-7b3f-4e8d-a6c2-1f0b9e8d7c6a"])
    appId: str = Field(examples=["0b7d5f3e-5a8c-4c1e-9d1a-2f6b8e4c7a10"])
    gasTanks: list[GasTank]
    accounts: list[Account]


class UsdtInfo(WireModel):
    address: str = Field(examples=[_EXAMPLE_USDT])
    decimals: int = Field(examples=[6])


class NetworkInfo(WireModel):
    name: str = Field(examples=["polygon-pos"])
    chainId: int = Field(examples=[137])
    nativeSymbol: str = Field(examples=["POL"])
    nativeDecimals: int = Field(examples=[18])
    usdt: UsdtInfo
    poolAddress: str = Field(
        description="Where top-ups are sent (USDT transfers).", examples=["0x617F2E2fD72FD9D5503197092aC168c91465E7f2"]
    )
    entryPoint: str = Field(examples=["0x0000000071727De22E5E9d8BAf0edAc6f37da032"])
    accountFactory: str = Field(examples=["0x91E60e0613810449d098b0b5Ec8b51A0FE8c8985"])
    paymaster: str = Field(examples=["0xc0E2b1E5b3B5e1E7BB2af0D8CD2a3E1f4A5b6C7d"])
    bundlerVersion: str = "0.7"
    accountVersion: str = Field(examples=["0.1"])
    entryPointV08: str | None = Field(
        None,
        exclude_if=lambda v: v is None,
        description="EIP-7702 accounts (absent: the network has none): ERC-4337 v0.8 EntryPoint.",
        examples=["0x4337084D9E255Ff0702461CF8895CE9E3b5Ff108"],
    )
    eip7702Account: str | None = Field(
        None,
        exclude_if=lambda v: v is None,
        description="The delegate of EIP-7702 accounts (Simple7702Account 0.8.0): what `eip7702Auth` names.",
        examples=["0xe6Cae83BdE06E4c305530e199D7217f42808555B"],
    )
    paymasterV08: str | None = Field(
        None, exclude_if=lambda v: v is None, description="The service's paymaster for v0.8 operations."
    )


class NetworkList(WireModel):
    networks: list[NetworkInfo]


class Owner(Record):
    """An owner record as stored (`OWNER#<id>` / `OWNER`), with its gas tank's id."""

    id: str
    createdAt: str
    updatedAt: str | None = None
    ownerId: str  # the owner's address (EIP-55)
    provider: str
    clientId: str
    appId: str
    tankId: str


class SmartAccount(Record):
    """An owner's account on one network as stored (`OWNER#<ownerRecordId>` / `ACCOUNT#<chainId>`)."""

    id: str
    createdAt: str
    updatedAt: str | None = None
    ownerId: str  # the owner record's id
    status: str
    aaAddress: str
    chainId: int
    network: str
    clientId: str
    appId: str
    version: str
    factory: str | None = None
    accountType: str = "simple"
