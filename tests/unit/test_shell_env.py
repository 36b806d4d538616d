"""shell_env.py: `verl-grpo env`, the shell variables the gcloud scripts read, from the same values
as the manifests."""

from __future__ import annotations

import ipaddress
import shlex

import pytest

from verl_grpo.facts.capacity import AUTOSCALE_FLAGS
from verl_grpo.output.dist import dist_layer
from verl_grpo.pipeline import load_spec
from verl_grpo.profiles import find_profile, shipped_profiles
from verl_grpo.shell_env import pool_flags, render_env, shell_env, subnet_ranges
from verl_grpo.values.derive import DeploySpec

RESERVED_AND_SPOT = (
    "cluster.capacity=reservation,cluster.reservation=r1,workerGroups.gpu-group=null,"
    "workerGroups.reserved.replicas=3,workerGroups.spot.replicas=1,workerGroups.spot.capacity=spot"
)


def env_of(*sets: str, profile: str = "b200-standard") -> tuple[DeploySpec, dict[str, str]]:
    spec = load_spec(dist_layer(find_profile(profile)), sets=sets)
    return spec, shell_env(spec, find_profile(profile))


@pytest.mark.parametrize(("base", "count"), [("10.100.0.0/16", 9), ("10.0.8.0/21", 8), ("192.168.5.0/24", 1)])
def test_subnet_ranges_are_disjoint_24s_inside_the_base(base: str, count: int) -> None:
    """`count` /24s of the base, none overlapping another, down to a base that holds exactly `count`."""
    ranges = [ipaddress.ip_network(r) for r in subnet_ranges(base, count)]
    assert len(ranges) == count and all(r.prefixlen == 24 for r in ranges)
    assert all(r.subnet_of(ipaddress.ip_network(base)) for r in ranges)
    assert not any(a.overlaps(b) for i, a in enumerate(ranges) for b in ranges[i + 1 :])


@pytest.mark.parametrize(("base", "count"), [("10.0.8.0/21", 9), ("10.0.0.0/25", 1), ("10.100.0.1/16", 2)])
def test_a_base_too_small_or_not_a_network_is_refused(base: str, count: int) -> None:
    """Too few /24s in the base, a base smaller than a /24, or host bits set: refused, not truncated."""
    with pytest.raises(ValueError):
        subnet_ranges(base, count)


def test_the_rendered_env_reads_back_through_the_shell() -> None:
    """Every value survives `source`: spaces, quotes, `$` and the newlines between pools' flags."""
    env = {"A": "plain", "B": "two words", "C": "it's $HOME", "D": "", "E": "line one\nline two"}
    _, real = env_of(RESERVED_AND_SPOT)
    for values in (env, real):
        words = shlex.split(render_env(values))
        assert words == [f"{k}={v}" for k, v in values.items()]


@pytest.mark.parametrize("profile", [p.name for p in shipped_profiles() if p.kind == "RayJob"])
def test_the_networks_follow_the_machines_nics(profile: str) -> None:
    """One gVNIC subnet and one RDMA subnet per NIC of the machine (data/gpus/), each its own /24
    of NETWORK_BASE; a GKENetworkParamSet and a Network for each."""
    spec, env = env_of(profile=profile)
    nics = spec.gpu.rdma_nics
    subnets, ranges = env["RDMA_SUBNETS"].split(), env["RDMA_RANGES"].split()
    assert len(subnets) == len(set(subnets)) == len(ranges) == nics
    all_ranges = [ipaddress.ip_network(r) for r in [env["GVNIC_RANGE"], *ranges]]
    assert len(set(all_ranges)) == nics + 1
    assert all(r.subnet_of(ipaddress.ip_network(env["NETWORK_BASE"])) for r in all_ranges)
    assert env["NETWORK_OBJECTS"] == str(2 * (nics + 1))


def test_each_worker_group_gets_its_pool_with_its_capacity_and_size() -> None:
    """A pool per group, its capacity's flags only, autoscaled up to the group's replicas, on its machine."""
    spec, env = env_of(RESERVED_AND_SPOT)
    pools, capacities = env["GPU_POOLS"].split(), env["POOL_CAPACITIES"].split()
    lines = env["GPU_POOL_FLAGS"].split("\n")
    assert len(pools) == len(set(pools)) == len(capacities) == len(lines) == 2
    by_capacity = dict(zip(capacities, lines, strict=True))
    assert (
        "--reservation=r1" in by_capacity["reservation"].split()
        and "--spot" not in by_capacity["reservation"]
    )
    assert "--spot" in by_capacity["spot"].split() and "--reservation" not in by_capacity["spot"]
    assert (
        "--total-max-nodes=3" in by_capacity["reservation"] and "--total-max-nodes=1" in by_capacity["spot"]
    )
    for line in lines:
        assert f"--machine-type={spec.gpu.machine_type}" in line.split()
        assert f"count={spec.gpu.gpus_per_node}" in line
    flags = pool_flags(spec.values, 5)
    assert (
        "{" not in " ".join(flags)
        and set(AUTOSCALE_FLAGS) <= set(flags)
        and flags[-1] == "--total-max-nodes=5"
    )


@pytest.mark.parametrize(
    ("profile", "sets", "expected"),
    [
        ("b200-standard", (), "0"),  # Spot: no sub-block to find
        ("a4x-standard", (), "2"),  # A4X's placement policy keeps a reserved pool in one NVLink domain
        (
            "b200-standard",
            (
                "queue.enabled=true",
                "cluster.capacity=reservation",
                "cluster.reservation=r1",
                "queue.topology.mode=required",
            ),
            "2",
        ),  # Kueue, all workers in one sub-block
        ("b200-standard", (RESERVED_AND_SPOT,), "0 0"),
    ],
)
def test_only_workers_that_must_share_a_sub_block_ask_for_one(
    profile: str, sets: tuple[str, ...], expected: str
) -> None:
    """A pool's workers need one sub-block on A4X (placement policy) or under Kueue's required sub-block
    placement, and only where the pool's capacity is a reservation."""
    _, env = env_of(*sets, profile=profile)
    assert env["POOL_SUB_BLOCK_NODES"] == expected
    assert len(env["POOL_SUB_BLOCK_NODES"].split()) == len(env["GPU_POOLS"].split())
