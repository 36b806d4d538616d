"""facts/versions.py: versions compared as Helm's semverCompare compares x.y.z."""

from __future__ import annotations

import pytest

from verl_grpo.facts.versions import version_at_least


@pytest.mark.parametrize(
    ("version", "minimum", "expected"),
    [
        ("1.6.0", "1.6.0", True),  # equal is at least
        ("1.10.0", "1.9.0", True),  # numbers, not text ("1.10" < "1.9" as strings)
        ("2.52.0", "2.9.0", True),
        ("1.5.9", "1.6.0", False),
        ("0.6.1", "0.7.0", False),
        ("1.0.0", "0.99.99", True),
    ],
)
def test_versions_compare_part_by_part_as_numbers(version: str, minimum: str, expected: bool) -> None:
    assert version_at_least(version, minimum) is expected


def test_the_comparison_is_an_order() -> None:
    """Reflexive, and for two different versions exactly one is at least the other."""
    versions = ["0.6.1", "0.7.0", "1.4.2", "1.10.0", "2.0.0"]
    for a in versions:
        assert version_at_least(a, a)
        for b in versions:
            if a != b:
                assert version_at_least(a, b) != version_at_least(b, a)


def test_a_version_with_a_suffix_is_refused() -> None:
    """Plain x.y.z only: a pre-release suffix is not silently compared."""
    with pytest.raises(ValueError):
        version_at_least("1.6.0-rc1", "1.6.0")
