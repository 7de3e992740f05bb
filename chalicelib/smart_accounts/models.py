"""Models of smart accounts: the wire's owner record, account and gas tank objects (the reference API's shapes); the
stored owner record and account."""

from __future__ import annotations

from typing import Any

from pydantic import ConfigDict, Field

from chalicelib.platform.addresses import Address
from chalicelib.platform.records import Record
from chalicelib.platform.wire import WireModel


class OwnerRef(WireModel):
    model_config = ConfigDict(extra="forbid")

    id: Address = Field(description="The owner's Ethereum address (controls the accounts).")
    provider: str = Field(min_length=1, max_length=40, description="Account provider; only `wallet` is supported.")


_EXAMPLE_CREATE_SMART_ACCOUNT: dict[str, Any] = {
    "owner": {"id": "0x5B38Da6a701c568545dCfcB03FcB875f56beddC4", "provider": "wallet"}
}


class CreateSmartAccount(WireModel):
    model_config = ConfigDict(extra="forbid", json_schema_extra={"examples": [_EXAMPLE_CREATE_SMART_ACCOUNT]})

    owner: OwnerRef


class GasTank(WireModel):
    id: str
    createdAt: str
    updatedAt: str | None
    ownerId: str = Field(description="The owner record's id.")
    balance: str = Field(description="Base units of the tank currency (USDT with `decimals`).")
    type: str = "token"
    tokenName: str = "USDT"
    decimals: int


class Account(WireModel):
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


_EXAMPLE_OWNER_RECORD: dict[str, Any] = {
    "id": "6e1c3a5b-7d9f-4b2e-8a4c-6f8e0a2c4b6d",
    "createdAt": "2026-11-22T08:00:00.000Z",
    "updatedAt": None,
    "ownerId": "0x5B38Da6a701c568545dCfcB03FcB875f56beddC4",
    "provider": "wallet",
    "clientId": "5d9e2c1a-7b3f-4e8d-a6c2-1f0b9e8d7c6a",
    "appId": "0b7d5f3e-5a8c-4c1e-9d1a-2f6b8e4c7a10",
    "gasTanks": [
        {
            "id": "9b1d3f5a-7c9e-4b2d-8f6a-0c2e4a6b8d0f",
            "createdAt": "2026-11-22T08:00:00.000Z",
            "updatedAt": None,
            "ownerId": "6e1c3a5b-7d9f-4b2e-8a4c-6f8e0a2c4b6d",
            "balance": "0",
            "type": "token",
            "tokenName": "USDT",
            "decimals": 6,
        }
    ],
    "accounts": [
        {
            "id": "2f4a6c8e-0b1d-4f3a-9c5e-7b9d1f3a5c7e",
            "createdAt": "2026-11-22T08:00:00.000Z",
            "updatedAt": None,
            "ownerId": "6e1c3a5b-7d9f-4b2e-8a4c-6f8e0a2c4b6d",
            "status": "not_deployed",
            "aaAddress": "0x4B0897b0513fdC7C541B6d9D7E929C4e5364D2dB",
            "chainId": 137,
            "network": "polygon-pos",
            "clientId": "5d9e2c1a-7b3f-4e8d-a6c2-1f0b9e8d7c6a",
            "appId": "0b7d5f3e-5a8c-4c1e-9d1a-2f6b8e4c7a10",
            "version": "0.1",
        }
    ],
}


class OwnerRecord(WireModel):
    model_config = ConfigDict(json_schema_extra={"examples": [_EXAMPLE_OWNER_RECORD]})

    id: str
    createdAt: str
    updatedAt: str | None
    ownerId: str = Field(description="The owner's address (EIP-55).")
    provider: str
    clientId: str
    appId: str
    gasTanks: list[GasTank]
    accounts: list[Account]


class UsdtInfo(WireModel):
    address: str
    decimals: int


class NetworkInfo(WireModel):
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


_EXAMPLE_NETWORK_LIST: dict[str, Any] = {
    "networks": [
        {
            "name": "polygon-pos",
            "chainId": 137,
            "nativeSymbol": "POL",
            "nativeDecimals": 18,
            "usdt": {"address": "0xc2132D05D31c914a87C6611C10748AEb04B58e8F", "decimals": 6},
            "poolAddress": "0x617F2E2fD72FD9D5503197092aC168c91465E7f2",
            "entryPoint": "0x0000000071727De22E5E9d8BAf0edAc6f37da032",
            "accountFactory": "0x91E60e0613810449d098b0b5Ec8b51A0FE8c8985",
            "paymaster": "0xc0E2b1E5b3B5e1E7BB2af0D8CD2a3E1f4A5b6C7d",
            "bundlerVersion": "0.7",
            "accountVersion": "0.1",
        }
    ]
}


class NetworkList(WireModel):
    model_config = ConfigDict(json_schema_extra={"examples": [_EXAMPLE_NETWORK_LIST]})

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
