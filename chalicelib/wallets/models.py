"""Bodies of the wallet routes (Family W, wallet token)."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import AfterValidator, ConfigDict, Field
from pydantic_core import PydanticCustomError

from chalicelib.evm import digests
from chalicelib.evm.transactions import MAX_AUTHORIZATIONS
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


# Example values shared by several fields.
_EXAMPLE_WALLET = "0x14723A09ACff6D2A60DcdF7aA4AFf308FDDC160C"
_EXAMPLE_DELEGATE = "0x5FbDB2315678afecb367f032d93F642f64180aa3"
_EXAMPLE_RECIPIENT = "0xAb8483F64d9C6d1EcF9b849Ae677dD3315835cb2"
_EXAMPLE_USDT = "0xc2132D05D31c914a87C6611C10748AEb04B58e8F"
_EXAMPLE_NFT = "0x2cF7252e74036d1Da831d11089D326296e64a728"
_EXAMPLE_EXPIRE_DATE = "2026-11-23T08:00:00Z"
_EXAMPLE_SECRET0 = "dps0_AQIDBAUGBwgJCgsMDQ4PEBESExQVFhcYGRobHB0eHyA"
_EXAMPLE_HASH = "0x8f3a1c5e7b9d2f4a6c8e0b1d3f5a7c9e1b3d5f7a9c2e4f6a8b0c2d4e6f8a0b2c"
_EXAMPLE_SPED_UP_HASH = "0x3c5e7a9b1d2f4a6c8e0b2d4f6a8c0e1b3d5f7a9c2e4b6d8f0a1c3e5b7d9f2a4c"
_EXAMPLE_BLOCK_HASH = "0x6b9f2e4c1a3d5f7b9e8c0a2d4f6b8e0c1a3d5f7b9e2c4a6d8f0b1c3e5a7d9f1b"


class WalletRequest(SecretRequest):
    """The common wallet parameters of the interface."""

    network: str | None = Field(
        None,
        max_length=40,
        description="Network name; required when chainId is empty.",
        examples=["polygon-pos"],
    )
    chainId: str | None = Field(
        None, max_length=20, description="Chain id as a decimal string; required when network is empty."
    )


class TokenBalanceRequest(WalletRequest):
    example_overrides = {"network": None, "chainId": "137"}  # the other way to name the chain

    tokenAddress: str = Field(max_length=42, description="ERC-20 contract address.", examples=[_EXAMPLE_USDT])


class Balance(WireModel):
    balance: str = Field(description="Exact decimal amount in human units.", examples=["1.25"])
    symbol: str = Field(examples=["POL"])
    address: str = Field(description="The wallet address.", examples=[_EXAMPLE_WALLET])


_EXPIRE_DATE_DOC = (
    "Expiry of the returned wallet token: an RFC 3339 date-time, or a date (midnight UTC at its start). "
    "At most 30 days ahead; default the service's wallet-token lifetime."
)


class CreateWalletRequest(WireModel):
    model_config = ConfigDict(extra="forbid")

    expireDate: str | None = Field(None, max_length=40, description=_EXPIRE_DATE_DOC, examples=[_EXAMPLE_EXPIRE_DATE])


class RecoverWalletRequest(WireModel):
    """JSON `{secret0}`; or multipart/form-data with the recovery file in part `file`."""

    model_config = ConfigDict(extra="forbid")

    secret0: str | None = Field(
        None, max_length=16_384, description="The wallet's secret0 (JSON body).", examples=[_EXAMPLE_SECRET0]
    )
    file: str | None = Field(
        None, max_length=16_384, description="The recovery file `<address>.service` (multipart part), content secret0."
    )
    expireDate: str | None = Field(None, max_length=40, description=_EXPIRE_DATE_DOC, examples=[_EXAMPLE_EXPIRE_DATE])

    @property
    def presented(self) -> str | None:
        return self.secret0 if self.secret0 is not None else self.file


class ImportWalletRequest(WireModel):
    model_config = ConfigDict(extra="forbid")

    privateKey: str = Field(
        max_length=66,
        description="The secp256k1 private key to import: 64 hex digits, optionally 0x-prefixed.",
        examples=["0x4c0883a69102937d6231471b5dbb6204fe5129617082792ae468d01a3f362318"],
    )
    expireDate: str | None = Field(None, max_length=40, description=_EXPIRE_DATE_DOC, examples=[_EXAMPLE_EXPIRE_DATE])


class WalletCreated(WireModel):
    """The interface's MPC wallet creation result, plus a refresh token for later logins."""

    walletToken: str = Field(
        description="JWT for the wallet operation endpoints.",
        examples=[
            "eyJhbGciOiJFZERTQSIsImtpZCI6IjIwMjYxMTIyLWM2NzljNDVkIiwidHlwIjoiSldUIn0."
            "eyJpc3MiOiJkb21wZXQiLCJraW5kIjoid2FsbGV0In0.c2lnbmF0dXJl"
        ],
    )
    refreshToken: str = Field(
        description="Single-use refresh token (see docs/authentication.md).",
        examples=["drt_Q2xpZW50IHJlZnJlc2ggdG9rZW4gZXhhbXBsZQ"],
    )
    secret0: str = Field(
        description="Share C sealed for this wallet; the user saves it as `<address>.service`.",
        examples=[_EXAMPLE_SECRET0],
    )
    secret0Link: str = Field(
        description="Presigned download of that file; expires 300 s after this response.",
        examples=["https://storage.example.com/recovery/0x14723a09.service?X-Amz-Expires=300"],
    )
    address: str = Field(description="The wallet's checksummed address.", examples=[_EXAMPLE_WALLET])


class SendCoinRequest(WalletRequest):
    to: str = Field(max_length=42, description="Recipient address.", examples=[_EXAMPLE_RECIPIENT])
    amount: str = Field(
        max_length=100,
        description="Native coin in ether units, an exact decimal string (≤ 18 places).",
        examples=["0.01"],
    )


class SendTokenRequest(WalletRequest):
    to: str = Field(max_length=42, description="Recipient address.", examples=[_EXAMPLE_RECIPIENT])
    amount: str = Field(
        max_length=100, description="Token amount in the token's units (its decimals() places).", examples=["1.5"]
    )
    tokenAddress: str = Field(max_length=42, description="ERC-20 contract address.", examples=[_EXAMPLE_USDT])


class TransferErc721Request(WalletRequest):
    to: str = Field(max_length=42, description="Recipient address.", examples=[_EXAMPLE_RECIPIENT])
    tokenId: str = Field(max_length=78, description="The token id, a decimal uint256.", examples=["42"])
    tokenAddress: str = Field(max_length=42, description="ERC-721 contract address.", examples=[_EXAMPLE_NFT])


class RawTransaction(WireModel):
    """A raw transaction, every field a hex string. Missing gas fields are filled in by the service."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    from_: str = Field(
        alias="from", max_length=42, description="Must be the wallet's address.", examples=[_EXAMPLE_WALLET]
    )
    to: str | None = Field(None, max_length=42, examples=[_EXAMPLE_USDT])
    data: str | None = Field(
        None,
        max_length=262_144,
        description="0x-prefixed call data.",
        examples=[
            "0x095ea7b3000000000000000000000000ab8483f64d9c6d1ecf9b849ae677dd3315835cb2"
            "00000000000000000000000000000000000000000000000000000000000f4240"
        ],
    )
    nonce: str | None = Field(None, max_length=66, description="Hex; default: the wallet's next nonce.")
    gasPrice: str | None = Field(None, max_length=66, description="Hex wei; given: a legacy (type 0) transaction.")
    gasLimit: str | None = Field(None, max_length=66, description="Hex; default: estimated.", examples=["0xea60"])
    value: str | None = Field(None, max_length=66, description="Hex wei; default 0x0.", examples=["0x0"])
    authorizationList: list[AuthorizationListEntry] | None = Field(
        None,
        min_length=1,
        max_length=MAX_AUTHORIZATIONS,
        description="Signed EIP-7702 authorizations: given, the transaction is a set-code transaction (type 4, "
        "EIP-1559 fees, `to` required). Entries as POST /api/v1/wallet/sign-authorization answers them; the "
        "wallet's own authorization must name its nonce + 1 (the transaction's nonce is used first).",
        examples=[None],
    )


class SendTransactionRequest(WalletRequest):
    transaction: RawTransaction


class TxSignature(WireModel):
    type_: str = Field(alias="_type", description='Always "signature".', examples=["signature"])
    networkV: str | None = Field(examples=["309"])
    r: str = Field(examples=["0x1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a"])
    s: str = Field(examples=["0x2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b"])
    v: int = Field(examples=[28])


class TxReceipt(WireModel):
    """ethers v6's JSON of a pending transaction (see docs/wallets.md)."""

    type_: str = Field(alias="_type", description='Always "TransactionReceipt".', examples=["TransactionReceipt"])
    accessList: list[Any] | None
    blockNumber: int | None
    blockHash: str | None
    chainId: str = Field(examples=["137"])
    data: str = Field(examples=["0x"])
    from_: str = Field(alias="from", examples=[_EXAMPLE_WALLET])
    gasLimit: str = Field(examples=["21000"])
    gasPrice: str | None = Field(examples=["30000000000"])
    hash: str = Field(examples=[_EXAMPLE_HASH])
    maxFeePerGas: str | None
    maxPriorityFeePerGas: str | None
    nonce: int = Field(examples=[4])
    signature: TxSignature
    to: str | None = Field(examples=[_EXAMPLE_RECIPIENT])
    type: int = Field(description="0 legacy, 2 EIP-1559, 4 set-code (EIP-7702).", examples=[0])
    value: str = Field(examples=["10000000000000000"])
    authorizationList: list[AuthorizationEntry] | None = Field(
        None, description="A type-4 transaction's signed authorizations; absent for any other type."
    )


class SendResult(WireModel):
    txReceipt: TxReceipt


_REPLACEMENT_REASON_DOC = (
    "`bump`: re-priced by the tracker while the chain asked more; `speed_up` and `cancel`: asked for through the API."
)


class LegacyReplacement(WireModel):
    """A replacement of a legacy transaction: the same nonce, a higher gas price."""

    hash: str = Field(
        description="The replacement's hash; it answers the record too.", examples=[_EXAMPLE_SPED_UP_HASH]
    )
    gasPrice: str = Field(description="Wei per gas (decimal string).", examples=["36000000000"])
    reason: Literal["bump", "speed_up", "cancel"] = Field(description=_REPLACEMENT_REASON_DOC, examples=["speed_up"])
    createdAt: str = Field(examples=["2026-11-22T08:00:40.000Z"])


class Eip1559Replacement(WireModel):
    """A replacement of an EIP-1559 transaction: the same nonce, both fees higher."""

    hash: str = Field(
        description="The replacement's hash; it answers the record too.", examples=[_EXAMPLE_SPED_UP_HASH]
    )
    maxFeePerGas: str = Field(description="Wei per gas (decimal string).", examples=["80000000000"])
    maxPriorityFeePerGas: str = Field(description="Wei per gas (decimal string).", examples=["3000000000"])
    reason: Literal["bump", "speed_up", "cancel"] = Field(description=_REPLACEMENT_REASON_DOC, examples=["speed_up"])
    createdAt: str = Field(examples=["2026-11-22T08:00:40.000Z"])


class TransactionView(WireModel):
    """One transaction record: one per nonce, the first signature's and every replacement signed at its nonce."""

    hash: str = Field(
        description="The first signature's hash (any hash in `replacements` finds this record too).",
        examples=[_EXAMPLE_HASH],
    )
    status: str = Field(
        description="`signing` (briefly, before its broadcast), `pending`, `mined`, `failed`, `dropped` or "
        "`cancelled` (its cancel was mined: nothing was sent).",
        examples=["mined"],
    )
    network: str = Field(examples=["polygon-pos"])
    chainId: str = Field(examples=["137"])
    kind: str = Field(
        description="coin, token, erc721 or raw; `gap_fill`: a 0-value send to the wallet itself, signed by the "
        "service at a nonce left empty under a pending transaction.",
        examples=["coin"],
    )
    from_: str = Field(alias="from", examples=[_EXAMPLE_WALLET])
    to: str | None = Field(examples=[_EXAMPLE_RECIPIENT])
    value: str = Field(description="Native coin sent, in wei (decimal string).", examples=["10000000000000000"])
    nonce: int = Field(examples=[4])
    blockNumber: int | None = Field(examples=[64128377])
    blockHash: str | None = Field(examples=[_EXAMPLE_BLOCK_HASH])
    gasUsed: str | None = Field(examples=["21000"])
    effectiveGasPrice: str | None = Field(examples=["36000000000"])
    failedReason: str | None
    minedHash: str | None = Field(
        description="The hash that was mined (the first signature's or a replacement's), once mined, failed or "
        "cancelled.",
        examples=[_EXAMPLE_SPED_UP_HASH],
    )
    replacements: list[LegacyReplacement | Eip1559Replacement] = Field(
        description="Signatures at the same nonce after the first one, oldest first: the newest is the one on its "
        "way. Fees as in the transaction's type."
    )
    createdAt: str = Field(examples=["2026-11-22T08:00:00.000Z"])
    updatedAt: str = Field(examples=["2026-11-22T08:00:52.000Z"])
    txReceipt: TxReceipt = Field(description="The receipt answered when it was sent (the first signature's).")


class TransactionPage(WireModel):
    # A list entry without replacements, mined at its own hash.
    example_overrides = {
        "data": [
            {
                "effectiveGasPrice": "30000000000",
                "minedHash": _EXAMPLE_HASH,
                "replacements": [],
                "updatedAt": "2026-11-22T08:00:12.000Z",
            }
        ]
    }

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

    gasPrice: Fee | None = Field(
        None, description="Wei per gas, decimal; a legacy transaction only. At least 10% above its current one."
    )
    maxFeePerGas: Fee | None = Field(
        None,
        description="Wei per gas, decimal; an EIP-1559 transaction only, with maxPriorityFeePerGas. At least 10% "
        "above its current one.",
        examples=["80000000000"],
    )
    maxPriorityFeePerGas: Fee | None = Field(
        None,
        description="Wei per gas, decimal; an EIP-1559 transaction only, with maxFeePerGas, at most maxFeePerGas. At "
        "least 10% above its current one.",
        examples=["3000000000"],
    )


class CancelRequest(SecretRequest):
    """Nothing but the optional `secret`: the cancel is a 0-value send to the wallet itself at the transaction's
    nonce, at the next bump's fees."""


MAX_MESSAGE_BYTES = 64 * 1024  # as typed data's limit: ample for SIWE and app messages, bounded for the parties
_SECRET_NOTE = "Without `secret` shares A and B sign; with it, A and C."
_EXAMPLE_SIGNER = "0x19E7E376E7C213B7E7e7e46cc70A5dD086DAff2A"
_EXAMPLE_TYPED_HASH = "0xb93fae8a6aa0064bce0bcc3b12d708b28c545fb889ac312cb19d08dfca63a5e5"
_EXAMPLE_PERMIT_CONTRACT = "0x5FbDB2315678afecb367f032d93F642f64180aa3"
# An EIP-2612 permit, the typed data of the examples (MessageSignature and TypedDataSignature sign it).
_PERMIT_TYPED_DATA: dict[str, Any] = {
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
    "domain": {"name": "Permit Token", "version": "1", "chainId": 31337, "verifyingContract": _EXAMPLE_PERMIT_CONTRACT},
    "message": {
        "owner": _EXAMPLE_SIGNER,
        "spender": "0x70997970C51812dc3A010C7d01b50e0d17dc79C8",
        "value": "1000000000000000000",
        "nonce": 0,
        "deadline": 1893456000,
    },
}


class SignMessageRequest(SecretRequest):
    """An EIP-191 personal message (`personal_sign`). No `network`: the signature is not bound to a chain."""

    message: str = Field(
        description=f"The message: text (signed as its UTF-8 bytes) or, with `encoding: hex`, 0x-prefixed hex bytes. "
        f"At most {MAX_MESSAGE_BYTES} bytes (400 MESSAGE_TOO_LARGE). {_SECRET_NOTE}",
        json_schema_extra={"maxLength": 2 + 2 * MAX_MESSAGE_BYTES},
        examples=["Sign in to app.example.com\nNonce: 8f3c2a1b"],
    )
    encoding: Literal["utf8", "hex"] = Field(
        "utf8", description="`utf8` (default): `message` is text; `hex`: `message` is 0x-prefixed bytes."
    )


class SignTypedDataRequest(SecretRequest):
    """An EIP-712 document (`eth_signTypedData_v4`). The chain is the one its `domain.chainId` names."""

    typedData: dict[str, Any] = Field(
        description="`{types, primaryType, domain, message}` as `eth_signTypedData_v4` takes it; `EIP712Domain` may "
        "be left out of `types` (derived from the domain's fields). At most 64 KiB as canonical JSON.",
        examples=[_PERMIT_TYPED_DATA],
    )


class SignAuthorizationRequest(WalletRequest):
    """An EIP-7702 authorization: the wallet lets `contractAddress`'s code run as its own account."""

    example_overrides = {"chainId": None}  # the chain by its network's name

    chainId: str | None = Field(
        None,
        max_length=20,
        description='The chain id as a decimal string, or "0": an authorization valid on any chain (then `nonce` '
        "is required and `network` is not given). Required when network is empty.",
        examples=["31337"],
    )
    contractAddress: str = Field(
        max_length=42,
        description="The delegate: the contract whose code the wallet runs once the authorization is applied; the "
        "zero address revokes a delegation.",
        examples=[_EXAMPLE_DELEGATE],
    )
    nonce: int | None = Field(
        None,
        ge=0,
        le=digests.MAX_AUTHORIZATION_NONCE,
        strict=True,
        description="The wallet's account nonce the authorization is valid at. Default: its current nonce on the "
        "chain (pending transactions included). A type-4 transaction the wallet itself sends needs its own nonce + 1.",
        examples=[0],
    )


class DelegateRequest(WalletRequest):
    """A set-code transaction from the wallet to itself carrying its own authorization of `contractAddress`."""

    example_overrides = {"chainId": None}

    contractAddress: str = Field(
        max_length=42,
        description="The delegate: the contract whose code the wallet runs from then on; the zero address revokes "
        "the wallet's delegation (its code is empty again).",
        examples=[_EXAMPLE_DELEGATE],
    )


class AuthorizationEntry(WireModel):
    """A signed EIP-7702 authorization tuple: an entry of a type-4 transaction's `authorizationList`."""

    chainId: int = Field(description="The chain id signed; 0: any chain.", examples=[31337])
    address: str = Field(description="The delegate's checksummed address.", examples=[_EXAMPLE_DELEGATE])
    nonce: int = Field(description="The account nonce signed.", examples=[0])
    yParity: int = Field(description="0 or 1.", examples=[1])
    r: str = Field(
        description="0x + 32 bytes.", examples=["0x523190a6dee728f9e70cfbf19ca6e8040bf5234cc0e77a6f274abcbd20c9ae66"]
    )
    s: str = Field(
        description="0x + 32 bytes, in the lower half of the curve order (low s).",
        examples=["0x38242bd0e4db1dae3a7e3b90d807117babc0deb7a32917f508099a0bfefd42d4"],
    )


class AuthorizationListEntry(WireModel):
    """An authorization a transaction carries, as POST /api/v1/wallet/sign-authorization answers it (`hash`, when
    given, must be the tuple's). Integers are JSON numbers."""

    model_config = ConfigDict(extra="forbid")

    chainId: int = Field(ge=0, le=digests.MAX_AUTHORIZATION_CHAIN_ID, strict=True, examples=[31337])
    address: str = Field(max_length=42, examples=[_EXAMPLE_DELEGATE])
    nonce: int = Field(ge=0, le=digests.MAX_AUTHORIZATION_NONCE, strict=True, examples=[1])
    yParity: int = Field(ge=0, le=1, strict=True, examples=[1])
    r: str = Field(max_length=66, examples=["0x523190a6dee728f9e70cfbf19ca6e8040bf5234cc0e77a6f274abcbd20c9ae66"])
    s: str = Field(max_length=66, examples=["0x38242bd0e4db1dae3a7e3b90d807117babc0deb7a32917f508099a0bfefd42d4"])
    hash: str | None = Field(None, max_length=66)


class AuthorizationSignature(AuthorizationEntry):
    """A signed authorization tuple, as an `authorizationList` entry takes it."""

    hash: str = Field(
        description="The digest signed: keccak256(0x05 ‖ rlp([chainId, address, nonce])).",
        examples=["0x541d79c5dbb2a068caba3139f371fe918139b6992603ba3470f3aa798b149f9b"],
    )


class MessageSignature(WireModel):
    signature: str = Field(
        description="0x + 65 bytes r ‖ s ‖ v, v 27 or 28 (what ethers and viem produce).",
        examples=[
            "0x59da11c5f0368aeb6881aeb5a1c5d6350e29e79bfceb74934bd2a1b4f1d136e55f37fdf6d975dac32"
            "0237a0d48e9cd269be39dbbcfe55ce2e5fb9f5534ec98421b"
        ],
    )
    address: str = Field(
        description="The wallet's checksummed address: what the signature recovers to.", examples=[_EXAMPLE_SIGNER]
    )
    messageHash: str = Field(
        description='The EIP-191 digest signed: keccak256("\\x19Ethereum Signed Message:\\n" + length + message).',
        examples=["0xa79c786e56960307571f7fbc08bf948bec30e6c3281ed8b7ef1981cffab35a48"],
    )


class TypedDataSignature(WireModel):
    signature: str = Field(
        description="0x + 65 bytes r ‖ s ‖ v, v 27 or 28.",
        examples=[
            "0xaa1d2518281d808001dab06a443742b4ef8eecb501b243ad7bc979b967fb203c146e14147c5aad579"
            "2a23c117863c231f403321e83e91e820e04ef297116957c1c"
        ],
    )
    address: str = Field(
        description="The wallet's checksummed address: what the signature recovers to.", examples=[_EXAMPLE_SIGNER]
    )
    hash: str = Field(
        description="The EIP-712 digest signed: keccak256(0x1901 ‖ domainSeparator ‖ hashStruct).",
        examples=[_EXAMPLE_TYPED_HASH],
    )
    domainSeparator: str = Field(
        description="hashStruct(EIP712Domain) of the document's domain.",
        examples=["0xda4fc6a9a15b5c8a2aa7bcd2f80a42dcf859832549cb194b9892aeaa5c604fd0"],
    )


class SignatureView(WireModel):
    """A message signature in the wallet's history: what was signed, never the message or the signature."""

    kind: Literal["personal_message", "typed_data", "authorization"] = Field(examples=["typed_data"])
    hash: str = Field(
        description="The digest signed (`messageHash` or `hash` of the answer).", examples=[_EXAMPLE_TYPED_HASH]
    )
    primaryType: str | None = Field(description="Typed data: the document's primaryType.", examples=["Permit"])
    chainId: str | None = Field(
        description="Typed data: `domain.chainId` as a decimal string, when it has one; an authorization: its chain "
        'id ("0": any chain).',
        examples=["31337"],
    )
    verifyingContract: str | None = Field(
        description="Typed data: `domain.verifyingContract`, when it has one.", examples=[_EXAMPLE_PERMIT_CONTRACT]
    )
    contractAddress: str | None = Field(None, description="An authorization: its delegate.", examples=[None])
    createdAt: str = Field(examples=["2026-11-22T10:00:00.000Z"])


class SignaturePage(WireModel):
    data: list[SignatureView]
    pagination: Pagination
