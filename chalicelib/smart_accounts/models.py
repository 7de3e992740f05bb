"""Models of smart accounts: the wire's owner record, account and gas tank objects (the reference API's shapes); the
stored owner record and account."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from chalicelib.platform.addresses import Address
from chalicelib.platform.records import Record


class OwnerRef(BaseModel):
    model_config = ConfigDict(extra="forbid")

    id: Address = Field(description="The owner's Ethereum address (controls the accounts).")
    provider: str = Field(min_length=1, max_length=40, description="Account provider; only `wallet` is supported.")


class CreateSmartAccount(BaseModel):
    model_config = ConfigDict(extra="forbid")

    owner: OwnerRef


class GasTank(BaseModel):
    id: str
    createdAt: str
    updatedAt: str | None
    ownerId: str = Field(description="The owner record's id.")
    balance: str = Field(description="Base units of the tank currency (USDT with `decimals`).")
    type: str = "token"
    tokenName: str = "USDT"
    decimals: int


class Account(BaseModel):
    id: str
    createdAt: str
    updatedAt: str | None
    ownerId: str = Field(description="The owner record's id.")
    status: str = Field(description="`not_deployed` until the first user operation deploys it.")
    aaAddress: str = Field(description="The counterfactual address the factory deploys the account to.")
    chainId: int
    network: str
    clientId: str
    appId: str
    version: str


class OwnerRecord(BaseModel):
    id: str
    createdAt: str
    updatedAt: str | None
    ownerId: str = Field(description="The owner's address (EIP-55).")
    provider: str
    clientId: str
    appId: str
    gasTanks: list[GasTank]
    accounts: list[Account]


class UsdtInfo(BaseModel):
    address: str
    decimals: int


class NetworkInfo(BaseModel):
    name: str
    chainId: int
    nativeSymbol: str
    nativeDecimals: int
    usdt: UsdtInfo
    poolAddress: str = Field(description="Where top-ups are sent (USDT transfers).")
    entryPoint: str
    accountFactory: str
    paymaster: str
    bundlerVersion: str = "0.7"
    accountVersion: str


class NetworkList(BaseModel):
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
