"""Kubernetes resource quantities, enough to compare requests with a machine."""

from __future__ import annotations

import re
from decimal import Decimal

# The suffixes Kubernetes quantities take (rules/expressions.py reads the same table).
SUFFIXES: dict[str, Decimal | int] = {
    "": 1,
    "m": Decimal("0.001"),
    "k": 10**3,
    "M": 10**6,
    "G": 10**9,
    "T": 10**12,
    "Ki": 2**10,
    "Mi": 2**20,
    "Gi": 2**30,
    "Ti": 2**40,
}
_QUANTITY = re.compile(r"^([0-9]+(?:\.[0-9]+)?)(m|k|M|G|T|Ki|Mi|Gi|Ti)?$")


def parse_quantity(q: str) -> Decimal:
    m = _QUANTITY.match(q)
    if not m:
        raise ValueError(f"not a quantity: {q!r}")
    return Decimal(m.group(1)) * SUFFIXES[m.group(2) or ""]
