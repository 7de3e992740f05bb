"""Bodies of the wallet routes (Family W, wallet token)."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import AfterValidator, ConfigDict, Field
from pydantic_core import PydanticCustomError

from chalicelib.platform import amounts
from chalicelib.platform.pagination import Pagination
from chalicelib.platform.wire import WireModel

INVALID_FEES = "INVALID_FEES"


class SecretRequest(WireModel):
    """The `secret` of every wallet body: A+C sign instead of A+B when it is given."""

    model_config = ConfigDict(extra="forbid")

    secret: str | None = Field(
        None,
        max_length=16_384,
        description="The wallet's secret0 from the user's device. Only operations that sign use it.",
    )


_EXAMPLE_WALLET_REQUEST: dict[str, Any] = {"network": "polygon-pos"}


class WalletRequest(SecretRequest):
    """The common wallet parameters of the interface."""

    model_config = ConfigDict(json_schema_extra={"examples": [_EXAMPLE_WALLET_REQUEST]})

    network: str | None = Field(None, max_length=40, description="Network name; required when chainId is empty.")
    chainId: str | None = Field(
        None, max_length=20, description="Chain id as a decimal string; required when network is empty."
    )


_EXAMPLE_TOKEN_BALANCE_REQUEST: dict[str, Any] = {
    "chainId": "137",
    "tokenAddress": "0xc2132D05D31c914a87C6611C10748AEb04B58e8F",
}


class TokenBalanceRequest(WalletRequest):
    model_config = ConfigDict(json_schema_extra={"examples": [_EXAMPLE_TOKEN_BALANCE_REQUEST]})

    tokenAddress: str = Field(max_length=42, description="ERC-20 contract address.")


_EXAMPLE_BALANCE: dict[str, Any] = {
    "balance": "1.25",
    "symbol": "POL",
    "address": "0x14723A09ACff6D2A60DcdF7aA4AFf308FDDC160C",
}


class Balance(WireModel):
    model_config = ConfigDict(json_schema_extra={"examples": [_EXAMPLE_BALANCE]})

    balance: str = Field(description="Exact decimal amount in human units.")
    symbol: str
    address: str = Field(description="The wallet address.")


_EXPIRE_DATE_DOC = (
    "Expiry of the returned wallet token: an RFC 3339 date-time, or a date (midnight UTC at its start). "
    "At most 30 days ahead; default the service's wallet-token lifetime."
)


_EXAMPLE_CREATE_WALLET_REQUEST: dict[str, Any] = {"expireDate": "2026-11-23T08:00:00Z"}


class CreateWalletRequest(WireModel):
    model_config = ConfigDict(extra="forbid", json_schema_extra={"examples": [_EXAMPLE_CREATE_WALLET_REQUEST]})

    expireDate: str | None = Field(None, max_length=40, description=_EXPIRE_DATE_DOC)


_EXAMPLE_RECOVER_WALLET_REQUEST: dict[str, Any] = {
    "secret0": "dps0_AQIDBAUGBwgJCgsMDQ4PEBESExQVFhcYGRobHB0eHyA",
    "expireDate": "2026-11-23T08:00:00Z",
}


class RecoverWalletRequest(WireModel):
    """JSON `{secret0}`; or multipart/form-data with the recovery file in part `file`."""

    model_config = ConfigDict(extra="forbid", json_schema_extra={"examples": [_EXAMPLE_RECOVER_WALLET_REQUEST]})

    secret0: str | None = Field(None, max_length=16_384, description="The wallet's secret0 (JSON body).")
    file: str | None = Field(
        None, max_length=16_384, description="The recovery file `<address>.service` (multipart part), content secret0."
    )
    expireDate: str | None = Field(None, max_length=40, description=_EXPIRE_DATE_DOC)

    @property
    def presented(self) -> str | None:
        return self.secret0 if self.secret0 is not None else self.file


_EXAMPLE_IMPORT_WALLET_REQUEST: dict[str, Any] = {
    "privateKey": "0x4c0883a69102937d6231471b5dbb6204fe5129617082792ae468d01a3f362318",
    "expireDate": "2026-11-23T08:00:00Z",
}


class ImportWalletRequest(WireModel):
    model_config = ConfigDict(extra="forbid", json_schema_extra={"examples": [_EXAMPLE_IMPORT_WALLET_REQUEST]})

    privateKey: str = Field(
        max_length=66, description="The secp256k1 private key to import: 64 hex digits, optionally 0x-prefixed."
    )
    expireDate: str | None = Field(None, max_length=40, description=_EXPIRE_DATE_DOC)


_EXAMPLE_WALLET_CREATED: dict[str, Any] = {
    "walletToken": "eyJhbGciOiJFZERTQSIsImtpZCI6IjIwMjYxMTIyLWM2NzljNDVkIiwidHlwIjoiSldUIn0.eyJpc3MiOiJkb21wZXQiLCJraW5kIjoid2FsbGV0In0.c2lnbmF0dXJl",  # noqa: E501 - one hex string
    "refreshToken": "drt_Q2xpZW50IHJlZnJlc2ggdG9rZW4gZXhhbXBsZQ",
    "secret0": "dps0_AQIDBAUGBwgJCgsMDQ4PEBESExQVFhcYGRobHB0eHyA",
    "secret0Link": "https://storage.example.com/recovery/0x14723a09.service?X-Amz-Expires=300",
    "address": "0x14723A09ACff6D2A60DcdF7aA4AFf308FDDC160C",
}


class WalletCreated(WireModel):
    """The interface's MPC wallet creation result, plus a refresh token for later logins."""

    model_config = ConfigDict(json_schema_extra={"examples": [_EXAMPLE_WALLET_CREATED]})

    walletToken: str = Field(description="JWT for the wallet operation endpoints.")
    refreshToken: str = Field(description="Single-use refresh token (see docs/authentication.md).")
    secret0: str = Field(description="Share C sealed for this wallet; the user saves it as `<address>.service`.")
    secret0Link: str = Field(description="Presigned download of that file; expires 300 s after this response.")
    address: str = Field(description="The wallet's checksummed address.")


_EXAMPLE_SEND_COIN_REQUEST: dict[str, Any] = {
    "network": "polygon-pos",
    "to": "0xAb8483F64d9C6d1EcF9b849Ae677dD3315835cb2",
    "amount": "0.01",
}


class SendCoinRequest(WalletRequest):
    model_config = ConfigDict(json_schema_extra={"examples": [_EXAMPLE_SEND_COIN_REQUEST]})

    to: str = Field(max_length=42, description="Recipient address.")
    amount: str = Field(
        max_length=100, description="Native coin in ether units, an exact decimal string (≤ 18 places)."
    )


_EXAMPLE_SEND_TOKEN_REQUEST: dict[str, Any] = {
    "network": "polygon-pos",
    "to": "0xAb8483F64d9C6d1EcF9b849Ae677dD3315835cb2",
    "amount": "1.5",
    "tokenAddress": "0xc2132D05D31c914a87C6611C10748AEb04B58e8F",
}


class SendTokenRequest(WalletRequest):
    model_config = ConfigDict(json_schema_extra={"examples": [_EXAMPLE_SEND_TOKEN_REQUEST]})

    to: str = Field(max_length=42, description="Recipient address.")
    amount: str = Field(max_length=100, description="Token amount in the token's units (its decimals() places).")
    tokenAddress: str = Field(max_length=42, description="ERC-20 contract address.")


_EXAMPLE_TRANSFER_ERC721_REQUEST: dict[str, Any] = {
    "network": "polygon-pos",
    "to": "0xAb8483F64d9C6d1EcF9b849Ae677dD3315835cb2",
    "tokenId": "42",
    "tokenAddress": "0x2cF7252e74036d1Da831d11089D326296e64a728",
}


class TransferErc721Request(WalletRequest):
    model_config = ConfigDict(json_schema_extra={"examples": [_EXAMPLE_TRANSFER_ERC721_REQUEST]})

    to: str = Field(max_length=42, description="Recipient address.")
    tokenId: str = Field(max_length=78, description="The token id, a decimal uint256.")
    tokenAddress: str = Field(max_length=42, description="ERC-721 contract address.")


class RawTransaction(WireModel):
    """A raw transaction, every field a hex string. Missing gas fields are filled in by the service."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    from_: str = Field(alias="from", max_length=42, description="Must be the wallet's address.")
    to: str | None = Field(None, max_length=42)
    data: str | None = Field(None, max_length=262_144, description="0x-prefixed call data.")
    nonce: str | None = Field(None, max_length=66, description="Hex; default: the wallet's next nonce.")
    gasPrice: str | None = Field(None, max_length=66, description="Hex wei; given: a legacy (type 0) transaction.")
    gasLimit: str | None = Field(None, max_length=66, description="Hex; default: estimated.")
    value: str | None = Field(None, max_length=66, description="Hex wei; default 0x0.")


_EXAMPLE_SEND_TRANSACTION_REQUEST: dict[str, Any] = {
    "network": "polygon-pos",
    "transaction": {
        "from": "0x14723A09ACff6D2A60DcdF7aA4AFf308FDDC160C",
        "to": "0xc2132D05D31c914a87C6611C10748AEb04B58e8F",
        "data": "0x095ea7b3000000000000000000000000ab8483f64d9c6d1ecf9b849ae677dd3315835cb200000000000000000000000000000000000000000000000000000000000f4240",  # noqa: E501 - one hex string
        "value": "0x0",
        "gasLimit": "0xea60",
    },
}


class SendTransactionRequest(WalletRequest):
    model_config = ConfigDict(json_schema_extra={"examples": [_EXAMPLE_SEND_TRANSACTION_REQUEST]})

    transaction: RawTransaction


class TxSignature(WireModel):
    type_: str = Field(alias="_type", description='Always "signature".')
    networkV: str | None
    r: str
    s: str
    v: int


class TxReceipt(WireModel):
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


_EXAMPLE_SEND_RESULT: dict[str, Any] = {
    "txReceipt": {
        "_type": "TransactionReceipt",
        "accessList": None,
        "blockNumber": None,
        "blockHash": None,
        "chainId": "137",
        "data": "0x",
        "from": "0x14723A09ACff6D2A60DcdF7aA4AFf308FDDC160C",
        "gasLimit": "21000",
        "gasPrice": "30000000000",
        "hash": "0x8f3a1c5e7b9d2f4a6c8e0b1d3f5a7c9e1b3d5f7a9c2e4f6a8b0c2d4e6f8a0b2c",
        "maxFeePerGas": None,
        "maxPriorityFeePerGas": None,
        "nonce": 4,
        "signature": {
            "_type": "signature",
            "networkV": "309",
            "r": "0x1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a",
            "s": "0x2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b",
            "v": 28,
        },
        "to": "0xAb8483F64d9C6d1EcF9b849Ae677dD3315835cb2",
        "type": 0,
        "value": "10000000000000000",
    }
}


class SendResult(WireModel):
    model_config = ConfigDict(json_schema_extra={"examples": [_EXAMPLE_SEND_RESULT]})

    txReceipt: TxReceipt


_EXAMPLE_HASH = "0x8f3a1c5e7b9d2f4a6c8e0b1d3f5a7c9e1b3d5f7a9c2e4f6a8b0c2d4e6f8a0b2c"
_EXAMPLE_SPED_UP_HASH = "0x3c5e7a9b1d2f4a6c8e0b2d4f6a8c0e1b3d5f7a9c2e4b6d8f0a1c3e5b7d9f2a4c"
_EXAMPLE_TRANSACTION_VIEW: dict[str, Any] = {
    "hash": _EXAMPLE_HASH,
    "status": "mined",
    "network": "polygon-pos",
    "chainId": "137",
    "kind": "coin",
    "from": "0x14723A09ACff6D2A60DcdF7aA4AFf308FDDC160C",
    "to": "0xAb8483F64d9C6d1EcF9b849Ae677dD3315835cb2",
    "value": "10000000000000000",
    "nonce": 4,
    "blockNumber": 64128377,
    "blockHash": "0x6b9f2e4c1a3d5f7b9e8c0a2d4f6b8e0c1a3d5f7b9e2c4a6d8f0b1c3e5a7d9f1b",
    "gasUsed": "21000",
    "effectiveGasPrice": "36000000000",
    "failedReason": None,
    "minedHash": _EXAMPLE_SPED_UP_HASH,
    "replacements": [
        {
            "hash": _EXAMPLE_SPED_UP_HASH,
            "gasPrice": "36000000000",
            "reason": "speed_up",
            "createdAt": "2026-11-22T08:00:40.000Z",
        }
    ],
    "createdAt": "2026-11-22T08:00:00.000Z",
    "updatedAt": "2026-11-22T08:00:52.000Z",
    "txReceipt": {
        "_type": "TransactionReceipt",
        "accessList": None,
        "blockNumber": 64128377,
        "blockHash": "0x6b9f2e4c1a3d5f7b9e8c0a2d4f6b8e0c1a3d5f7b9e2c4a6d8f0b1c3e5a7d9f1b",
        "chainId": "137",
        "data": "0x",
        "from": "0x14723A09ACff6D2A60DcdF7aA4AFf308FDDC160C",
        "gasLimit": "21000",
        "gasPrice": "30000000000",
        "hash": _EXAMPLE_HASH,
        "maxFeePerGas": None,
        "maxPriorityFeePerGas": None,
        "nonce": 4,
        "signature": {
            "_type": "signature",
            "networkV": "309",
            "r": "0x1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a",
            "s": "0x2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b",
            "v": 28,
        },
        "to": "0xAb8483F64d9C6d1EcF9b849Ae677dD3315835cb2",
        "type": 0,
        "value": "10000000000000000",
    },
}

_REPLACEMENT_REASON_DOC = (
    "`bump`: re-priced by the tracker while the chain asked more; `speed_up` and `cancel`: asked for through the API."
)


class LegacyReplacement(WireModel):
    """A replacement of a legacy transaction: the same nonce, a higher gas price."""

    hash: str = Field(description="The replacement's hash; it answers the record too.")
    gasPrice: str = Field(description="Wei per gas (decimal string).")
    reason: Literal["bump", "speed_up", "cancel"] = Field(description=_REPLACEMENT_REASON_DOC)
    createdAt: str


class Eip1559Replacement(WireModel):
    """A replacement of an EIP-1559 transaction: the same nonce, both fees higher."""

    hash: str = Field(description="The replacement's hash; it answers the record too.")
    maxFeePerGas: str = Field(description="Wei per gas (decimal string).")
    maxPriorityFeePerGas: str = Field(description="Wei per gas (decimal string).")
    reason: Literal["bump", "speed_up", "cancel"] = Field(description=_REPLACEMENT_REASON_DOC)
    createdAt: str


class TransactionView(WireModel):
    """One transaction record: one per nonce, the first signature's and every replacement signed at its nonce."""

    model_config = ConfigDict(json_schema_extra={"examples": [_EXAMPLE_TRANSACTION_VIEW]})

    hash: str = Field(description="The first signature's hash (any hash in `replacements` finds this record too).")
    status: str = Field(
        description="`signing` (briefly, before its broadcast), `pending`, `mined`, `failed`, `dropped` or "
        "`cancelled` (its cancel was mined: nothing was sent)."
    )
    network: str
    chainId: str
    kind: str = Field(
        description="coin, token, erc721 or raw; `gap_fill`: a 0-value send to the wallet itself, signed by the "
        "service at a nonce left empty under a pending transaction."
    )
    from_: str = Field(alias="from")
    to: str | None
    value: str = Field(description="Native coin sent, in wei (decimal string).")
    nonce: int
    blockNumber: int | None
    blockHash: str | None
    gasUsed: str | None
    effectiveGasPrice: str | None
    failedReason: str | None
    minedHash: str | None = Field(
        description="The hash that was mined (the first signature's or a replacement's), once mined, failed or "
        "cancelled."
    )
    replacements: list[LegacyReplacement | Eip1559Replacement] = Field(
        description="Signatures at the same nonce after the first one, oldest first: the newest is the one on its "
        "way. Fees as in the transaction's type."
    )
    createdAt: str
    updatedAt: str
    txReceipt: TxReceipt = Field(description="The receipt answered when it was sent (the first signature's).")


# A list entry without replacements, mined at its own hash.
_EXAMPLE_LISTED: dict[str, Any] = {
    **_EXAMPLE_TRANSACTION_VIEW,
    "effectiveGasPrice": "30000000000",
    "minedHash": _EXAMPLE_HASH,
    "replacements": [],
    "updatedAt": "2026-11-22T08:00:12.000Z",
}
_EXAMPLE_TRANSACTION_PAGE: dict[str, Any] = {
    "data": [_EXAMPLE_LISTED],
    "pagination": {"total": 1, "page": 1, "limit": 20, "totalPages": 1, "hasNext": False, "hasPrev": False},
}


class TransactionPage(WireModel):
    model_config = ConfigDict(json_schema_extra={"examples": [_EXAMPLE_TRANSACTION_PAGE]})

    data: list[TransactionView]
    pagination: Pagination


def _fee(value: str) -> str:
    if not amounts.is_uint256(value):
        # The code travels with the error: the router answers it (docs/errors.md).
        raise PydanticCustomError("uint256", "must be a decimal integer from 0 to 2**256-1", {"code": INVALID_FEES})
    return value


# A fee offered for a replacement: wei per gas, a decimal uint256 string, else 400 INVALID_FEES naming the field.
Fee = Annotated[
    str,
    AfterValidator(_fee),
    Field(json_schema_extra={"pattern": amounts.UINT256_PATTERN, "maxLength": 78}),
]


class SpeedUpRequest(SecretRequest):
    """The fees of the replacement, in the transaction's own kind: `gasPrice` for a legacy transaction,
    `maxFeePerGas` and `maxPriorityFeePerGas` together for an EIP-1559 one; none: the next bump."""

    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {"maxFeePerGas": "80000000000", "maxPriorityFeePerGas": "3000000000"},
                {"gasPrice": "45000000000"},
                {},
            ]
        }
    )

    gasPrice: Fee | None = Field(
        None, description="Wei per gas, decimal; a legacy transaction only. At least 10% above its current one."
    )
    maxFeePerGas: Fee | None = Field(
        None,
        description="Wei per gas, decimal; an EIP-1559 transaction only, with maxPriorityFeePerGas. At least 10% "
        "above its current one.",
    )
    maxPriorityFeePerGas: Fee | None = Field(
        None,
        description="Wei per gas, decimal; an EIP-1559 transaction only, with maxFeePerGas, at most maxFeePerGas. At "
        "least 10% above its current one.",
    )


class CancelRequest(SecretRequest):
    """Nothing but the optional `secret`: the cancel is a 0-value send to the wallet itself at the transaction's
    nonce, at the next bump's fees."""

    model_config = ConfigDict(json_schema_extra={"examples": [{}]})


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


class MessageSignature(WireModel):
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


class TypedDataSignature(WireModel):
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


class SignatureView(WireModel):
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


class SignaturePage(WireModel):
    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {
                    "data": SignatureView.model_config["json_schema_extra"]["examples"],  # type: ignore[index]
                    "pagination": {
                        "total": 1,
                        "page": 1,
                        "limit": 20,
                        "totalPages": 1,
                        "hasNext": False,
                        "hasPrev": False,
                    },
                }
            ]
        }
    )

    data: list[SignatureView]
    pagination: Pagination
