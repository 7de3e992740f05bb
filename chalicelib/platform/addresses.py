"""EVM addresses as the API takes them: the EIP-55 check and the `Address` field type every model uses."""

from __future__ import annotations

from typing import Annotated

from pydantic import AfterValidator, Field
from pydantic_core import PydanticCustomError

from chalicelib.platform.errors import bad_request

__all__ = ["ADDRESS_PATTERN", "INVALID_ADDRESS", "Address", "checksum_address"]


INVALID_ADDRESS = "INVALID_ADDRESS"
ADDRESS_PATTERN = r"^0x[0-9a-fA-F]{40}$"


def checksum_address(value: str, field: str) -> str:
    """EIP-55 form of a 20-byte hex address; a mixed-case input must already be correctly checksummed."""
    checksummed, reason = _checked(value)
    if checksummed is None:
        raise bad_request(
            INVALID_ADDRESS, f"{field}: {reason}", errors=[{"field": field, "message": reason, "type": "address"}]
        )
    return checksummed


def _checked(value: str) -> tuple[str | None, str]:
    from eth_utils import is_checksum_address, is_hex_address, to_checksum_address

    if len(value) != 42 or not value.startswith("0x") or not is_hex_address(value):
        return None, "not a 0x-prefixed 20-byte hex address"
    if value[2:] not in (value[2:].lower(), value[2:].upper()) and not is_checksum_address(value):
        return None, "wrong EIP-55 checksum"
    return str(to_checksum_address(value)), ""


def _address_field(value: str) -> str:
    checksummed, reason = _checked(value)
    if checksummed is None:
        # The code travels with the error: the router answers it as the services' own check does.
        raise PydanticCustomError("address", reason, {"code": INVALID_ADDRESS})
    return checksummed


# A body field holding an address: the same check as checksum_address, answered 400 INVALID_ADDRESS; the value
# becomes its EIP-55 form. The schema states the shape; the checksum rule is in the description.
Address = Annotated[
    str,
    AfterValidator(_address_field),
    Field(
        json_schema_extra={"pattern": ADDRESS_PATTERN, "maxLength": 42, "format": "address"},
        description="A 20-byte hex address; mixed case must be a correct EIP-55 checksum.",
    ),
]
