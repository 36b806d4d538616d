"""workerGroups: a workerGroupSpec per group, each with its capacity's selectors and, with more than
one group on Standard, its own node pool; verl's node count is their sum."""

from __future__ import annotations

from typing import Any

import pytest

from verl_grpo.pipeline import load_spec
from verl_grpo.plan import make_plan, render_text
from verl_grpo.profiles import find_profile
from verl_grpo.shell_env import shell_env
from verl_grpo.values.derive import Release

from ..conftest import DIST_VALUES, render_one

MIXED = (
    "cluster.capacity=reservation,cluster.reservation=r1,"
    "workerGroups[0].name=reserved,workerGroups[0].replicas=2,"
    "workerGroups[1].name=spot,workerGroups[1].replicas=2,workerGroups[1].capacity=spot"
)
POOL = "cloud.google.com/gke-nodepool"


def cluster_spec(*sets: str, profile: str = "b200-standard") -> dict[str, Any]:
    objs = [o.manifest for o in render_one(*sets, profile=profile).objects]
    job = next(o for o in objs if o["kind"] in {"RayJob", "RayCluster"})
    return job["spec"].get("rayClusterSpec", job["spec"]) | {"entrypoint": job["spec"].get("entrypoint", "")}


def groups(spec: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {g["groupName"]: g for g in spec["workerGroupSpecs"]}


def test_the_default_is_one_group_as_before() -> None:
    spec = cluster_spec()
    (group,) = spec["workerGroupSpecs"]
    assert (group["groupName"], group["replicas"], group["minReplicas"], group["maxReplicas"]) == (
        "gpu-group",
        2,
        2,
        2,
    )
    assert POOL not in group["template"]["spec"]["nodeSelector"]  # one pool: nothing to tell apart
    assert "'trainer.nnodes=2'" in spec["entrypoint"]


def test_a_reserved_and_a_spot_group_each_select_their_pool_and_verl_counts_both() -> None:
    spec = cluster_spec(MIXED)
    reserved, spot = groups(spec)["reserved"], groups(spec)["spot"]
    assert reserved["template"]["spec"]["nodeSelector"][POOL] == "gpu-pool"
    assert "cloud.google.com/gke-spot" not in reserved["template"]["spec"]["nodeSelector"]
    assert spot["template"]["spec"]["nodeSelector"][POOL] == "gpu-pool-spot"
    assert spot["template"]["spec"]["nodeSelector"]["cloud.google.com/gke-spot"] == "true"
    assert "'trainer.nnodes=4'" in spec["entrypoint"] and "--nodes 4 " in spec["entrypoint"]


def test_autopilot_groups_ask_for_their_capacity_and_no_pool() -> None:
    spec = cluster_spec(MIXED, "cluster.zone=us-central1-b", profile="b200-autopilot")
    reserved, spot = groups(spec)["reserved"], groups(spec)["spot"]
    assert reserved["template"]["spec"]["nodeSelector"]["cloud.google.com/reservation-name"] == "r1"
    assert spot["template"]["spec"]["nodeSelector"]["cloud.google.com/gke-spot"] == "true"
    assert POOL not in spot["template"]["spec"]["nodeSelector"]


def test_a_flex_start_group_alone_tolerates_queued_provisioning() -> None:
    spec = cluster_spec(
        "queue.enabled=true,workerGroups[0].name=spot,workerGroups[0].replicas=1,"
        "workerGroups[1].name=flex,workerGroups[1].replicas=1,workerGroups[1].capacity=flex-start"
    )
    queued = {"key": "cloud.google.com/gke-queued", "operator": "Equal", "value": "true"}
    queued["effect"] = "NoSchedule"
    assert queued in groups(spec)["flex"]["template"]["spec"]["tolerations"]
    assert queued not in groups(spec)["spot"]["template"]["spec"]["tolerations"]


def test_replica_bounds_default_to_replicas_and_pass_through() -> None:
    spec = cluster_spec("workerGroups[0].name=g,workerGroups[0].replicas=2,workerGroups[0].maxReplicas=4")
    (group,) = spec["workerGroupSpecs"]
    assert (group["minReplicas"], group["replicas"], group["maxReplicas"]) == (2, 2, 4)


@pytest.mark.parametrize(
    ("sets", "needle"),
    [
        (
            "workerGroups[0].name=a,workerGroups[0].replicas=1,workerGroups[1].name=a,workerGroups[1].replicas=1",
            "workerGroups.name: 'a' names more than one worker group",
        ),
        (
            "workerGroups[0].name=a,workerGroups[0].replicas=2,workerGroups[0].minReplicas=3",
            "workerGroups.replicas: group 'a': replicas 2 must lie within minReplicas 3 and maxReplicas 0",
        ),
        (
            "workerGroups[0].replicas=2",
            "workerGroups.0: 'name' is a required property (a list item gets no defaults: with --set, "
            "a list element replaces the whole list; give every required field)",
        ),
    ],
)
def test_bad_groups_are_refused_naming_the_key(sets: str, needle: str) -> None:
    from verl_grpo.problems import Problems

    with pytest.raises(Problems, match=None) as refused:
        render_one(sets)
    assert needle in str(refused.value)


def test_scripts_get_a_pool_per_group_with_its_capacity_and_size() -> None:
    profile = find_profile("b200-standard")
    spec = load_spec(profile.layer(), (DIST_VALUES,), (MIXED,), Release("verl", "default"), True)
    env = shell_env(spec, profile)
    assert env["GPU_POOLS"] == "gpu-pool gpu-pool-spot"
    assert env["POOL_CAPACITIES"] == "reservation spot"
    reserved, spot = env["GPU_POOL_FLAGS"].split("\n")
    assert "--reservation=r1" in reserved and "--total-max-nodes=2" in reserved and "--spot" not in reserved
    assert "--spot" in spot and "--total-max-nodes=2" in spot and "--reservation" not in spot


def test_plan_names_the_groups_and_bills_only_the_reserved_ones_idle() -> None:
    profile = find_profile("b200-standard")
    spec = load_spec(profile.layer(), (DIST_VALUES,), (MIXED,), Release("verl", "default"), False)
    plan = make_plan(spec, [], 10.0, "0.6.1")
    assert plan.gpu["nodes"] == 4 and plan.gpu["capacity"] == "reservation + spot"
    assert plan.cost["idle_per_hour"] == 2 * 8 * 10.0 and plan.cost["per_hour"] == 4 * 8 * 10.0
    assert (
        "Worker groups: reserved 2 x reservation (pool gpu-pool), spot 2 x spot (pool gpu-pool-spot)."
        in render_text(plan)
    )


@pytest.mark.parametrize("profile", ["b200-standard", "h200-standard-raycluster", "a4x-standard"])
def test_several_groups_validate_strictly(profile: str) -> None:
    """The pinned KubeRay and NVIDIA CRDs and Kubernetes' schema take what several groups
    render (two workerGroupSpecs, pool selectors), with unknown fields refused."""
    from verl_grpo.validate.documents import Document
    from verl_grpo.validate.validator import ManifestValidator

    sets = MIXED if profile != "a4x-standard" else MIXED.replace("capacity=spot", "capacity=reservation")
    objs = [o.manifest for o in render_one(sets, profile=profile).objects]
    found = ManifestValidator().validate([Document(f"doc{i}", o) for i, o in enumerate(objs)])
    assert [f for f in found if f.severity == "error"] == []
    ray = next(o for o in objs if o["kind"] in {"RayJob", "RayCluster"})
    assert len(ray["spec"].get("rayClusterSpec", ray["spec"])["workerGroupSpecs"]) == 2
