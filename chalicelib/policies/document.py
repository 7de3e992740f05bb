"""The policy document: one JSON object per app, validated strictly before anyone stores or evaluates it.

A document that does not validate is refused whole with the dotted path of its first bad field (a policy that
half-applies would be worse than none). Types are strict (no `"true"` for a boolean, no `3.0` for a version):
the document is signed as sent, so what the engine reads must be exactly what the signer wrote. Addresses and
selectors are kept in lower case, so the engine compares them as strings.
"""

from __future__ import annotations

import json
import re
from collections.abc import Collection, Mapping
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, ConfigDict, Field, ValidationError, field_validator
from pydantic_core import PydanticCustomError

from chalicelib.platform.addresses import ADDRESS_PATTERN, checksum_address
from chalicelib.platform.errors import ApiError
from chalicelib.platform.networks import registry
from chalicelib.platform.wire import WireModel

__all__ = [
    "INVALID_POLICY",
    "MAX_POLICY_BYTES",
    "NATIVE",
    "POLICY_TOO_LARGE",
    "AuthorizationRules",
    "ContractRule",
    "Destinations",
    "MessageRules",
    "PolicyDocument",
    "PolicyDocumentError",
    "TransactionRules",
    "TypedDataRule",
]

INVALID_POLICY = "INVALID_POLICY"
POLICY_TOO_LARGE = "POLICY_TOO_LARGE"
# Measured on the compact JSON (UTF-8, no white space): for a valid document, the size of its canonical form.
MAX_POLICY_BYTES = 64 * 1024
NATIVE = "native"
# The root of the document in error fields (fields inside it are named without a prefix: "transactions.raw").
ROOT_FIELD = "policy"
# Integers a JSON number carries exactly (RFC 8785 refuses larger ones): a version or count beyond it is a typo.
_MAX_JSON_INT = 2**53 - 1
_AMOUNT = re.compile(r"[0-9]{1,78}")
_SELECTOR = re.compile(r"0x[0-9a-fA-F]{8}")
_ADDRESS = re.compile(ADDRESS_PATTERN)
_FIELD_PART = 66  # longest path segment echoed in an error (an address or asset key is 42)


class PolicyDocumentError(ValueError):
    """A document refused: `code` INVALID_POLICY or POLICY_TOO_LARGE, `field` the dotted path of the problem."""

    def __init__(self, code: str, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}")
        self.code = code
        self.field = field
        self.message = message


def _address(value: str) -> str:
    if not _ADDRESS.fullmatch(value):
        raise PydanticCustomError("address", "must be a 0x-prefixed 20-byte hex address")
    if value[2:] in (value[2:].lower(), value[2:].upper()):
        return value.lower()  # no checksum to check
    try:
        checksum_address(value, "address")
    except ApiError:
        # Mixed case is a checksum, and a wrong one is most likely a mistyped address: refuse it.
        raise PydanticCustomError(
            "address", "wrong EIP-55 checksum (write the address in lower case or in its EIP-55 form)"
        ) from None
    return value.lower()


def _amount(value: str) -> str:
    if not _AMOUNT.fullmatch(value):
        raise PydanticCustomError("amount", "must be an amount in base units: a string of at most 78 decimal digits")
    return value


def _selector(value: str) -> str:
    if not _SELECTOR.fullmatch(value):
        raise PydanticCustomError("selector", "must be a 4-byte function selector: 0x and 8 hex digits")
    return value.lower()


def _asset(value: str) -> str:
    if value == NATIVE:
        return value
    if not _ADDRESS.fullmatch(value):
        raise PydanticCustomError("asset", 'an asset is "native" or a token contract address')
    return _address(value)


Address = Annotated[str, AfterValidator(_address)]
Amount = Annotated[str, AfterValidator(_amount)]
Selector = Annotated[str, AfterValidator(_selector)]
Asset = Annotated[str, AfterValidator(_asset)]


class _Part(WireModel):
    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)


class Destinations(_Part):
    allow: list[Address] | None = None
    deny: list[Address] | None = None


class ContractRule(_Part):
    address: Address
    selectors: list[Selector] | None = None  # None: any function of the contract


class TransactionRules(_Part):
    maxValue: dict[Asset, Amount] | None = None
    maxValuePer24h: dict[Asset, Amount] | None = None
    maxCountPer24h: int | None = Field(None, ge=0, le=_MAX_JSON_INT)
    destinations: Destinations | None = None
    contracts: list[ContractRule] | None = None
    raw: bool = True

    @field_validator("maxValue", "maxValuePer24h", mode="before")
    @classmethod
    def _one_key_per_asset(cls, value: Any) -> Any:
        # Keys are kept in lower case: two spellings of one token would otherwise silently drop a limit.
        if isinstance(value, Mapping):
            keys = [key.lower() for key in value if isinstance(key, str)]
            if len(set(keys)) != len(keys):
                raise PydanticCustomError("asset", "names one asset twice (addresses differ only in case)")
        return value


class TypedDataRule(_Part):
    chainId: int | None = Field(None, ge=0, le=_MAX_JSON_INT)
    verifyingContract: Address | None = None
    primaryType: str | None = Field(None, min_length=1, max_length=256)

    @field_validator("primaryType")
    @classmethod
    def _unicode(cls, value: str | None) -> str | None:
        if value is not None:
            try:
                value.encode("utf-8")
            except UnicodeEncodeError:
                raise PydanticCustomError("string", "must be valid Unicode (a lone surrogate is not)") from None
        return value


class MessageRules(_Part):
    personal: bool | None = None
    rawHashes: bool | None = None  # a personal message of exactly 32 bytes (a hash: of what, nobody can tell)
    typedData: list[TypedDataRule] | None = None


class AuthorizationRules(_Part):
    """EIP-7702 authorizations: which delegates the wallet may hand its account to, and whether for any chain."""

    delegates: list[Address] | None = None
    anyChain: bool = False


class PolicyDocument(_Part):
    version: int = Field(ge=1, le=_MAX_JSON_INT)
    default: Literal["allow", "deny"] = "allow"
    networks: list[str] | None = None
    transactions: TransactionRules | None = None
    messages: MessageRules | None = None
    authorizations: AuthorizationRules | None = None

    @classmethod
    def parse(cls, obj: Any, *, networks: Collection[str] | None = None) -> PolicyDocument:
        """The document `obj` (parsed JSON) states; PolicyDocumentError when it does not validate.

        `networks`: the network names a document may use; the registry's (platform/networks.py) when None."""
        _check_size(obj)
        try:
            document = cls.model_validate(obj)
        except ValidationError as exc:
            error = exc.errors(include_url=False, include_input=False)[0]
            raise PolicyDocumentError(INVALID_POLICY, _field(error["loc"]), _message(error)) from None
        known = {n.name for n in registry().networks} if networks is None else set(networks)
        for index, name in enumerate(document.networks or ()):
            if name not in known:
                raise PolicyDocumentError(INVALID_POLICY, f"networks.{index}", "not a network of this service")
        return document


def _check_size(obj: Any) -> None:
    try:
        text = json.dumps(obj, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
    except (TypeError, ValueError, RecursionError):
        raise PolicyDocumentError(INVALID_POLICY, ROOT_FIELD, "not a JSON document") from None
    size = len(text.encode("utf-8", "surrogatepass"))
    if size > MAX_POLICY_BYTES:
        raise PolicyDocumentError(POLICY_TOO_LARGE, ROOT_FIELD, f"{size} bytes of JSON (at most {MAX_POLICY_BYTES})")


def _field(loc: tuple[int | str, ...]) -> str:
    parts = [str(part) for part in loc if part != "[key]"]
    parts = [part if len(part) <= _FIELD_PART else part[:_FIELD_PART] + "…" for part in parts]
    return ".".join(parts) or ROOT_FIELD


def _message(error: Mapping[str, Any]) -> str:
    kind = error["type"]
    if kind == "extra_forbidden":
        return "not a field of a policy document"
    if kind == "missing":
        return "required"
    if kind == "model_type":
        return "must be an object"
    return str(error["msg"])
