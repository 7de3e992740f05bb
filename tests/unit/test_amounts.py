from __future__ import annotations

import pytest

from chalicelib.platform.amounts import format_units


@pytest.mark.parametrize(
    ("value", "decimals", "text"),
    [
        (0, 18, "0"),
        (1_500_000, 6, "1.5"),
        (1, 18, "0.000000000000000001"),
        (10**18, 18, "1"),
        (123_456_789_012_345_678_901_234_567_890, 18, "123456789012.34567890123456789"),
        (-25, 1, "-2.5"),
        (7, 0, "7"),
    ],
)
def test_format_units_is_exact(value, decimals, text):
    assert format_units(value, decimals) == text
