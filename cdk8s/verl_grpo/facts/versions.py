"""Versions as the tools compare them."""

from __future__ import annotations


def version_at_least(version: str, minimum: str) -> bool:
    """Helm's `semverCompare ">=minimum" version`, for plain x.y.z versions."""

    def parts(v: str) -> tuple[int, ...]:
        return tuple(int(part) for part in v.split("."))

    return parts(version) >= parts(minimum)
