"""Exact money: integers of the smallest unit and decimal strings, never floats."""

from __future__ import annotations

import re

from chalicelib.platform.errors import ApiError, bad_request

INVALID_AMOUNT = "INVALID_AMOUNT"
MAX_UINT256 = 2**256 - 1
_DECIMAL = re.compile(r"[0-9]+(\.[0-9]+)?")


def format_units(value: int, decimals: int) -> str:
    """`1500000, 6` -> `"1.5"`; no exponent, no trailing zeros."""
    sign = "-" if value < 0 else ""
    whole, fraction = divmod(abs(value), 10**decimals)
    digits = str(fraction).rjust(decimals, "0").rstrip("0") if decimals else ""
    return f"{sign}{whole}.{digits}" if digits else f"{sign}{whole}"


def parse_amount(text: str, decimals: int, field: str = "amount") -> int:
    """An exact decimal string in human units -> base units; zero, negative, malformed or too precise: 400."""
    if len(text) > 100 or not _DECIMAL.fullmatch(text):
        raise _bad_amount(field, 'must be a positive decimal string such as "1.5"')
    whole, _, fraction = text.partition(".")
    fraction = fraction.rstrip("0")
    if len(fraction) > decimals:
        raise _bad_amount(field, f"has more than {decimals} decimal places")
    scale: int = 10**decimals
    base = int(whole) * scale + int(fraction.ljust(decimals, "0") or "0")  # exact: integers only
    if base <= 0:
        raise _bad_amount(field, "must be greater than zero")
    if base > MAX_UINT256:
        raise _bad_amount(field, "is too large")
    return base


def _bad_amount(field: str, reason: str) -> ApiError:
    return bad_request(
        INVALID_AMOUNT, f"{field} {reason}", errors=[{"field": field, "message": reason, "type": "value_error"}]
    )
