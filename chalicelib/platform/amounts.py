"""Exact money: integers of the smallest unit and decimal strings, never floats."""

from __future__ import annotations


def format_units(value: int, decimals: int) -> str:
    """`1500000, 6` -> `"1.5"`; no exponent, no trailing zeros."""
    sign = "-" if value < 0 else ""
    whole, fraction = divmod(abs(value), 10**decimals)
    digits = str(fraction).rjust(decimals, "0").rstrip("0") if decimals else ""
    return f"{sign}{whole}.{digits}" if digits else f"{sign}{whole}"
