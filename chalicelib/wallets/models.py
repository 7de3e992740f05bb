"""Bodies of the wallet routes (Family W, wallet token)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from chalicelib.platform.pagination import Pagination


class SecretRequest(BaseModel):
    """The `secret` of every wallet body: A+C sign instead of A+B when it is given."""

    model_config = ConfigDict(extra="forbid")

    secret: str | None = Field(
        None,
        max_length=16_384,
        description="The wallet's secret0 from the user's device. Only operations that sign use it.",
    )


class WalletRequest(SecretRequest):
    """The common wallet parameters of the interface."""

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


MAX_MESSAGE_BYTES = 64 * 1024  # as typed data's limit: ample for SIWE and app messages, bounded for the parties
_EXAMPLE_SECRET_NOTE = "Without `secret` shares A and B sign; with it, A and C."
_EXAMPLE_ADDRESS = "0x19E7E376E7C213B7E7e7e46cc70A5dD086DAff2A"
_EXAMPLE_PERMIT: dict[str, Any] = {
    "types": {
        "Permit": [
            {"name": "owner", "type": "address"},
            {"name": "spender", "type": "address"},
            {"name": "value", "type": "uint256"},
            {"name": "nonce", "type": "uint256"},
            {"name": "deadline", "type": "uint256"},
        ]
    },
    "primaryType": "Permit",
    "domain": {
        "name": "Permit Token",
        "version": "1",
        "chainId": 31337,
        "verifyingContract": "0x5FbDB2315678afecb367f032d93F642f64180aa3",
    },
    "message": {
        "owner": _EXAMPLE_ADDRESS,
        "spender": "0x70997970C51812dc3A010C7d01b50e0d17dc79C8",
        "value": "1000000000000000000",
        "nonce": 0,
        "deadline": 1893456000,
    },
}


class SignMessageRequest(SecretRequest):
    """An EIP-191 personal message (`personal_sign`). No `network`: the signature is not bound to a chain."""

    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {"message": "Sign in to app.example.com\nNonce: 8f3c2a1b"},
                {"message": "0x646f6d706574", "encoding": "hex"},
            ]
        }
    )

    message: str = Field(
        description=f"The message: text (signed as its UTF-8 bytes) or, with `encoding: hex`, 0x-prefixed hex bytes. "
        f"At most {MAX_MESSAGE_BYTES} bytes (400 MESSAGE_TOO_LARGE). {_EXAMPLE_SECRET_NOTE}",
        json_schema_extra={"maxLength": 2 + 2 * MAX_MESSAGE_BYTES},
    )
    encoding: Literal["utf8", "hex"] = Field(
        "utf8", description="`utf8` (default): `message` is text; `hex`: `message` is 0x-prefixed bytes."
    )


class SignTypedDataRequest(SecretRequest):
    """An EIP-712 document (`eth_signTypedData_v4`). The chain is the one its `domain.chainId` names."""

    model_config = ConfigDict(json_schema_extra={"examples": [{"typedData": _EXAMPLE_PERMIT}]})

    typedData: dict[str, Any] = Field(
        description="`{types, primaryType, domain, message}` as `eth_signTypedData_v4` takes it; `EIP712Domain` may "
        "be left out of `types` (derived from the domain's fields). At most 64 KiB as canonical JSON."
    )


class MessageSignature(BaseModel):
    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {
                    "signature": "0x59da11c5f0368aeb6881aeb5a1c5d6350e29e79bfceb74934bd2a1b4f1d136e55f37fdf6d975dac32"
                    "0237a0d48e9cd269be39dbbcfe55ce2e5fb9f5534ec98421b",
                    "address": _EXAMPLE_ADDRESS,
                    "messageHash": "0xa79c786e56960307571f7fbc08bf948bec30e6c3281ed8b7ef1981cffab35a48",
                }
            ]
        }
    )

    signature: str = Field(description="0x + 65 bytes r ‖ s ‖ v, v 27 or 28 (what ethers and viem produce).")
    address: str = Field(description="The wallet's checksummed address: what the signature recovers to.")
    messageHash: str = Field(
        description='The EIP-191 digest signed: keccak256("\\x19Ethereum Signed Message:\\n" + length + message).'
    )


class TypedDataSignature(BaseModel):
    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {
                    "signature": "0xaa1d2518281d808001dab06a443742b4ef8eecb501b243ad7bc979b967fb203c146e14147c5aad579"
                    "2a23c117863c231f403321e83e91e820e04ef297116957c1c",
                    "address": _EXAMPLE_ADDRESS,
                    "hash": "0xb93fae8a6aa0064bce0bcc3b12d708b28c545fb889ac312cb19d08dfca63a5e5",
                    "domainSeparator": "0xda4fc6a9a15b5c8a2aa7bcd2f80a42dcf859832549cb194b9892aeaa5c604fd0",
                }
            ]
        }
    )

    signature: str = Field(description="0x + 65 bytes r ‖ s ‖ v, v 27 or 28.")
    address: str = Field(description="The wallet's checksummed address: what the signature recovers to.")
    hash: str = Field(description="The EIP-712 digest signed: keccak256(0x1901 ‖ domainSeparator ‖ hashStruct).")
    domainSeparator: str = Field(description="hashStruct(EIP712Domain) of the document's domain.")


class SignatureView(BaseModel):
    """A message signature in the wallet's history: what was signed, never the message or the signature."""

    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {
                    "kind": "typed_data",
                    "hash": "0xb93fae8a6aa0064bce0bcc3b12d708b28c545fb889ac312cb19d08dfca63a5e5",
                    "primaryType": "Permit",
                    "chainId": "31337",
                    "verifyingContract": "0x5FbDB2315678afecb367f032d93F642f64180aa3",
                    "createdAt": "2026-11-22T10:00:00.000Z",
                }
            ]
        }
    )

    kind: Literal["personal_message", "typed_data"]
    hash: str = Field(description="The digest signed (`messageHash` or `hash` of the answer).")
    primaryType: str | None = Field(description="Typed data: the document's primaryType.")
    chainId: str | None = Field(description="Typed data: `domain.chainId` as a decimal string, when it has one.")
    verifyingContract: str | None = Field(description="Typed data: `domain.verifyingContract`, when it has one.")
    createdAt: str


class SignaturePage(BaseModel):
    data: list[SignatureView]
    pagination: Pagination
