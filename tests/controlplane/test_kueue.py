"""Kueue admits the kit's queued run: the real Kueue controller (sigs.k8s.io/kueue v0.19.2) and
its webhooks beside the loopback control plane, the chart's own queue objects
(queue.createObjects), and the GKE twin's nodes: pools the scripts created for a reservation
(whose nodes GCE labels with their physical topology), resized to a fixed size up front so that
Kueue's topology-aware placement has domains to choose from (``test_twin_kueue.py``: pools that
start at zero).

No kubelet: admission is Kueue's quota and topology decision on the Workload it makes for the
RayJob; no pod has to run. Kueue's mutating webhook suspends the labelled RayJob on creation
(the kit renders no `suspend`), and unsuspends it once admitted.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
import yaml

from verl_grpo.facts.kueue import COVERING_QUOTAS, GPU_RESOURCE, KUEUE_API
from verl_grpo.facts.machines import gpu_profiles
from verl_grpo.values.worker_groups import pool_name

from ..scripts_harness import MY_VALUES
from ..twin.autoscaler import Autoscaler
from ..twin.cloud import provision
from ..unit.constructs.test_kueue_queue import MIXED  # a reserved and a spot group, 1 worker each
from .cluster import ControlPlane, ControlPlaneError
from .helpers import items, synth, wait_for

pytestmark = pytest.mark.controlplane

BLOCK = "cloud.google.com/gce-topology-block"
SUBBLOCK = "cloud.google.com/gce-topology-subblock"
HOST = "cloud.google.com/gce-topology-host"
QUEUED = ("--set", "queue.enabled=true", "--set", "queue.createObjects=true")


@pytest.fixture(scope="module")
def kueue() -> Iterator[ControlPlane]:
    """A control plane of its own: Kueue's webhooks see every RayJob of the cluster."""
    with ControlPlane.start() as cp:
        cp.start_kueue()
        yield cp


# The Standard CPU pool (cluster.cpuNodePool): what the platform's CPU flavors select.
CPU_POOL = {"cloud.google.com/gke-nodepool": "default-pool"}
RESERVED = "cluster.capacity=reservation,cluster.reservation=r1"


@contextmanager
def twin_nodes(
    cp: ControlPlane, tmp_path: Path, sets: str, sub_blocks: str, sizes: dict[str, int], tag: str
) -> Iterator[dict[str, str]]:
    """The scripts for the run's values on the fake cloud, whose reservation lists ``sub_blocks``
    (FAKE_SUB_BLOCKS), and the twin's nodes of the pools ``sizes`` names, kept at that size;
    yields each GPU node's sub-block. The nodes go when the block ends."""
    args = ("-f", str(MY_VALUES), "--set", sets)
    cloud = provision("h200-standard", tmp_path / "cloud", *args, env={"FAKE_SUB_BLOCKS": sub_blocks})
    cluster = cloud.cluster.resized(sizes)
    scaler = Autoscaler(cp, cluster, ("default",), tag=tag, sub_blocks=cloud.sub_blocks)
    with scaler.running():
        nodes = items(cp, "nodes", "-l", f"twin.verl-grpo.test/autoscaler={scaler.tag}")
        yield {n["metadata"]["name"]: n["metadata"]["labels"].get(SUBBLOCK, "") for n in nodes}


def domains(topology: dict[str, Any]) -> list[dict[str, str]]:
    """A Workload's topology assignment as one {level: value} per domain (v1beta2 encodes each
    level's values per slice as one universal value or prefix + roots + suffix;
    apis/kueue/v1beta2/workload_types.go@v0.19.2 TopologyAssignmentSlice)."""
    out = []
    for piece in topology["slices"]:
        count = piece.get("domainCount", 1)
        columns = []
        for level in piece["valuesPerLevel"]:
            if "universal" in level:
                columns.append([level["universal"]] * count)
            else:
                each = level["individual"]
                columns.append([each.get("prefix", "") + r + each.get("suffix", "") for r in each["roots"]])
        out += [dict(zip(topology["levels"], values, strict=True)) for values in zip(*columns, strict=True)]
    return out


def workload_of(cp: ControlPlane, ray_job: str) -> dict[str, Any] | None:
    found = [
        w
        for w in items(cp, "workloads.kueue.x-k8s.io", "-n", "default")
        if any(o["name"] == ray_job for o in w["metadata"].get("ownerReferences", []))
    ]
    return found[0] if found else None


def condition(obj: dict[str, Any], kind: str) -> dict[str, Any]:
    return next((c for c in obj.get("status", {}).get("conditions", []) if c["type"] == kind), {})


def ray_job(folder: Path) -> dict[str, Any]:
    (path,) = folder.glob("rayjob-*.yaml")
    return yaml.safe_load(path.read_text())


def apply_and_admit(cp: ControlPlane, folder: Path, what: str) -> tuple[str, dict[str, Any]]:
    """`kubectl apply -k` the rendered run; its RayJob's name and Workload once Kueue admits it."""
    cp.kubectl("apply", "-k", str(folder))
    name = ray_job(folder)["metadata"]["name"]
    admitted = wait_for(
        f"the Workload of {what} admitted",
        lambda: (w := workload_of(cp, name)) and condition(w, "Admitted").get("status") == "True" and w,
        timeout=120,
    )
    return name, admitted


def test_a_queued_run_is_admitted_within_one_subblock_and_a_second_waits_for_quota(kueue, tmp_path):
    """Three reserved H200 nodes kept warm: one in sub-block sb2 (listed first), two in sb1."""
    with twin_nodes(
        kueue, tmp_path, f"{TAS},{RESERVED}", "b1/sb2/1/0 b1/sb1/2/0", {"gpu-pool": 3}, "kueue-tas"
    ) as subblock_of:
        check_admitted_within_one_subblock(kueue, tmp_path, subblock_of)


TAS = "queue.enabled=true,queue.createObjects=true,queue.topology.mode=required"


def check_admitted_within_one_subblock(cp: ControlPlane, tmp_path: Path, subblock_of: dict[str, str]) -> None:
    asked = ("--set", TAS, "--set", RESERVED)
    name, admitted = apply_and_admit(cp, synth(tmp_path / "a", "h200-standard", *asked), "the RayJob")
    assignments = {p["name"]: p for p in admitted["status"]["admission"]["podSetAssignments"]}
    workers = next(p for n, p in assignments.items() if n not in ("head", "submitter"))
    assert workers["flavors"]["nvidia.com/gpu"] == "verl-gpu-gpu"
    assert assignments["head"]["flavors"]["cpu"] == "verl-gpu-cpu"  # CPU pods stay on the CPU pool
    # Both workers within one sub-block: sb1 holds two nodes, sb2 (listed first) one.
    placed = domains(workers["topologyAssignment"])
    subblocks = {d.get(SUBBLOCK) or subblock_of[d["kubernetes.io/hostname"]] for d in placed}
    assert subblocks == {"sb1"}, workers["topologyAssignment"]
    job = items(cp, "rayjob", name, "-n", "default")[0]
    assert (
        job["spec"].get("suspend") is not True
        and job["metadata"]["labels"]["kueue.x-k8s.io/queue-name"] == "verl"
    )

    # The ClusterQueue admits 16 GPUs: a second run of the same size waits, suspended.
    # (Asking for placement too: Kueue keeps a flavor with a topology for pods that ask for one.)
    second = synth(tmp_path / "b", "h200-standard", *asked, "--set", "run.name=grpo-002")
    cp.kubectl("create", "-f", "-", stdin=json.dumps(ray_job(second)))
    other = ray_job(second)["metadata"]["name"]
    waiting = wait_for(
        "the second Workload refused for quota",
        lambda: (
            (w := workload_of(cp, other)) and condition(w, "QuotaReserved").get("status") == "False" and w
        ),
        timeout=60,
    )
    assert items(cp, "rayjob", other, "-n", "default")[0]["spec"]["suspend"] is True, waiting["status"]
    # It waited for quota, nothing else: once the first run is gone, it is admitted.
    cp.kubectl("delete", "rayjob", name, "-n", "default", "--wait=true")
    wait_for(
        "the second Workload admitted once the first run is deleted",
        lambda: (w := workload_of(cp, other)) and condition(w, "Admitted").get("status") == "True",
        timeout=120,
    )


def test_kueue_refuses_what_the_kit_refuses(kueue, tmp_path):
    """queue-needs-shutdown: Kueue's own RayJob webhook refuses a queued RayJob that keeps its
    cluster, as the kit's rule says (facts/kueue.py)."""
    job = ray_job(synth(tmp_path / "c", "h200-standard", *QUEUED, "--set", "run.name=grpo-003"))
    job["spec"]["shutdownAfterJobFinishes"] = False
    job["spec"].pop("ttlSecondsAfterFinished", None)
    with pytest.raises(ControlPlaneError, match="shutdownAfterJobFinishes"):
        kueue.kubectl("create", "-f", "-", stdin=json.dumps(job))


def test_a_run_of_two_worker_groups_is_admitted_as_one_gang(kueue, tmp_path):
    """workerGroups: Kueue makes a pod set of each group and admits the RayJob only with quota for
    all of them, both on the GPU flavor; topology-aware placement puts each group on a node of its
    own pool (the pool selector the kit adds with several groups)."""
    cp = kueue
    cp.kubectl("delete", "rayjob", "--all", "-n", "default", "--wait=true")  # the quota is ours
    groups = "workerGroups.gpu-group=null,workerGroups.first.replicas=1,workerGroups.second.replicas=1"
    sizes = {pool_name("first"): 1, pool_name("second"): 1}  # one reserved node each, sb5 and sb6 in turn
    with twin_nodes(
        cp, tmp_path, f"{TAS},{RESERVED},{groups}", "b2/sb5/1/0 b2/sb6/1/0", sizes, "kueue-groups"
    ) as subblock_of:
        second_node = next(n for n, sub in subblock_of.items() if sub == "sb6")
        asked = ("--set", f"{TAS},{RESERVED},{groups}", "--set", "run.name=grpo-004")
        _, admitted = apply_and_admit(
            cp, synth(tmp_path / "g", "h200-standard", *asked), "the two-group RayJob"
        )
    sets = {p["name"]: p for p in admitted["spec"]["podSets"]}
    assert {"first", "second"} <= set(sets) and all(sets[g]["count"] == 1 for g in ("first", "second"))
    assignments = {p["name"]: p for p in admitted["status"]["admission"]["podSetAssignments"]}
    for group, node in (("first", None), ("second", second_node)):
        assert assignments[group]["flavors"]["nvidia.com/gpu"] == "verl-gpu-gpu", assignments[group]
        hosts = {d.get("kubernetes.io/hostname") for d in domains(assignments[group]["topologyAssignment"])}
        assert node is None or hosts == {node}, assignments[group]["topologyAssignment"]


def platform_queue(name: str, flavors: dict[str, dict[str, str]]) -> list[dict[str, Any]]:
    """What a platform team keeps (queue.createObjects false): a ResourceFlavor per kind of node,
    one ClusterQueue covering what the run's pods ask for, and a LocalQueue in the namespace."""
    api, covered = KUEUE_API, [*COVERING_QUOTAS, GPU_RESOURCE]  # what the kit's pods ask for
    objects: list[dict[str, Any]] = [
        {"apiVersion": api, "kind": "ResourceFlavor", "metadata": {"name": f}, "spec": {"nodeLabels": labels}}
        for f, labels in flavors.items()
    ]
    resources = [
        {
            "name": f,
            "resources": [
                *({"name": r, "nominalQuota": q} for r, q in COVERING_QUOTAS.items()),
                {"name": GPU_RESOURCE, "nominalQuota": 0 if "cpu" in f else 16},
            ],
        }
        for f in flavors
    ]
    spec = {"namespaceSelector": {}, "resourceGroups": [{"coveredResources": covered, "flavors": resources}]}
    objects.append({"apiVersion": api, "kind": "ClusterQueue", "metadata": {"name": name}, "spec": spec})
    local = {"name": name, "namespace": "default"}
    objects.append(
        {"apiVersion": api, "kind": "LocalQueue", "metadata": local, "spec": {"clusterQueue": name}}
    )
    return objects


def test_a_reserved_and_a_spot_group_take_their_own_flavors_of_a_platform_queue(kueue, tmp_path):
    """queue.createObjects renders one GPU flavor (cluster.capacity's), so groups of several
    capacities go to a ClusterQueue the platform keeps, with a flavor for each kind of node. Kueue
    gives each group's pod set the flavor its node selectors match: the reserved group (pinned to
    gpu-pool-reserved) the reservation's, the spot group (gpu-pool-spot, gke-spot) the spot one, the head and
    submitter the CPU pool's."""
    cp = kueue
    cp.kubectl("delete", "rayjob", "--all", "-n", "default", "--wait=true")
    pool = "cloud.google.com/gke-nodepool"
    flavors = {
        "platform-cpu": CPU_POOL,  # cluster.cpuNodePool's
        "platform-reserved": {pool: pool_name("reserved")},
        "platform-spot": {pool: pool_name("spot"), "cloud.google.com/gke-spot": "true"},
    }
    cp.kubectl(
        "create", "-f", "-", stdin="\n---\n".join(json.dumps(o) for o in platform_queue("platform", flavors))
    )
    asked = (
        "--set",
        "queue.enabled=true,queue.localQueue=platform",
        "--set",
        MIXED,
        "--set",
        "run.name=grpo-005",
    )
    folder = synth(tmp_path / "p", "h200-standard", *asked)
    assert not list(folder.glob("clusterqueue-*.yaml"))  # the platform's, not the kit's
    _, admitted = apply_and_admit(cp, folder, "the reserved + spot RayJob")
    flavor = {
        p["name"]: p["flavors"]["nvidia.com/gpu"]
        for p in admitted["status"]["admission"]["podSetAssignments"]
        if "nvidia.com/gpu" in p["flavors"]
    }
    assert flavor == {"reserved": "platform-reserved", "spot": "platform-spot"}, flavor
    cpu = {p["name"]: p["flavors"]["cpu"] for p in admitted["status"]["admission"]["podSetAssignments"]}
    assert {cpu["head"], cpu["submitter"]} == {"platform-cpu"}, cpu


def test_a_reserved_and_a_spot_group_share_the_kits_gpu_flavor(kueue, tmp_path):
    """queue.createObjects with groups of two capacities: the one GPU flavor names the machine's
    labels alone (constructs/kueue_queue.py), which both groups' selectors match, so the real Kueue
    admits the run with both pod sets on it and within the one GPU quota."""
    cp = kueue
    cp.kubectl("delete", "rayjob", "--all", "-n", "default", "--wait=true")
    names = "queue.clusterQueue=mixed,queue.localQueue=mixed,run.name=grpo-006"
    folder = synth(tmp_path / "m", "h200-standard", *QUEUED, "--set", MIXED, "--set", names)
    _, admitted = apply_and_admit(cp, folder, "the reserved + spot RayJob on the kit's queue")
    assignments = admitted["status"]["admission"]["podSetAssignments"]
    gpu = {p["name"]: p["flavors"]["nvidia.com/gpu"] for p in assignments if "nvidia.com/gpu" in p["flavors"]}
    assert gpu == {"reserved": "mixed-gpu", "spot": "mixed-gpu"}, gpu


def test_a_group_on_another_machine_is_admitted_only_with_a_flavor_of_its_machine(kueue, tmp_path):
    """workerGroups.<name>.machine under Kueue: a GPU flavor that names gpu.type's accelerator, as
    queue.createObjects' one flavor does, suits no pod set of a group on another machine, so Kueue
    never admits the run (queue-objects-one-machine); a platform ClusterQueue with a flavor per
    machine admits it, each group on its own machine's flavor."""
    cp = kueue
    cp.kubectl("delete", "rayjob", "--all", "-n", "default", "--wait=true")
    accelerator, pool = "cloud.google.com/gke-accelerator", "cloud.google.com/gke-nodepool"
    h200, b200 = gpu_profiles()["h200"], gpu_profiles()["b200"]
    cpu = CPU_POOL
    queues = {
        "one-machine": {"one-cpu": cpu, "one-gpu": {accelerator: h200.accelerator}},
        "each-machine": {
            "each-cpu": cpu,
            "each-h200": {accelerator: h200.accelerator, pool: pool_name("reserved")},
            "each-b200": {accelerator: b200.accelerator, pool: pool_name("spot")},
        },
    }
    for name, flavors in queues.items():
        objects = platform_queue(name, flavors)
        cp.kubectl("create", "-f", "-", stdin="\n---\n".join(json.dumps(o) for o in objects))
    groups = MIXED + ",workerGroups.spot.machine=b200"

    def run(queue: str, run_name: str) -> Path:
        asked = ("--set", f"queue.enabled=true,queue.localQueue={queue}", "--set", groups)
        return synth(tmp_path / queue, "h200-standard", *asked, "--set", f"run.name={run_name}")

    refused = ray_job(run("one-machine", "grpo-007"))
    cp.kubectl("create", "-f", "-", stdin=json.dumps(refused))
    waiting = wait_for(
        "the Workload left without flavors",
        lambda: (
            (w := workload_of(cp, refused["metadata"]["name"]))
            and condition(w, "QuotaReserved").get("status") == "False"
            and w
        ),
        timeout=60,
    )
    # Kueue's words: "couldn't assign flavors to pod set spot: ... flavor one-gpu doesn't match
    # node affinity" (the B200 group's pod set; the H200 group's fits).
    message = condition(waiting, "QuotaReserved")["message"]
    assert "pod set spot:" in message and "flavor one-gpu doesn't match node affinity" in message, message
    cp.kubectl("delete", "rayjob", refused["metadata"]["name"], "-n", "default", "--wait=true")

    _, admitted = apply_and_admit(cp, run("each-machine", "grpo-008"), "the H200 + B200 RayJob")
    flavor = {
        p["name"]: p["flavors"]["nvidia.com/gpu"]
        for p in admitted["status"]["admission"]["podSetAssignments"]
        if "nvidia.com/gpu" in p["flavors"]
    }
    assert flavor == {"reserved": "each-h200", "spot": "each-b200"}, flavor
