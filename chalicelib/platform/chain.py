"""Chain access shared by every domain: JSON-RPC (platform/transport.py) and address checks."""

from __future__ import annotations

from chalicelib.platform.transport import RpcError, rpc_batch, rpc_call

__all__ = ["INVALID_ADDRESS", "RpcError", "checksum_address", "rpc_batch", "rpc_call"]


INVALID_ADDRESS = "INVALID_ADDRESS"


def checksum_address(value: str, field: str) -> str:
    """EIP-55 form of a 20-byte hex address; a mixed-case input must already be correctly checksummed."""
    from eth_utils import is_checksum_address, is_hex_address, to_checksum_address

    if not value.startswith("0x") or not is_hex_address(value):
        raise _address_error(field, "not a 0x-prefixed 20-byte hex address")
    if value[2:] not in (value[2:].lower(), value[2:].upper()) and not is_checksum_address(value):
        raise _address_error(field, "wrong EIP-55 checksum")
    return str(to_checksum_address(value))


def _address_error(field: str, reason: str) -> Exception:
    from chalicelib.platform.errors import bad_request

    return bad_request(
        INVALID_ADDRESS, f"{field}: {reason}", errors=[{"field": field, "message": reason, "type": "address"}]
    )
