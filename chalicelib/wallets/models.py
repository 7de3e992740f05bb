"""Bodies of the wallet routes (Family W, wallet token)."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from chalicelib.platform.pagination import Pagination


class WalletRequest(BaseModel):
    """The common wallet parameters of the interface."""

    model_config = ConfigDict(extra="forbid")

    secret: str | None = Field(
        None,
        max_length=16_384,
        description="The wallet's secret0 from the user's device. Only operations that sign use it.",
    )
    network: str | None = Field(None, max_length=40, description="Network name; required when chainId is empty.")
    chainId: str | None = Field(
        None, max_length=20, description="Chain id as a decimal string; required when network is empty."
    )


class TokenBalanceRequest(WalletRequest):
    tokenAddress: str = Field(max_length=42, description="ERC-20 contract address.")


class Balance(BaseModel):
    balance: str = Field(description="Exact decimal amount in human units.")
    symbol: str
    address: str = Field(description="The wallet address.")


_EXPIRE_DATE_DOC = (
    "Expiry of the returned wallet token: an RFC 3339 date-time, or a date (midnight UTC at its start). "
    "At most 30 days ahead; default the service's wallet-token lifetime."
)


class CreateWalletRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    expireDate: str | None = Field(None, max_length=40, description=_EXPIRE_DATE_DOC)


class RecoverWalletRequest(BaseModel):
    """JSON `{secret0}`; or multipart/form-data with the recovery file in part `file`."""

    model_config = ConfigDict(extra="forbid")

    secret0: str | None = Field(None, max_length=16_384, description="The wallet's secret0 (JSON body).")
    file: str | None = Field(
        None, max_length=16_384, description="The recovery file `<address>.service` (multipart part), content secret0."
    )
    expireDate: str | None = Field(None, max_length=40, description=_EXPIRE_DATE_DOC)

    @property
    def presented(self) -> str | None:
        return self.secret0 if self.secret0 is not None else self.file


class ImportWalletRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    privateKey: str = Field(
        max_length=66, description="The secp256k1 private key to import: 64 hex digits, optionally 0x-prefixed."
    )
    expireDate: str | None = Field(None, max_length=40, description=_EXPIRE_DATE_DOC)


class WalletCreated(BaseModel):
    """The interface's MPC wallet creation result, plus a refresh token for later logins."""

    walletToken: str = Field(description="JWT for the wallet operation endpoints.")
    refreshToken: str = Field(description="Single-use refresh token (see docs/authentication.md).")
    secret0: str = Field(description="Share C sealed for this wallet; the user saves it as `<address>.service`.")
    secret0Link: str = Field(description="Presigned download of that file; expires 300 s after this response.")
    address: str = Field(description="The wallet's checksummed address.")


class SendCoinRequest(WalletRequest):
    to: str = Field(max_length=42, description="Recipient address.")
    amount: str = Field(
        max_length=100, description="Native coin in ether units, an exact decimal string (≤ 18 places)."
    )


class SendTokenRequest(WalletRequest):
    to: str = Field(max_length=42, description="Recipient address.")
    amount: str = Field(max_length=100, description="Token amount in the token's units (its decimals() places).")
    tokenAddress: str = Field(max_length=42, description="ERC-20 contract address.")


class TransferErc721Request(WalletRequest):
    to: str = Field(max_length=42, description="Recipient address.")
    tokenId: str = Field(max_length=78, description="The token id, a decimal uint256.")
    tokenAddress: str = Field(max_length=42, description="ERC-721 contract address.")


class RawTransaction(BaseModel):
    """A raw transaction, every field a hex string. Missing gas fields are filled in by the service."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    from_: str = Field(alias="from", max_length=42, description="Must be the wallet's address.")
    to: str | None = Field(None, max_length=42)
    data: str | None = Field(None, max_length=262_144, description="0x-prefixed call data.")
    nonce: str | None = Field(None, max_length=66, description="Hex; default: the wallet's next nonce.")
    gasPrice: str | None = Field(None, max_length=66, description="Hex wei; given: a legacy (type 0) transaction.")
    gasLimit: str | None = Field(None, max_length=66, description="Hex; default: estimated.")
    value: str | None = Field(None, max_length=66, description="Hex wei; default 0x0.")


class SendTransactionRequest(WalletRequest):
    transaction: RawTransaction


class TxSignature(BaseModel):
    type_: str = Field(alias="_type", description='Always "signature".')
    networkV: str | None
    r: str
    s: str
    v: int


class TxReceipt(BaseModel):
    """ethers v6's JSON of a pending transaction (see docs/wallets.md)."""

    type_: str = Field(alias="_type", description='Always "TransactionReceipt".')
    accessList: list[Any] | None
    blockNumber: int | None
    blockHash: str | None
    chainId: str
    data: str
    from_: str = Field(alias="from")
    gasLimit: str
    gasPrice: str | None
    hash: str
    maxFeePerGas: str | None
    maxPriorityFeePerGas: str | None
    nonce: int
    signature: TxSignature
    to: str | None
    type: int
    value: str


class SendResult(BaseModel):
    txReceipt: TxReceipt


class TransactionView(BaseModel):
    hash: str
    status: str = Field(description="signing, pending, mined, failed or dropped.")
    network: str
    chainId: str
    kind: str = Field(description="coin, token, erc721 or raw.")
    from_: str = Field(alias="from")
    to: str | None
    value: str = Field(description="Native coin sent, in wei (decimal string).")
    nonce: int
    blockNumber: int | None
    blockHash: str | None
    gasUsed: str | None
    effectiveGasPrice: str | None
    failedReason: str | None
    createdAt: str
    updatedAt: str
    txReceipt: TxReceipt = Field(description="The receipt answered when it was sent.")


class TransactionPage(BaseModel):
    data: list[TransactionView]
    pagination: Pagination
