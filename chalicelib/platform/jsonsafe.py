"""JSON from outside (client bodies, RPC and bundler answers) parsed without trusting its shape.

The standard parser recurses once per nesting level, in C. Its guard is the interpreter's recursion limit, and
libraries raise that limit (py_ecc, pulled in by the Ethereum stack, sets it very high), so a document nested a
few hundred thousand levels deep overflows the C stack and kills the process instead of raising. Nothing this
service reads is nested more than a few dozen levels: deeper input is refused before it is parsed.
"""

from __future__ import annotations

import json
import re
from array import array
from itertools import accumulate
from typing import Any

MAX_DEPTH = 256
_STRINGS = re.compile(rb'"(?:[^"\\]|\\.)*"')  # linear: no nested quantifiers
_NOT_BRACKETS = re.compile(rb"[^\[\]{}]")
# '[' and '{' open (+1), ']' and '}' close (-1 as a signed byte); everything else is gone by then.
_STEPS = bytes.maketrans(b"[{]}", b"\x01\x01\xff\xff")


class TooDeepError(ValueError):
    """The document is nested deeper than MAX_DEPTH."""


def depth_ok(data: bytes | str, limit: int = MAX_DEPTH) -> bool:
    raw = data.encode() if isinstance(data, str) else data
    brackets = _NOT_BRACKETS.sub(b"", _STRINGS.sub(b"", raw))
    if len(brackets) <= limit:
        return True  # cannot be deeper than its number of brackets
    return max(accumulate(array("b", brackets.translate(_STEPS)))) <= limit


def loads(data: bytes | str, **options: Any) -> Any:
    """json.loads, refusing documents nested deeper than MAX_DEPTH (TooDeepError, a ValueError)."""
    if not depth_ok(data):
        raise TooDeepError(f"JSON nested deeper than {MAX_DEPTH} levels")
    return json.loads(data, **options)


def dumps_exact(obj: Any) -> str:
    """json.dumps (compact) that writes `decimal.Decimal` values as JSON numbers with every digit they have.

    The reference API's event amounts are JSON numbers in human units (`1.000000000000000001` for an 18-decimal token):
    floats would round them. Each Decimal is first written as a string carrying a random marker, which is
    then replaced by the number's literal; the marker makes a client-supplied string that looks like one
    impossible to turn into a number."""
    import secrets
    from decimal import Decimal

    marker = secrets.token_hex(8)

    def encode(value: Any) -> Any:
        if isinstance(value, Decimal):
            if not value.is_finite():
                raise ValueError("not a finite number")
            return f"{marker}:{format(value, 'f')}"
        raise TypeError(f"{type(value).__name__} is not JSON serializable")

    text = json.dumps(obj, separators=(",", ":"), default=encode)
    return re.sub(f'"{marker}:(-?[0-9]+(?:\\.[0-9]+)?)"', r"\1", text)
