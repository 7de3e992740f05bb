"""EIP-712 typed data in the `eth_signTypedData_v4` shape: strict validation, then hashing with eth-account.

The rule behind every check: a document is accepted only if eth-account, ethers v6 and viem all hash it to the
same digest (tests/unit/test_typed_data_corpus.py proves it over a corpus). Where the libraries guess or
disagree (a missing field encoded as zero, a fixed array of the wrong length, a recursive type, a string where
bytes are expected), the document is refused with a stable code and the dotted path of the offending field, so
that nothing ambiguous ever reaches a signer. docs/wallets.md ("Typed data (EIP-712)") states the rules.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from chalicelib.platform.addresses import checksum_address
from chalicelib.platform.errors import ApiError

__all__ = [
    "INVALID_TYPED_DATA",
    "MAX_NESTING",
    "MAX_TYPED_DATA_BYTES",
    "TYPED_DATA_TOO_LARGE",
    "TypedDataError",
    "TypedDataHashes",
    "TypedDataView",
    "domain_fields",
    "hashes",
    "read",
]

INVALID_TYPED_DATA = "INVALID_TYPED_DATA"
TYPED_DATA_TOO_LARGE = "TYPED_DATA_TOO_LARGE"
# Measured on the canonical JSON (sorted keys, no white space, UTF-8).
MAX_TYPED_DATA_BYTES = 64 * 1024
# Levels of structs and arrays below the primary type: deep enough for any real protocol, shallow enough that
# no recursion (ours or eth-account's) runs out of stack.
MAX_NESTING = 32

_ROOT = "typedData"
_DOCUMENT_KEYS = ("types", "primaryType", "domain", "message")
_DOMAIN = "EIP712Domain"
# The standard domain fields in their standard order (ethers, viem and eth-account derive EIP712Domain this way).
_DOMAIN_FIELDS = (
    ("name", "string"),
    ("version", "string"),
    ("chainId", "uint256"),
    ("verifyingContract", "address"),
    ("salt", "bytes32"),
)
_IDENTIFIER = re.compile(r"[A-Za-z_$][A-Za-z0-9_$]*")
_TYPE = re.compile(r"([A-Za-z_$][A-Za-z0-9_$]*)((?:\[[0-9]*\])*)")
_DIMENSION = re.compile(r"\[([0-9]*)\]")
_SIZES = range(8, 257, 8)
_ATOMIC = frozenset(
    ["address", "bool", "string", "bytes"]
    + [f"bytes{n}" for n in range(1, 33)]
    + [f"uint{n}" for n in _SIZES]
    + [f"int{n}" for n in _SIZES]
)
_DECIMAL = re.compile(r"-?[0-9]{1,80}")
_HEX_NUMBER = re.compile(r"0x[0-9a-fA-F]{1,80}")
_HEX_BYTES = re.compile(r"0x(?:[0-9a-fA-F]{2})*")


class TypedDataError(ValueError):
    """Malformed typed data: a 400 with `code` naming the problem and `field` the dotted path into the body."""

    def __init__(self, code: str, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}")
        self.code = code
        self.field = field
        self.message = message


@dataclass(frozen=True)
class TypedDataHashes:
    digest: bytes
    domain_separator: bytes


def hashes(document: Mapping[str, Any]) -> TypedDataHashes:
    """The EIP-712 digest (keccak256(0x1901 ‖ domainSeparator ‖ hashStruct(message))) and domain separator."""
    from eth_account.messages import encode_typed_data
    from eth_utils import keccak

    parsed = _parse(document)
    signable = encode_typed_data(
        full_message={
            "types": {**parsed.types, _DOMAIN: parsed.domain_type},
            "primaryType": parsed.primary_type,
            "domain": parsed.domain,
            "message": parsed.message,
        }
    )
    digest = bytes(keccak(b"\x19" + signable.version + signable.header + signable.body))
    return TypedDataHashes(digest=digest, domain_separator=bytes(signable.header))


def domain_fields(document: Mapping[str, Any]) -> dict[str, Any]:
    """What an audit record keeps of a (valid) document: the domain's chainId and verifyingContract, primaryType."""
    parsed = _parse(document)
    return {
        "chainId": parsed.domain.get("chainId"),
        "verifyingContract": parsed.domain.get("verifyingContract"),
        "primaryType": parsed.primary_type,
    }


@dataclass(frozen=True)
class TypedDataView:
    """A valid document as it is hashed: only the struct types the primary type uses (EIP712Domain excluded), so
    that types which cannot change the digest cannot change what a reader sees either; values normalized (ints,
    bytes, EIP-55 addresses)."""

    types: dict[str, list[dict[str, str]]]
    primary_type: str
    domain_type: list[dict[str, str]]
    domain: dict[str, Any]
    message: dict[str, Any]


def read(document: Mapping[str, Any]) -> TypedDataView:
    """The document as `hashes` signs it; TypedDataError when it is not valid."""
    return _parse(document)


def _fail(field: str, message: str) -> TypedDataError:
    return TypedDataError(INVALID_TYPED_DATA, field, message)


def _parse(document: Mapping[str, Any]) -> TypedDataView:
    if not isinstance(document, Mapping):
        raise _fail(_ROOT, "must be an object")
    _check_size(document)
    for key in document:
        if key not in _DOCUMENT_KEYS:
            raise _fail(f"{_ROOT}.{key}", "not a field of eth_signTypedData_v4 typed data")
    for key in _DOCUMENT_KEYS:
        if key not in document:
            raise _fail(f"{_ROOT}.{key}", "missing")
    types = _struct_types(document["types"])
    primary = document["primaryType"]
    if not isinstance(primary, str):
        raise _fail(f"{_ROOT}.primaryType", "must be a string")
    if primary == _DOMAIN or primary not in types:
        raise _fail(f"{_ROOT}.primaryType", f"{primary!r} is not a struct type defined in types")
    _check_acyclic(types)
    used = _used_by(primary, types)
    depth = _nesting(primary, used)
    if depth > MAX_NESTING:
        raise _fail(f"{_ROOT}.types.{primary}", f"nested {depth} levels deep (at most {MAX_NESTING})")
    domain, domain_type = _domain(document["domain"], document["types"].get(_DOMAIN))
    message = _value(primary, document["message"], f"{_ROOT}.message", used)
    return TypedDataView(types=used, primary_type=primary, domain_type=domain_type, domain=domain, message=message)


def _check_size(document: Mapping[str, Any]) -> None:
    try:
        canonical = json.dumps(document, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
    except (TypeError, ValueError, RecursionError) as exc:
        raise _fail(_ROOT, "not a JSON document") from exc
    # Lone surrogates count as their bytes here; the value check refuses them with their field.
    size = len(canonical.encode("utf-8", "surrogatepass"))
    if size > MAX_TYPED_DATA_BYTES:
        raise TypedDataError(
            TYPED_DATA_TOO_LARGE, _ROOT, f"{size} bytes of canonical JSON (at most {MAX_TYPED_DATA_BYTES})"
        )


def _struct_types(raw: object) -> dict[str, list[dict[str, str]]]:
    """The struct definitions other than EIP712Domain, each field's type known (atomic or a defined struct)."""
    where = f"{_ROOT}.types"
    if not isinstance(raw, Mapping):
        raise _fail(where, "must be an object")
    types: dict[str, list[dict[str, str]]] = {}
    for name, fields in raw.items():
        if not isinstance(name, str) or not _IDENTIFIER.fullmatch(name) or name in _ATOMIC:
            raise _fail(f"{where}.{name}", "a struct type's name must be an identifier other than an atomic type")
        types[name] = _fields(fields, f"{where}.{name}")
    for name, fields in types.items():
        for index, item in enumerate(fields):
            base, _ = _split(item["type"])
            if base == _DOMAIN or (base not in _ATOMIC and base not in types):
                raise _fail(f"{where}.{name}.{index}.type", f"unknown type {base!r}")
    types.pop(_DOMAIN, None)
    return types


def _fields(raw: object, where: str) -> list[dict[str, str]]:
    if not isinstance(raw, list):
        raise _fail(where, "must be an array of {name, type}")
    fields: list[dict[str, str]] = []
    seen: set[str] = set()
    for index, item in enumerate(raw):
        at = f"{where}.{index}"
        if not isinstance(item, Mapping) or set(item) != {"name", "type"}:
            raise _fail(at, "must be an object with exactly name and type")
        name, type_ = item["name"], item["type"]
        if not isinstance(name, str) or not _IDENTIFIER.fullmatch(name):
            raise _fail(f"{at}.name", "must be an identifier")
        if name in seen:
            raise _fail(f"{at}.name", f"duplicate field {name!r}")
        if not isinstance(type_, str) or not _TYPE.fullmatch(type_):
            raise _fail(f"{at}.type", "must be a type name with optional [] or [n] dimensions")
        for size in _DIMENSION.findall(type_):
            if size and (size.startswith("0") or int(size) > 2**32):
                raise _fail(f"{at}.type", "a fixed array's length must be from 1 to 2**32 without leading zeros")
        seen.add(name)
        fields.append({"name": name, "type": type_})
    return fields


def _split(type_: str) -> tuple[str, str]:
    """`Person[2][]` -> (`Person`, `[2][]`)."""
    bracket = type_.find("[")
    return (type_, "") if bracket < 0 else (type_[:bracket], type_[bracket:])


def _children(fields: list[dict[str, str]], types: Mapping[str, object]) -> list[tuple[int, str]]:
    return [(index, base) for index, f in enumerate(fields) if (base := _split(f["type"])[0]) in types]


def _check_acyclic(types: dict[str, list[dict[str, str]]]) -> None:
    """Refuse any cycle among struct types, through arrays too: ethers refuses them, and a cycle without a
    dynamic array is an infinite struct. Iterative, so that a long chain of types cannot exhaust the stack."""
    done: set[str] = set()
    for start in types:
        if start in done:
            continue
        path: list[str] = [start]
        stack = [iter(_children(types[start], types))]
        while stack:
            step = next(stack[-1], None)
            if step is None:
                done.add(path.pop())
                stack.pop()
                continue
            index, child = step
            if child in path:
                raise _fail(f"{_ROOT}.types.{path[-1]}.{index}.type", f"a cycle of struct types through {child!r}")
            if child not in done:
                path.append(child)
                stack.append(iter(_children(types[child], types)))


def _used_by(primary: str, types: dict[str, list[dict[str, str]]]) -> dict[str, list[dict[str, str]]]:
    """The primary type and the struct types it reaches: the others cannot change the digest (and eth-account
    and ethers would take an unused type for a second primary type)."""
    used: dict[str, list[dict[str, str]]] = {}
    pending = [primary]
    while pending:
        name = pending.pop()
        if name not in used:
            used[name] = types[name]
            pending.extend(child for _, child in _children(types[name], types))
    return used


def _nesting(primary: str, types: dict[str, list[dict[str, str]]]) -> int:
    """Levels of structs and arrays below `primary` (types are acyclic here)."""
    depth: dict[str, int] = {}
    order: list[str] = []
    pending = [(primary, False)]
    while pending:
        name, expanded = pending.pop()
        if expanded:
            order.append(name)
        elif name not in depth:
            depth[name] = 0
            pending.append((name, True))
            pending.extend((child, False) for _, child in _children(types[name], types))
    for name in order:  # children before parents
        levels = [0]
        for item in types[name]:
            base, dimensions = _split(item["type"])
            levels.append(dimensions.count("[") + (depth[base] if base in types else 0))
        depth[name] = 1 + max(levels)
    return depth[primary]


def _domain(raw: object, declared: object) -> tuple[dict[str, Any], list[dict[str, str]]]:
    where = f"{_ROOT}.domain"
    if not isinstance(raw, Mapping):
        raise _fail(where, "must be an object")
    standard = dict(_DOMAIN_FIELDS)
    for key in raw:
        if key not in standard:
            raise _fail(
                f"{where}.{key}", "not an EIP-712 domain field (name, version, chainId, verifyingContract, salt)"
            )
    domain = {key: _value(type_, raw[key], f"{where}.{key}", {}) for key, type_ in _DOMAIN_FIELDS if key in raw}
    domain_type = [{"name": key, "type": type_} for key, type_ in _DOMAIN_FIELDS if key in raw]
    # A declared EIP712Domain must be exactly the derived one: eth-account hashes the standard order whatever the
    # declaration says, and a custom or reordered domain type would hash differently elsewhere.
    if declared is not None and declared != domain_type:
        raise _fail(
            f"{_ROOT}.types.{_DOMAIN}",
            "must list the domain's fields in the order name, version, chainId, verifyingContract, salt "
            "with types string, string, uint256, address, bytes32",
        )
    return domain, domain_type


def _value(type_: str, value: object, at: str, types: Mapping[str, list[dict[str, str]]]) -> Any:
    """`value` checked against `type_` and normalized for eth-account (ints, bytes, checksummed addresses)."""
    if type_.endswith("]"):
        inner, dimension = type_[: type_.rindex("[")], type_[type_.rindex("[") + 1 : -1]
        if not isinstance(value, list):
            raise _fail(at, f"must be an array ({type_})")
        if dimension and len(value) != int(dimension):
            raise _fail(at, f"must have exactly {dimension} elements ({type_}), not {len(value)}")
        return [_value(inner, item, f"{at}.{index}", types) for index, item in enumerate(value)]
    if type_ in types:
        return _struct(type_, value, at, types)
    if type_ == "bool":
        if not isinstance(value, bool):
            raise _fail(at, "must be true or false (bool)")
        return value
    if type_ == "string":
        if not isinstance(value, str):
            raise _fail(at, "must be a string")
        try:
            value.encode("utf-8")
        except UnicodeEncodeError as exc:
            raise _fail(at, "must be valid Unicode (a lone surrogate is not)") from exc
        return value
    if type_ == "address":
        if not isinstance(value, str):
            raise _fail(at, "must be a 0x-prefixed 20-byte hex address")
        try:
            checksummed = checksum_address(value, at)
        except ApiError as exc:
            raise _fail(at, exc.message.removeprefix(f"{at}: ")) from exc
        # All capitals carry no checksum either, and viem refuses them: lower case or the EIP-55 form only.
        if value != value.lower() and value != checksummed:
            raise _fail(at, "wrong EIP-55 checksum (an address is all lower case or its EIP-55 form)")
        return checksummed
    if type_.startswith("bytes"):
        return _bytes(type_, value, at)
    return _integer(type_, value, at)


def _struct(type_: str, value: object, at: str, types: Mapping[str, list[dict[str, str]]]) -> dict[str, Any]:
    if not isinstance(value, Mapping):
        raise _fail(at, f"must be an object ({type_})")
    names = [item["name"] for item in types[type_]]
    for key in value:
        if key not in names:
            raise _fail(f"{at}.{key}", f"not a field of {type_}")
    for name in names:
        if name not in value:
            raise _fail(f"{at}.{name}", f"missing (a field of {type_})")
    return {
        item["name"]: _value(item["type"], value[item["name"]], f"{at}.{item['name']}", types) for item in types[type_]
    }


def _bytes(type_: str, value: object, at: str) -> bytes:
    if not isinstance(value, str) or not _HEX_BYTES.fullmatch(value):
        raise _fail(at, f"must be 0x-prefixed hex with an even number of digits ({type_})")
    data = bytes.fromhex(value[2:])
    if type_ != "bytes" and len(data) != int(type_[5:]):
        raise _fail(at, f"must be exactly {type_[5:]} bytes ({type_}), not {len(data)}")
    return data


def _integer(type_: str, value: object, at: str) -> int:
    signed = type_.startswith("int")
    bits = int(type_[3:] if signed else type_[4:])
    if isinstance(value, bool) or not isinstance(value, int | str):
        raise _fail(at, f"must be an integer or a decimal or 0x-hex string ({type_})")
    if isinstance(value, str):
        if _DECIMAL.fullmatch(value):
            value = int(value)
        elif _HEX_NUMBER.fullmatch(value):
            value = int(value, 16)
        else:
            raise _fail(at, f"must be an integer or a decimal or 0x-hex string ({type_})")
    low, high = (-(2 ** (bits - 1)), 2 ** (bits - 1) - 1) if signed else (0, 2**bits - 1)
    if not low <= value <= high:
        raise _fail(at, f"out of range for {type_} ({low} to {high})")
    return value
