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


def test_one_parser_for_amounts_and_operator_limits():
    """The API refuses a value more precise than the token; an operator's limit is cut to what the token can
    express (never rounded up), through the same parser."""
    from chalicelib.platform.amounts import base_units

    assert base_units("1.5", 6) == 1_500_000
    assert base_units("0.0000019", 6, round_down=True) == 1
    assert base_units("1000.1234567", 6, round_down=True) == 1_000_123_456
    with pytest.raises(ValueError, match="more than 6 decimal places"):
        base_units("0.0000019", 6)
    with pytest.raises(ValueError):
        base_units("1e3", 6, round_down=True)
