"""Bodies and answers of the signing-policy routes (Family S: the app of the request signature)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import ConfigDict, Field, model_validator
from pydantic_core import PydanticCustomError

from chalicelib.evm import digests
from chalicelib.platform.addresses import Address
from chalicelib.platform.amounts import Uint256
from chalicelib.platform.wire import WireModel

MAX_SIGNATURE_CHARS = 200  # base64 of a 64-byte Ed25519 signature is 88; room for padding mistakes, not for junk
MAX_PUBLIC_KEY_CHARS = 200  # base64 of a 32-byte key is 44
MAX_MESSAGE_BYTES = 64 * 1024  # as the wallet's sign-message route
MAX_DATA_CHARS = 262_144  # as the wallet's send-transaction route
HEX_BYTES = r"^0x([0-9a-fA-F]{2})*$"

_EXAMPLE_TOKEN = "0x5fbdb2315678afecb367f032d93f642f64180aa3"
# The policy document of the examples (a field's value).
_POLICY_DOCUMENT: dict[str, Any] = {
    "version": 3,
    "default": "allow",
    "networks": ["local-a"],
    "transactions": {
        "maxValue": {"native": "1000000000000000000", _EXAMPLE_TOKEN: "500000000"},
        "maxValuePer24h": {"native": "5000000000000000000", _EXAMPLE_TOKEN: "2000000000"},
        "maxCountPer24h": 100,
        "destinations": {"deny": ["0x000000000000000000000000000000000000dead"]},
        "contracts": [{"address": _EXAMPLE_TOKEN, "selectors": ["0xa9059cbb", "0x095ea7b3"]}],
        "raw": False,
    },
    "messages": {
        "personal": True,
        "typedData": [{"chainId": 31337, "verifyingContract": _EXAMPLE_TOKEN, "primaryType": "Permit"}],
    },
}
# A real signature of _POLICY_DOCUMENT (key seed bytes 0..31; docs/policies.md shows the same key).
_EXAMPLE_SIGNATURE = "+y3ooEq20qT/GA7wTw2a5FRR2VS/ymyMdqmtqlsiuksa9Ulq83gNGAQKpvE4sepSkoBsZj0h3EXf9Gq1pHRYBw=="
_EXAMPLE_KEY_ID = "pk_56475aa75463474c"
_EXAMPLE_NEW_KEY = "Kay64UG8yvCyLhqU000LxzYeUm0L/hLIl5S8kyKWbdc="
# The current key's signature of the rotation to _EXAMPLE_NEW_KEY, for app 0d6f3a52-6f0e-4b8e-9d53-2b8f4c1e7a10.
_EXAMPLE_ROTATION = "f9Kt9wJbzqni/qRX4kctkB6YBIqJSNoVEi8/7y70O/BDJZaH+Usmqfg2iC7IcjbEw884pxK8N5QqPE/xGRJwCQ=="


class PolicyBody(WireModel):
    """`PUT /api/v1/policies`: the document and the policy key's signature of it for this app (canonical JSON)."""

    model_config = ConfigDict(extra="forbid")

    policy: dict[str, Any] = Field(
        description="The policy document (docs/policies.md), at most 64 KiB of JSON. Signed exactly as sent: the "
        'signature is over the RFC 8785 (JCS) canonical JSON of `{"appId": <appId>, "policy": <policy>}`.',
        examples=[_POLICY_DOCUMENT],
    )
    signature: str = Field(
        max_length=MAX_SIGNATURE_CHARS,
        description="Base64 of the Ed25519 signature by the app's policy key of the canonical JSON of "
        '`{"appId": <this app\'s id>, "policy": <policy>}`: a document signed for another app is refused.',
        examples=[_EXAMPLE_SIGNATURE],
    )


class PolicySet(WireModel):
    version: int = Field(description="The version now in force.", examples=[3])
    keyId: str = Field(
        description="The policy key that signed it (`pk_` + 16 hex digits of its SHA-256).", examples=[_EXAMPLE_KEY_ID]
    )
    setAt: str = Field(
        description="When the cosigner stored it (RFC 3339, UTC).", examples=["2026-11-22T10:00:00.000Z"]
    )


class PolicyView(WireModel):
    policy: dict[str, Any] | None = Field(
        description="The document in force, as it was signed; null when none is.", examples=[_POLICY_DOCUMENT]
    )
    version: int | None = Field(description="Its version; null when no document is in force.", examples=[3])
    keyId: str | None = Field(
        description="The app's policy key; null when the operator registered none.", examples=[_EXAMPLE_KEY_ID]
    )
    keySequence: int | None = Field(
        None,
        description="The key's sequence number: a rotation signs the next one. Null when no key is registered.",
        examples=[1],
    )
    keyRegistered: bool = Field(
        description="Whether a policy key is registered. Without one the app's wallets sign as before policies.",
        examples=[True],
    )


class TransactionToEvaluate(WireModel):
    """A would-be transaction: what the engine reads of a send (its chain, recipient, value and call data)."""

    model_config = ConfigDict(extra="forbid")

    network: str = Field(
        max_length=40, description="A network name of the service (`GET /api/v1/networks`).", examples=["local-a"]
    )
    to: Address = Field(examples=["0x70997970C51812dc3A010C7d01b50e0d17dc79C8"])
    value: Uint256 = Field(
        "0", description="Native coin sent, in base units (wei), as a decimal string.", examples=["250000000000000000"]
    )
    data: str = Field(
        "0x",
        max_length=MAX_DATA_CHARS,
        pattern=HEX_BYTES,
        description="0x-prefixed call data (hex bytes, an even number of digits).",
    )


class AuthorizationToEvaluate(WireModel):
    """A would-be EIP-7702 authorization: its chain (`network`, or `chainId`, "0" for any chain) and its delegate."""

    model_config = ConfigDict(extra="forbid")
    example_overrides = {"network": None}  # the chain by its id: any chain

    network: str | None = Field(
        None, max_length=40, description="A network name of the service; or give `chainId`.", examples=["local-a"]
    )
    chainId: str | None = Field(
        None,
        pattern=r"^(0|[1-9][0-9]{0,77})$",
        description='The chain id as a decimal string; "0" is an authorization valid on any chain.',
        examples=["0"],
    )
    contractAddress: Address = Field(
        description="The delegate: the contract whose code the wallet would run (the zero address revokes).",
        examples=["0x5FbDB2315678afecb367f032d93F642f64180aa3"],
    )
    nonce: int = Field(
        0, ge=0, le=digests.MAX_AUTHORIZATION_NONCE, strict=True, description="The account nonce (no rule reads it)."
    )

    @model_validator(mode="after")
    def _one_chain(self) -> AuthorizationToEvaluate:
        if (self.network is None) == (self.chainId is None):
            raise PydanticCustomError("one_chain", "give exactly one of network and chainId")
        if self.chainId is not None and int(self.chainId) > digests.MAX_AUTHORIZATION_CHAIN_ID:
            raise PydanticCustomError("chain_id", "chainId is at most 2**256 - 1")
        return self


class EvaluateBody(WireModel):
    """`POST /api/v1/policies/evaluate`: exactly one of `transaction`, `message`, `typedData`, `authorization`."""

    model_config = ConfigDict(extra="forbid")

    transaction: TransactionToEvaluate | None = None
    message: str | None = Field(
        None,
        description="A personal message: text (its UTF-8 bytes) or, with `encoding: hex`, 0x-prefixed hex bytes; at "
        f"most {MAX_MESSAGE_BYTES} bytes.",
        json_schema_extra={"maxLength": 2 + 2 * MAX_MESSAGE_BYTES},
    )
    encoding: Literal["utf8", "hex"] = Field("utf8", description="How `message` is written (as in sign-message).")
    typedData: dict[str, Any] | None = Field(
        None, description="An EIP-712 document as `eth_signTypedData_v4` takes it (as in sign-typed-data)."
    )
    authorization: AuthorizationToEvaluate | None = Field(
        None, description="An EIP-7702 authorization (as in sign-authorization).", examples=[None]
    )
    walletAddress: Address | None = Field(
        None,
        description="A wallet of the app's client: its rolling 24 h totals count against `maxValuePer24h` and "
        "`maxCountPer24h`. Without it they count from zero.",
        examples=["0x19E7E376E7C213B7E7e7e46cc70A5dD086DAff2A"],
    )

    @model_validator(mode="after")
    def _exactly_one(self) -> EvaluateBody:
        payloads = (self.transaction, self.message, self.typedData, self.authorization)
        if sum(payload is not None for payload in payloads) != 1:
            raise PydanticCustomError(
                "one_payload", "give exactly one of transaction, message, typedData and authorization"
            )
        return self


class Evaluation(WireModel):
    allowed: bool = Field(examples=[False])
    rule: str = Field(
        description="The deciding rule's path in the document, e.g. `transactions.destinations.allow`.",
        examples=["transactions.maxValuePer24h.native"],
    )
    reason: str = Field(
        description="One sentence for humans; may change.",
        examples=[
            "This sends 1000000000000000000 base units of the native coin after 4500000000000000000 in the last 24 "
            "hours, over the limit of 5000000000000000000."
        ],
    )


class KeyRotationBody(WireModel):
    """`PUT /api/v1/policies/key`: the new key, signed by the current one."""

    model_config = ConfigDict(extra="forbid")

    publicKey: str = Field(
        max_length=MAX_PUBLIC_KEY_CHARS,
        description="Base64 of the new Ed25519 public key.",
        examples=[_EXAMPLE_NEW_KEY],
    )
    signature: str = Field(
        max_length=MAX_SIGNATURE_CHARS,
        description='Base64 of the CURRENT key\'s Ed25519 signature of the canonical JSON of `{"action": '
        '"rotate-policy-key", "appId": <appId>, "publicKey": <publicKey>, "sequence": <current sequence + 1>}`.',
        examples=[_EXAMPLE_ROTATION],
    )


class KeyRotated(WireModel):
    keyId: str = Field(description="The new key's id.", examples=["pk_24f6ed6acbfe1009"])
    sequence: int = Field(description="The new key's sequence number (the operator's registration is 1).", examples=[2])
