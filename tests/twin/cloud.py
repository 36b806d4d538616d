"""The cloud side of a run, made the way a user makes it: scripts/up.sh on the fake cloud."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..scripts_harness import GOLDEN_SETUP, already_there, calls, profile_values, run_script, script_env
from .gke import Cluster, cluster_from_calls


@dataclass(frozen=True)
class Cloud:
    calls: list[dict[str, Any]]
    cluster: Cluster
    sub_blocks: tuple[tuple[str, str, int], ...]  # the reservation's (block, sub-block, free hosts)


def provision(profile: str, workdir: Path, *values_args: str, env: dict[str, str] | None = None) -> Cloud:
    """``PROFILE=P scripts/up.sh -f my-values.yaml ARGS`` on the fake cloud, seeded with what the
    profile's run needs to find there (scripts_harness.GOLDEN_SETUP: A4X's reservation, its GKE
    versions and sub-blocks) and ``env`` (the fake's FAKE_* settings); fails the test with the
    scripts' stderr if they refuse."""
    state, data = workdir / "state", workdir / "data"
    # The RayCluster variant of a profile needs what the profile needs.
    extra, existing = GOLDEN_SETUP.get(profile.removesuffix("-raycluster"), ({}, []))
    extra = {**extra, **(env or {})}
    needs_reservation = any("reservation" in a for a in values_args)
    existing = [*existing, *(["compute reservations r1"] if needs_reservation else [])]
    already_there(state, existing)
    args = (*profile_values(profile), *values_args)
    done = run_script("up.sh", script_env(state, data, PROFILE=profile, **extra), *args)
    assert done.returncode == 0, f"up.sh {' '.join(values_args)}:\n{done.stderr}"
    recorded = calls(state)
    rows = [row.split("/") for row in extra.get("FAKE_SUB_BLOCKS", "").split()]
    sub_blocks = tuple((block, sub, int(count) - int(used)) for block, sub, count, used in rows)
    return Cloud(recorded, cluster_from_calls(recorded), sub_blocks)
