"""facts/node_fit.py: what each node must hold (sidecars included) and whether the pods fit."""

from __future__ import annotations

import itertools

import pytest

from verl_grpo.facts.machines import GIB, allocatable_cpu
from verl_grpo.facts.node_fit import (
    CPU_NODE_SYSTEM,
    FILE_CACHE_CAPACITY,
    SIDECAR_LIMITS,
    SUBMITTER,
    ZERO,
    Amounts,
    Pod,
    Pool,
    amounts,
    cpu_pool,
    pack,
    sidecars,
)
from verl_grpo.facts.quantity import parse_quantity

from ...conftest import objects_of_kind, render_one


def test_amounts_parse_quantities_and_fit_up_to_equality() -> None:
    """CPU in cores, memory and disk in bytes; a pod that needs exactly the room fits."""
    need = amounts("500m", "1Gi", "2Gi")
    assert need == Amounts(0.5, GIB, 2 * GIB) and amounts("1", "1Gi") == Amounts(1, GIB, 0)
    assert (need + need) - need == need and need.fits(need)
    assert not need.fits(Amounts(0.5, GIB, 2 * GIB - 1)) and ZERO.fits(need)


def test_a_zero_sidecar_limit_keeps_the_webhook_s_default_request() -> None:
    """gcs-fuse-csi-driver: limit "0" keeps the default request 250m / 256Mi / 5Gi; any other limit
    becomes the request; the metadata-prefetch sidecar adds 50m / 250Mi / 10Mi."""
    assert sidecars("standard", "0", "0", "0", prefetch=False) == amounts("250m", "256Mi", "5Gi")
    assert sidecars("autopilot", "2", "14Gi", "200Gi", prefetch=False) == amounts("2", "14Gi", "200Gi")
    with_prefetch = sidecars("standard", "1", "0", "0", prefetch=True)
    assert with_prefetch == amounts("1", "256Mi", "5Gi") + amounts("50m", "250Mi", "10Mi")


def test_autopilot_sidecar_limits_are_within_autopilot_s_ceiling_and_hold_the_file_cache() -> None:
    """Autopilot GPU nodes: sidecar CPU at most 2 vCPU, memory at most 14 GiB, "0" not allowed;
    the ephemeral limit must be larger than the file cache (GKE's FUSE performance page)."""
    autopilot, standard = SIDECAR_LIMITS["autopilot"], SIDECAR_LIMITS["standard"]
    assert 0 < parse_quantity(autopilot.cpu) <= 2 and 0 < parse_quantity(autopilot.memory) <= 14 * GIB
    assert parse_quantity(autopilot.ephemeral_storage) > parse_quantity(FILE_CACHE_CAPACITY)
    assert standard == ("0", "0", "0")


def test_packing_is_first_fit_decreasing_and_names_each_pod_that_fits_nowhere() -> None:
    """1, 1, 9 and 9 CPUs fit two 10-CPU nodes only largest first: every order packs. Three 6-CPU
    pods on two nodes with 9 CPUs of room: one problem, for the pod left over, with each node's room."""
    pool = Pool("gpu", "test-8", 2, Amounts(10, 100 * GIB, 100 * GIB), ZERO)
    pods = [Pod(f"pod-{i}", Amounts(cpu, GIB, GIB)) for i, cpu in enumerate((1, 1, 9, 9))]
    for order in itertools.permutations(pods):
        assert pack(list(order), pool) == []
    pool = Pool("cpu", "test-4", 2, Amounts(10, 100 * GIB, 100 * GIB), Amounts(1, 0, 0))
    pods = [Pod(name, Amounts(6, GIB, 0)) for name in ("head", "prep", "extra")]
    (problem,) = pack(pods, pool)
    assert problem.startswith("prep (6 CPU, 1.0Gi memory, 0Gi ephemeral) fits on none of the 2 test-4 nodes")
    assert "each has 9 CPU, 100.0Gi memory, 100Gi ephemeral" in problem
    assert pack(pods[:2], pool) == []


def test_a_cpu_pool_keeps_room_for_system_pods() -> None:
    """A CPU node's room is GKE's allocatable less the kube-system bound; unknown machines fail."""
    pool = cpu_pool("n2-standard-32", 3, 100)
    assert pool.nodes == 3 and pool.room.cpu == pytest.approx(allocatable_cpu(32) - CPU_NODE_SYSTEM.cpu)
    assert pool.room.fits(pool.allocatable) and not pool.allocatable.fits(pool.room)
    with pytest.raises(KeyError):
        cpu_pool("n9-imaginary-8", 1, 100)


def test_the_submitter_counted_is_the_one_rendered() -> None:
    """KubeRay's default submitter requests 500m / 200Mi; the rendered RayJob asks the same."""
    (job,) = objects_of_kind(render_one(), "RayJob")
    (container,) = job["spec"]["submitterPodTemplate"]["spec"]["containers"]
    requests = container["resources"]["requests"]
    assert amounts(requests["cpu"], requests["memory"]) == SUBMITTER == amounts("500m", "200Mi")
