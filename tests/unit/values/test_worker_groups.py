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

from ...conftest import DIST_VALUES, render_one

MIXED = (
    "cluster.capacity=reservation,cluster.reservation=r1,"
    "workerGroups.gpu-group=null,workerGroups.reserved.replicas=2,"
    "workerGroups.spot.replicas=2,workerGroups.spot.capacity=spot"
)
POOL = "cloud.google.com/gke-nodepool"
ACCELERATOR = "cloud.google.com/gke-accelerator"
# Reserved B200s beside spot H200s: the machines that may share a run (group-machine-joins-run).
TWO_MACHINES = MIXED + ",workerGroups.spot.machine=h200"


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
    assert reserved["template"]["spec"]["nodeSelector"][POOL] == "gpu-pool-reserved"
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
        "queue.enabled=true,workerGroups.gpu-group=null,workerGroups.spot.replicas=1,"
        "workerGroups.flex.replicas=1,workerGroups.flex.capacity=flex-start"
    )
    queued = {"key": "cloud.google.com/gke-queued", "operator": "Equal", "value": "true"}
    queued["effect"] = "NoSchedule"
    assert queued in groups(spec)["flex"]["template"]["spec"]["tolerations"]
    assert queued not in groups(spec)["spot"]["template"]["spec"]["tolerations"]


def test_replica_bounds_default_to_replicas_and_pass_through() -> None:
    spec = cluster_spec("workerGroups.gpu-group=null,workerGroups.g.replicas=2,workerGroups.g.maxReplicas=4")
    (group,) = spec["workerGroupSpecs"]
    assert (group["minReplicas"], group["replicas"], group["maxReplicas"]) == (2, 2, 4)


def test_a_group_on_another_machine_selects_it_and_is_sized_for_it() -> None:
    import yaml

    objs = [o.manifest for o in render_one(TWO_MACHINES).objects]
    job = next(o for o in objs if o["kind"] == "RayJob")
    spec = job["spec"]["rayClusterSpec"]
    reserved, spot = (groups(spec)[name]["template"]["spec"] for name in ("reserved", "spot"))
    assert reserved["nodeSelector"][ACCELERATOR] == "nvidia-b200"
    assert spot["nodeSelector"][ACCELERATOR] == "nvidia-h200-141gb"
    # each machine's derived default (values/derive.py): A4's and A3 Ultra's memory differ
    requests = [g["containers"][0]["resources"]["requests"] for g in (reserved, spot)]
    assert [r["memory"] for r in requests] == ["3597Gi", "2670Gi"]
    assert [r["nvidia.com/gpu"] for r in requests] == ["8", "8"]
    # One verl and NCCL world: gpu.type's GPUs per node, its tuner for every rank, both groups' nodes.
    env = yaml.safe_load(job["spec"]["runtimeEnvYAML"])["env_vars"]
    assert env["NCCL_TUNER_CONFIG_PATH"].endswith("tuner_config_a4.txtpb")
    entrypoint = job["spec"]["entrypoint"]
    assert "'trainer.n_gpus_per_node=8'" in entrypoint and "'trainer.nnodes=4'" in entrypoint


def test_an_explicit_worker_size_must_fit_every_groups_machine() -> None:
    from verl_grpo.problems import Problems

    render_one(TWO_MACHINES, "worker.memory=2600Gi")
    with pytest.raises(Problems) as refused:
        render_one(TWO_MACHINES, "worker.memory=3000Gi")
    assert "worker.memory: '3000Gi' plus the sidecars" in str(refused.value)
    assert "exceeds what a3-ultragpu-8g can allocate" in str(refused.value)
    render_one(MIXED, "worker.memory=3000Gi")  # both groups on A4: it fits


@pytest.mark.parametrize(
    ("sets", "needle"),
    [
        (
            MIXED + ",workerGroups.spot.machine=a4x",
            "workerGroups.machine: group 'spot' runs on a4x (4 GPUs per node, arm64, 4 RDMA NICs, "
            "multi-node NVLink), but every worker joins one verl and NCCL world made for gpu.type 'b200' "
            "(8 GPUs per node, amd64, 8 RDMA NICs, no multi-node NVLink)",
        ),
        (
            MIXED.replace("capacity=spot", "machine=h200"),
            "workerGroups.machine: group 'spot' runs on h200, but its capacity is reservation 'r1', "
            "which holds gpu.type's machine (a4-highgpu-8g)",
        ),
        (
            TWO_MACHINES + ",queue.enabled=true,queue.createObjects=true,queue.gpuQuota=32",
            "queue.createObjects: renders one GPU flavor, for gpu.type 'b200', but group 'spot' runs on h200",
        ),
        (
            "workerGroups.gpu-group.machine=h100",
            "workerGroups.gpu-group.machine: 'h100' is not one of ['', 'a4x', 'b200', 'h200']",
        ),
        (
            "workerGroups.gpu-group=null,workerGroups.a.replicas=2,workerGroups.a.minReplicas=3",
            "workerGroups.replicas: group 'a': replicas 2 must lie within minReplicas 3 and maxReplicas 0",
        ),
        (
            "workerGroups.b.minReplicas=1",
            "workerGroups.b: 'replicas' is a required property (an entry the chart's values do not have "
            "gets no defaults; give every required field)",
        ),
        (
            "workerGroups.gpu-group=null,workerGroups.Big.replicas=1",
            "workerGroups: 'Big' is not allowed: lowercase letters, digits and '-', starting with a letter",
        ),
        (
            "workerGroups.gpu-group=null",
            "workerGroups: {} should be non-empty",
        ),
        # The chart's earlier shape, a list, and how to write it as the map (loader.validate; the
        # chart's validateValues says the same, test_chart.py).
        (
            "workerGroups[0].name=a,workerGroups[0].replicas=1,workerGroups[1].name=b,workerGroups[1].replicas=3",
            'workerGroups: a map keyed by group name, not a list: write workerGroups: {"a":{"replicas":1},'
            '"b":{"replicas":3}} (a map merges with the chart\'s gpu-group: set gpu-group: null to drop it)',
        ),
    ],
)
def test_bad_groups_are_refused_naming_the_key(sets: str, needle: str) -> None:
    from verl_grpo.problems import Problems

    with pytest.raises(Problems, match=None) as refused:
        render_one(sets)
    assert needle in str(refused.value)


def test_scripts_make_each_groups_pool_of_its_machine() -> None:
    profile = find_profile("b200-standard")
    spec = load_spec(profile.layer(), (DIST_VALUES,), (TWO_MACHINES,), Release("verl", "default"), True)
    env = shell_env(spec, profile)
    reserved, spot = env["GPU_POOL_FLAGS"].split("\n")
    assert reserved.startswith(
        "--machine-type=a4-highgpu-8g --accelerator=type=nvidia-b200,count=8,gpu-driver-version=latest "
    )
    assert spot.startswith(
        "--machine-type=a3-ultragpu-8g "
        "--accelerator=type=nvidia-h200-141gb,count=8,gpu-driver-version=latest "
    )
    # the cluster must be new enough for GPUDirect RDMA on both machines (data/gpus/)
    from verl_grpo.values.gke_versions import used_features

    assert {"gpudirect-rdma-b200", "gpudirect-rdma-h200"} <= {f.name for f in used_features(spec.values)}


def test_plan_shows_each_machines_workers_and_sizes_memory_for_the_smallest_gpu() -> None:
    profile = find_profile("b200-standard")
    spec = load_spec(profile.layer(), (DIST_VALUES,), (TWO_MACHINES,), Release("verl", "default"), False)
    plan = make_plan(spec, [], 10.0)
    text = render_text(plan)
    assert (
        "reserved 2 x reservation on b200 (pool gpu-pool-reserved), "
        "spot 2 x spot on h200 (pool gpu-pool-spot)" in text
    )
    workers = {p["node"]: p["pod"] for p in plan.pods if p["pod"].startswith("worker")}
    assert workers == {"a4-highgpu-8g": "worker x2", "a3-ultragpu-8g": "worker x2"}
    assert plan.memory_per_gpu_gb["gpu_gb"] == 141  # the H200's, not the B200's


def test_scripts_get_a_pool_per_group_with_its_capacity_and_size() -> None:
    profile = find_profile("b200-standard")
    spec = load_spec(profile.layer(), (DIST_VALUES,), (MIXED,), Release("verl", "default"), True)
    env = shell_env(spec, profile)
    assert env["GPU_POOLS"] == "gpu-pool-reserved gpu-pool-spot"
    assert env["POOL_CAPACITIES"] == "reservation spot"
    reserved, spot = env["GPU_POOL_FLAGS"].split("\n")
    assert "--reservation=r1" in reserved and "--total-max-nodes=2" in reserved and "--spot" not in reserved
    assert "--spot" in spot and "--total-max-nodes=2" in spot and "--reservation" not in spot


def test_plan_names_the_groups_and_bills_only_the_reserved_ones_idle() -> None:
    profile = find_profile("b200-standard")
    spec = load_spec(profile.layer(), (DIST_VALUES,), (MIXED,), Release("verl", "default"), False)
    plan = make_plan(spec, [], 10.0)
    assert plan.gpu["nodes"] == 4 and plan.gpu["capacity"] == "reservation + spot"
    assert plan.cost["idle_per_hour"] == 2 * 8 * 10.0 and plan.cost["per_hour"] == 4 * 8 * 10.0
    assert (
        "Worker groups: reserved 2 x reservation (pool gpu-pool-reserved), "
        "spot 2 x spot (pool gpu-pool-spot)." in render_text(plan)
    )


@pytest.mark.parametrize("profile", ["b200-standard", "h200-standard-raycluster", "a4x-standard"])
def test_several_groups_validate_strictly(profile: str) -> None:
    """The pinned KubeRay and NVIDIA CRDs and Kubernetes' schema take what several groups
    render (two workerGroupSpecs, pool selectors), with unknown fields refused."""
    from verl_grpo.validate.documents import Document
    from verl_grpo.validate.validator import ManifestValidator

    sets = MIXED if profile != "a4x-standard" else MIXED.replace("capacity=spot", "capacity=reservation")
    # a bucket and (A4X) an image of one's own: dist/'s placeholders are refused (dist-placeholder)
    own = "storage.bucket=my-training-bucket,image.repository=us-docker.pkg.dev/my-project/verl/verl"
    objs = [o.manifest for o in render_one(sets, own, profile=profile).objects]
    found = ManifestValidator().validate([Document(f"doc{i}", o) for i, o in enumerate(objs)])
    assert [f for f in found if f.severity == "error"] == []
    ray = next(o for o in objs if o["kind"] in {"RayJob", "RayCluster"})
    assert len(ray["spec"].get("rayClusterSpec", ray["spec"])["workerGroupSpecs"]) == 2
