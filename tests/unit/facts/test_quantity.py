"""facts/quantity.py: Kubernetes resource quantities."""

from __future__ import annotations

from decimal import Decimal

import pytest

from verl_grpo.facts.quantity import parse_quantity


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("100m", Decimal("0.1")),
        ("2", Decimal(2)),
        ("1.5", Decimal("1.5")),
        ("1k", Decimal(1000)),
        ("1Ki", Decimal(1024)),
        ("1G", Decimal(10**9)),
        ("1Gi", Decimal(1073741824)),
        ("1.5Gi", Decimal(1610612736)),
        ("2Ti", Decimal(2199023255552)),
    ],
)
def test_suffixes_are_decimal_or_binary_multiples(text: str, value: Decimal) -> None:
    """m is a thousandth; k, M, G, T powers of ten; Ki, Mi, Gi, Ti powers of two."""
    assert parse_quantity(text) == value


def test_millicores_stay_exact() -> None:
    """Decimal, not float: 100m three times is exactly 300m."""
    assert parse_quantity("100m") * 3 == parse_quantity("300m") == Decimal("0.3")


def test_binary_suffixes_are_larger_than_their_decimal_names() -> None:
    """1Gi > 1G, 1Mi > 1M: mixing them up would under-count memory by 7%."""
    assert parse_quantity("1Gi") > parse_quantity("1G") and parse_quantity("1Mi") > parse_quantity("1M")
    assert parse_quantity("1024Mi") == parse_quantity("1Gi")


@pytest.mark.parametrize("text", ["", "-1", "1gi", "1 Gi", "1.5.2", "Gi", "1e3", ".5"])
def test_anything_else_is_refused_with_the_text_in_the_message(text: str) -> None:
    """Negative numbers, lower-case binary suffixes, spaces and exponents are not quantities here."""
    with pytest.raises(ValueError, match=f"not a quantity: {text!r}"):
        parse_quantity(text)
