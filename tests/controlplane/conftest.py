"""Fixtures of the control-plane tier: one real control plane + KubeRay operator per session.

The tier is opt-in so that a plain ``pytest`` (``make test``) does not start an eight-minute
first build: its tests run when selected with ``-m controlplane`` (or with CONTROLPLANE=1) and
are skipped with a pointer otherwise. Run it with::

    .venv/bin/pytest tests/controlplane -m controlplane
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from .cluster import ControlPlane

HERE = Path(__file__).resolve().parent
MARKER = "controlplane"


def pytest_configure(config: pytest.Config) -> None:
    # Registered here, not in pyproject.toml, so the tier is self-contained in this folder.
    config.addinivalue_line(
        "markers",
        f"{MARKER}: starts a real etcd/kube-apiserver/controller-manager/scheduler + KubeRay operator",
    )


def _selected(config: pytest.Config) -> bool:
    return MARKER in (config.getoption("markexpr") or "") or os.environ.get("CONTROLPLANE") == "1"


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if _selected(config):
        return
    skip = pytest.mark.skip(reason="control-plane tier: run with `pytest -m controlplane` or CONTROLPLANE=1")
    for item in items:
        if HERE in Path(str(item.path)).parents:
            item.add_marker(skip)


@pytest.fixture(scope="session")
def control_plane() -> Iterator[ControlPlane]:
    """A running control plane (``.kubeconfig``, ``.kubectl(*args)``); stopped at session end."""
    with ControlPlane.start() as cp:
        yield cp
