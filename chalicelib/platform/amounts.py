"""Exact money: integers of the smallest unit and decimal strings, never floats."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Annotated

from pydantic import AfterValidator, Field
from pydantic_core import PydanticCustomError

from chalicelib.platform.errors import ApiError, bad_request

INVALID_AMOUNT = "INVALID_AMOUNT"
INVALID_TOKEN_ID = "INVALID_TOKEN_ID"
MAX_UINT256 = 2**256 - 1
UINT256_PATTERN = r"^[0-9]{1,78}$"
# A DynamoDB number holds 38 significant digits (boto3 refuses more, with a decimal error): an amount kept as one
# (a gas tank's balance, and what is compared with it) is at most this.
NUMBER_DIGITS = 38
MAX_NUMBER = 10**NUMBER_DIGITS - 1
NUMBER_PATTERN = rf"^[0-9]{{1,{NUMBER_DIGITS}}}$"
_DECIMAL = re.compile(r"[0-9]+(\.[0-9]+)?")
_UINT256 = re.compile(UINT256_PATTERN)
_NUMBER = re.compile(NUMBER_PATTERN)


def format_units(value: int, decimals: int) -> str:
    """`1500000, 6` -> `"1.5"`; no exponent, no trailing zeros."""
    sign = "-" if value < 0 else ""
    whole, fraction = divmod(abs(value), 10**decimals)
    digits = str(fraction).rjust(decimals, "0").rstrip("0") if decimals else ""
    return f"{sign}{whole}.{digits}" if digits else f"{sign}{whole}"


def base_units(text: str, decimals: int, round_down: bool = False) -> int:
    """An exact decimal string in human units -> base units (ValueError naming what is wrong). A value more precise
    than `decimals` is refused, or with `round_down` cut to what the token can express (an operator's limit)."""
    if len(text) > 100 or not _DECIMAL.fullmatch(text):
        raise ValueError('must be a positive decimal string such as "1.5"')
    whole, _, fraction = text.partition(".")
    fraction = fraction.rstrip("0")
    if len(fraction) > decimals:
        if not round_down:
            raise ValueError(f"has more than {decimals} decimal places")
        fraction = fraction[:decimals]
    scale: int = 10**decimals
    return int(whole) * scale + int(fraction.ljust(decimals, "0") or "0")  # exact: integers only


def parse_amount(text: str, decimals: int, field: str = "amount") -> int:
    """An exact decimal string in human units -> base units; zero, negative, malformed or too precise: 400."""
    try:
        base = base_units(text, decimals)
    except ValueError as exc:
        raise _bad_amount(field, str(exc)) from None
    if base <= 0:
        raise _bad_amount(field, "must be greater than zero")
    if base > MAX_UINT256:
        raise _bad_amount(field, "is too large")
    return base


def _bad_amount(field: str, reason: str) -> ApiError:
    return bad_request(
        INVALID_AMOUNT, f"{field} {reason}", errors=[{"field": field, "message": reason, "type": "value_error"}]
    )


def is_uint256(text: str) -> bool:
    """A decimal string of an integer from 0 to 2**256-1 (leading zeros allowed)."""
    # The length bound first, so that no long input reaches the regex or int().
    return len(text) <= 78 and _UINT256.fullmatch(text) is not None and int(text) <= MAX_UINT256


def _number(value: str) -> str:
    if len(value) > NUMBER_DIGITS or _NUMBER.fullmatch(value) is None:
        raise PydanticCustomError(
            "number", f"must be a decimal integer of at most {NUMBER_DIGITS} digits", {"code": INVALID_AMOUNT}
        )
    return value


def _uint256(code: str) -> Callable[[str], str]:
    def check(value: str) -> str:
        if not is_uint256(value):
            # The code travels with the error: the router answers it (docs/errors.md).
            raise PydanticCustomError("uint256", "must be a decimal integer from 0 to 2**256-1", {"code": code})
        return value

    return check


_UINT256_SCHEMA = {"pattern": UINT256_PATTERN, "maxLength": 78, "format": "uint256"}
_UINT256_DOC = "A decimal integer from 0 to 2**256-1 (uint256), as a string."

# Body fields holding a uint256 in base units (an amount, a value) or a token id: a decimal string within uint256,
# else 400 with the type's code. The schema states the pattern and length; the upper bound is the format.
Uint256 = Annotated[
    str, AfterValidator(_uint256(INVALID_AMOUNT)), Field(json_schema_extra=_UINT256_SCHEMA, description=_UINT256_DOC)
]
TokenId = Annotated[
    str, AfterValidator(_uint256(INVALID_TOKEN_ID)), Field(json_schema_extra=_UINT256_SCHEMA, description=_UINT256_DOC)
]

# A body field holding an amount in base units that is stored, or compared, as a DynamoDB number: a decimal string of
# at most 38 digits (0 to 10**38-1), else 400 INVALID_AMOUNT.
NumberAmount = Annotated[
    str,
    AfterValidator(_number),
    Field(
        json_schema_extra={"pattern": NUMBER_PATTERN, "maxLength": NUMBER_DIGITS},
        description=f"A decimal integer of at most {NUMBER_DIGITS} digits, as a string.",
    ),
]
