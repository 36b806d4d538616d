"""rules/cluster_pools.py: the GPU pools 40-rdma.sh records, and the workers a release asks for."""

from __future__ import annotations

import json

from verl_grpo.pipeline import load_spec
from verl_grpo.profiles import find_profile
from verl_grpo.rules.cluster_pools import (
    NAMESPACE,
    RECORDS,
    pool_problems,
    pool_records,
    records_access,
    records_of,
    worker_selectors,
)
from verl_grpo.values.derive import DeploySpec

TWO_GROUPS = (
    "workerGroups.gpu-group=null,workerGroups.spot.replicas=1,workerGroups.spot.capacity=spot,"
    "workerGroups.ondemand.replicas=1,workerGroups.ondemand.capacity=on-demand"
)


def spec(profile: str, *sets: str) -> DeploySpec:
    found = find_profile(profile)
    assert found
    return load_spec(found.layer(), (), ("storage.bucket=my-bucket", *sets), deploying=False)


def recorded(*specs: tuple[DeploySpec, str]) -> list[tuple[str, str, dict[str, str]]]:
    """The ConfigMap as the API server holds it after 40-rdma.sh applied each line (data merged)."""
    data: dict[str, str] = {}
    for s, profile in specs:
        for line in pool_records(s, profile).splitlines():
            doc = json.loads(line)
            assert doc["metadata"] == {"name": RECORDS, "namespace": NAMESPACE}
            assert len(doc["data"]) == 1  # one pool's key per line: each its own field manager
            data |= doc["data"]
    return records_of({"data": data})


def test_the_pools_made_for_the_values_take_their_workers() -> None:
    for profile, sets in (
        ("h200-standard", ()),
        ("b200-standard-raycluster", ()),
        ("a4x-standard", ("cluster.reservation=r", "image.platforms={linux/amd64,linux/arm64}")),
        ("h200-standard", (TWO_GROUPS,)),
        ("h200-standard", ("cluster.capacity=flex-start",)),
    ):
        s = spec(profile, *sets)
        assert pool_problems(s, recorded((s, profile))) == [], (profile, sets)


def test_a_release_of_another_gpu_is_refused_naming_group_labels_and_pools() -> None:
    made = recorded((spec("h200-standard"), "h200-standard"))
    (problem,) = pool_problems(spec("b200-standard"), made)
    assert problem.key == "workerGroups.gpu-group" and problem.rule == "pool-matches-workers"
    assert problem.message.startswith(
        "its workers select cloud.google.com/gke-accelerator=nvidia-b200, cloud.google.com/gke-spot=true, "
        "which no GPU pool of this cluster gives (the pools scripts/up.sh made: gpu-pool for profile "
        "h200-standard): its workers would stay Pending until the deadline."
    )


def test_a_capacity_whose_nodes_carry_a_label_must_have_its_pool() -> None:
    """Spot nodes carry cloud.google.com/gke-spot (facts/capacity.py): a spot run on the nodes of
    an on-demand pool waits; an on-demand run selects no capacity label and lands on any pool of
    its machine."""
    on_demand = recorded((spec("h200-standard", "cluster.capacity=on-demand"), "h200-standard"))
    assert [p.key for p in pool_problems(spec("h200-standard"), on_demand)] == ["workerGroups.gpu-group"]
    spot = recorded((spec("h200-standard"), "h200-standard"))
    assert pool_problems(spec("h200-standard", "cluster.capacity=on-demand"), spot) == []


def test_several_groups_each_need_their_own_pool() -> None:
    """With several groups each selects its pool by name (values/worker_groups.py): the default
    group's pool does not take a group named 'spot'."""
    made = recorded((spec("h200-standard"), "h200-standard"))
    problems = pool_problems(spec("h200-standard", TWO_GROUPS), made)
    assert [p.key for p in problems] == ["workerGroups.ondemand", "workerGroups.spot"]
    assert "cloud.google.com/gke-nodepool=gpu-pool-spot" in problems[1].message


def test_a_second_up_sh_adds_its_pools_beside_the_first_s() -> None:
    h200, b200 = (
        spec("h200-standard", TWO_GROUPS),
        spec("b200-standard", "workerGroups.gpu-group.replicas=1,workerGroups.b.replicas=1"),
    )
    made = recorded((h200, "h200-standard"), (b200, "b200-standard"))
    assert [(pool, profile) for pool, profile, _ in made] == [
        ("gpu-pool", "b200-standard"),  # the b200 run's default group rewrote the pool it made
        ("gpu-pool-b", "b200-standard"),
        ("gpu-pool-ondemand", "h200-standard"),
        ("gpu-pool-spot", "h200-standard"),
    ]
    assert pool_problems(h200, made) == [] and pool_problems(b200, made) == []


def test_without_records_or_on_autopilot_nothing_is_known_or_refused() -> None:
    assert pool_problems(spec("b200-standard"), []) == []
    autopilot = spec("h200-autopilot", "cluster.zone=us-central1-b")
    assert pool_records(autopilot, "h200-autopilot") == ""
    assert pool_problems(autopilot, recorded((spec("b200-standard"), "b200-standard"))) == []


def test_the_selectors_are_the_rendered_worker_groups() -> None:
    from ...conftest import render_one

    groups_set = (
        "workerGroups.gpu-group.replicas=1,workerGroups.spot.replicas=1,workerGroups.spot.capacity=spot"
    )
    rendered = render_one(groups_set, profile="h200-standard")
    (ray,) = [o.manifest for o in rendered.objects if o.manifest["kind"] == "RayJob"]
    groups = ray["spec"]["rayClusterSpec"]["workerGroupSpecs"]
    selectors = worker_selectors(spec("h200-standard", groups_set))
    assert selectors == {g["groupName"]: g["template"]["spec"]["nodeSelector"] for g in groups}


def test_every_authenticated_user_may_read_the_one_configmap() -> None:
    role, binding = json.loads(records_access())["items"]
    assert role["rules"] == [
        {"apiGroups": [""], "resources": ["configmaps"], "resourceNames": [RECORDS], "verbs": ["get"]}
    ]
    assert binding["subjects"][0]["name"] == "system:authenticated"
    assert role["metadata"]["namespace"] == binding["metadata"]["namespace"] == NAMESPACE
