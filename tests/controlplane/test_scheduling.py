"""Do the rendered pods land where they should, on Nodes shaped like GKE's, by the real scheduler?

The Nodes are objects made here from the project's machine facts (data/gpus/*.yaml,
data/cpu-machines.yaml) with GKE's labels and taints, and allocatable CPU and memory from GKE's
reserved-resources formulas (``verl_grpo.values.machines``): what a GKE node reports as
allocatable. There is no kubelet, so pods are bound (``spec.nodeName``) and never run, which is
all the scheduler decides.

No GCS FUSE webhook runs here, so the pods have no ``gke-gcsfuse-sidecar`` and the nodes run no
DaemonSets: the plain test checks selectors, tolerations and the requests as rendered. A second
test stands those in (an injected native sidecar with the webhook's requests, and pods bound to
each node with the system pods' requests, ``node_fit.GPU_NODE_DAEMONSETS`` / ``CPU_NODE_SYSTEM``)
to hold the project's node-fit model to the scheduler's own accounting.

Each test makes its own nodes (names prefixed per test) and namespace; both go at its end. A
pod bound to a node never confirms its deletion without a kubelet, so namespaces are emptied
with --force (``helpers.await_namespaces_deleted``) at the end of the module.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import yaml

from verl_grpo.values.machines import (
    GpuProfile,
    allocatable_cpu,
    allocatable_ephemeral_bytes,
    allocatable_memory_gib,
    cpu_machines,
    gpu_profiles,
)
from verl_grpo.values.node_fit import CPU_NODE_SYSTEM, GPU_NODE_DAEMONSETS, Amounts, sidecars

from .cluster import ControlPlane
from .helpers import (
    DIST,
    await_namespaces_deleted,
    begin_namespace_deletion,
    items,
    pods,
    release_pvs,
    scheduled_condition,
    synth,
    unschedulable,
    wait_for,
)

pytestmark = pytest.mark.controlplane

GPU = "nvidia.com/gpu"
ZONE = "us-central1-b"  # what the Autopilot profiles pin (cluster.zone)
ACCELERATOR = "cloud.google.com/gke-accelerator"
ACCELERATOR_COUNT = "cloud.google.com/gke-accelerator-count"
NODEPOOL = "cloud.google.com/gke-nodepool"
COMPUTE_CLASS = "cloud.google.com/compute-class"
MACHINE_FAMILY = "cloud.google.com/machine-family"
# Marks the nodes this module made, so a crashed run's leftovers can be found by selector.
OWNER = "verl-grpo.test/owner"
# The chart's Standard defaults (charts/verl-grpo/values.yaml cluster.*): the CPU pool's machine,
# node count and boot disk; the head, the data-prep Job (and a RayJob's submitter) share it.
CPU_MACHINE, CPU_NODES, CPU_DISK_GB = "c2-standard-16", 2, 250
GPU_NODES = 2  # the profiles' workers (workerGroups)
# GPU machines keep ephemeral storage on Local SSD (A3 Ultra and A4: 32 x 375 GB, ~12 TB);
# the project has no formula for it, and the workers ask 1000Gi: a generous bound will do.
GPU_EPHEMERAL = 10 * 2**40
# A4X's workers claim DRA devices (DRANET's NICs, the ComputeDomain's IMEX channel) that only
# drivers publish (ResourceSlices from GKE's DRANET and NVIDIA's DRA driver, neither runs here): the
# scheduler would rightly leave them Pending. Their objects go through the real API server in
# test_differential.py and test_helm_lifecycle.py.
PROFILES = sorted(
    p.name for p in DIST.iterdir() if (p / "kustomization.yaml").is_file() and not p.name.startswith("a4x-")
)


# --- nodes --------------------------------------------------------------------------------------


def node(
    name: str, labels: dict[str, str], capacity: dict[str, str], allocatable: dict[str, str]
) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {
            "name": name,
            "labels": {
                "kubernetes.io/hostname": name,
                "kubernetes.io/os": "linux",
                "kubernetes.io/arch": "amd64",
                "topology.kubernetes.io/zone": ZONE,
                OWNER: "test_scheduling",
                **labels,
            },
        },
        # Status is kept on create (the kubelet registers nodes this way; see the smoke test).
        "status": {"capacity": capacity, "allocatable": allocatable},
    }


def cpu_quantity(cores: float) -> str:
    return f"{math.floor(cores * 1000)}m"  # rounded down: what the node can give, never more


def node_resources(vcpu: int, memory_gb: int, ephemeral: float) -> tuple[dict[str, str], dict[str, str]]:
    """Capacity (the machine) and allocatable (GKE's formulas, nothing else taken off)."""
    capacity = {
        "cpu": str(vcpu),
        "memory": f"{memory_gb * 10**9 // 1024}Ki",
        "ephemeral-storage": str(math.floor(ephemeral)),
        "pods": "110",
    }
    allocatable = {
        "cpu": cpu_quantity(allocatable_cpu(vcpu)),
        "memory": f"{math.floor(allocatable_memory_gib(memory_gb) * 2**20)}Ki",
        "ephemeral-storage": str(math.floor(ephemeral)),
        "pods": "110",
    }
    return capacity, allocatable


def gpu_node(name: str, gpu: GpuProfile, autopilot: bool) -> dict[str, Any]:
    capacity, allocatable = node_resources(gpu.vcpu, gpu.memory_gb, GPU_EPHEMERAL)
    gpus = {GPU: str(gpu.gpus_per_node)}
    labels = {
        ACCELERATOR: gpu.accelerator,
        "cloud.google.com/gke-spot": "true",  # the profiles' default capacity: spot
        "node.kubernetes.io/instance-type": gpu.machine_type,
    }
    if autopilot:
        # Autopilot labels GPU nodes with the count too; the workers' selectors name it. (Its
        # spot taint is left out: Autopilot adds the matching toleration to Spot pods itself.)
        labels[ACCELERATOR_COUNT] = str(gpu.gpus_per_node)
    else:
        labels[NODEPOOL] = "gpu-pool"
    body = node(name, labels, capacity | gpus, allocatable | gpus)
    # GKE taints every GPU node so that only pods asking for GPUs (tolerating it) land there.
    body["spec"] = {"taints": [{"key": GPU, "value": "present", "effect": "NoSchedule"}]}
    return body


def cpu_node(name: str, labels: dict[str, str], machine: str = CPU_MACHINE) -> dict[str, Any]:
    m = cpu_machines()[machine]
    ephemeral = allocatable_ephemeral_bytes(CPU_DISK_GB)
    capacity, allocatable = node_resources(m.vcpu, m.memory_gb, ephemeral)
    capacity["ephemeral-storage"] = str(CPU_DISK_GB * 10**9)
    return node(name, {"node.kubernetes.io/instance-type": machine, **labels}, capacity, allocatable)


def cpu_pool_labels(autopilot: bool) -> dict[str, str]:
    """Where the head and the data-prep Job go: Standard's CPU pool, or Autopilot's nodes for
    the Performance compute class on the c2 family (one such node per pod on Autopilot)."""
    if autopilot:
        return {COMPUTE_CLASS: "Performance", MACHINE_FAMILY: "c2"}
    return {NODEPOOL: "default-pool"}


@dataclass
class Cluster:
    """The nodes one test made, by role."""

    gpu: list[str] = field(default_factory=list)
    cpu: list[str] = field(default_factory=list)
    decoys: list[str] = field(default_factory=list)  # nodes the pods must not pick

    @property
    def all(self) -> list[str]:
        return self.gpu + self.cpu + self.decoys


def plan_nodes(tag: str, gpu: GpuProfile, gpu_nodes: int = GPU_NODES, cpu_nodes: int = CPU_NODES) -> Cluster:
    other = next(g for g in gpu_profiles().values() if g.name != gpu.name)
    return Cluster(
        gpu=[f"{tag}-{gpu.name}-gpu-{i}" for i in range(gpu_nodes)],
        cpu=[f"{tag}-cpu-{i}" for i in range(cpu_nodes)],
        decoys=[f"{tag}-{other.name}-gpu-decoy", f"{tag}-cpu-decoy"],
    )


def make_nodes(cp: ControlPlane, cluster: Cluster, gpu: GpuProfile, autopilot: bool) -> None:
    """GPU nodes of the profile's type, CPU-pool nodes, and decoys: a GPU node of the other type
    and a CPU node of another pool or compute class, which the selectors must steer away from."""
    other = next(g for g in gpu_profiles().values() if g.name != gpu.name)
    decoy_labels = (
        {COMPUTE_CLASS: "Balanced", MACHINE_FAMILY: "n2"} if autopilot else {NODEPOOL: "spare-pool"}
    )
    bodies = [
        *(gpu_node(n, gpu, autopilot) for n in cluster.gpu),
        *(cpu_node(n, cpu_pool_labels(autopilot)) for n in cluster.cpu),
        gpu_node(cluster.decoys[0], other, autopilot),
        cpu_node(cluster.decoys[1], decoy_labels),
    ]
    cp.kubectl("create", "-f", "-", stdin=json.dumps({"apiVersion": "v1", "kind": "List", "items": bodies}))


# --- fixtures and rendering ------------------------------------------------------------------------


@pytest.fixture(scope="module")
def doomed(control_plane: ControlPlane) -> Iterator[list[str]]:
    """Namespaces whose deletion the tests started; the module waits for all of them at the end."""
    names: list[str] = []
    yield names
    await_namespaces_deleted(control_plane, names)


@pytest.fixture
def lab(control_plane: ControlPlane, doomed: list[str]) -> Iterator[Callable[..., Cluster]]:
    """``lab(tag, gpu, autopilot, ...)`` makes the nodes and a namespace named ``tag``; at the end
    the namespace's deletion starts (finished with the module) and the nodes are deleted."""
    made: list[tuple[str, Cluster]] = []

    def make(tag: str, gpu: GpuProfile, autopilot: bool, **counts: int) -> Cluster:
        cluster = plan_nodes(tag, gpu, **counts)
        made.append((tag, cluster))  # before creating anything, so a half-made lab is cleaned too
        control_plane.kubectl("create", "namespace", tag)
        make_nodes(control_plane, cluster, gpu, autopilot)
        return cluster

    yield make
    for namespace, cluster in made:
        begin_namespace_deletion(control_plane, namespace)
        doomed.append(namespace)
        if pvs := release_pvs(control_plane, namespace, "verl"):
            control_plane.kubectl("delete", *pvs, "--ignore-not-found", "--wait=false")
        control_plane.kubectl("delete", "nodes", *cluster.all, "--ignore-not-found", "--wait=false")


def render(tmp_path: Path, profile: str, namespace: str, *sets: str) -> list[dict[str, Any]]:
    """The profile's objects as `verl-grpo synth -n` writes them, in kustomization order."""
    args = [a for s in sets for a in ("--set", s)]
    folder = synth(tmp_path, profile, "-n", namespace, *args)
    names = yaml.safe_load((folder / "kustomization.yaml").read_text())["resources"]
    return [yaml.safe_load((folder / n).read_text()) for n in names]


def create(cp: ControlPlane, docs: list[dict[str, Any]]) -> None:
    cp.kubectl(
        "apply",
        "--server-side",
        "--field-manager=verl-grpo-controlplane-test",
        "-f",
        "-",
        stdin=json.dumps({"apiVersion": "v1", "kind": "List", "items": docs}),
    )


def ray_spec(doc: dict[str, Any]) -> dict[str, Any]:
    """The RayCluster spec, standalone or inside a RayJob."""
    return doc["spec"]["rayClusterSpec"] if doc["kind"] == "RayJob" else doc["spec"]


def worker_group(docs: list[dict[str, Any]]) -> dict[str, Any]:
    (group,) = next(ray_spec(d) for d in docs if d["kind"] in {"RayCluster", "RayJob"})["workerGroupSpecs"]
    return group


def pod_templates(docs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Every pod template of the run: head, worker groups, the data-prep Job."""
    out = []
    for d in docs:
        if d["kind"] in {"RayCluster", "RayJob"}:
            spec = ray_spec(d)
            out += [spec["headGroupSpec"]["template"], *(g["template"] for g in spec["workerGroupSpecs"])]
        elif d["kind"] == "Job":
            out.append(d["spec"]["template"])
    return out


def expected_pods(docs: list[dict[str, Any]]) -> int:
    """Head + workers + the data-prep Job's pod (a RayJob's submitter only comes once the head
    runs, which it never does here)."""
    jobs = sum(1 for d in docs if d["kind"] == "Job")
    return 1 + worker_group(docs)["replicas"] + jobs


def all_bound(cp: ControlPlane, namespace: str, count: int) -> list[dict[str, Any]] | None:
    found = pods(cp, namespace)
    if len(found) >= count and all(p["spec"].get("nodeName") for p in found):
        return found
    return None


def role(pod: dict[str, Any]) -> str:
    labels = pod["metadata"]["labels"]
    if "ray.io/node-type" in labels:
        return labels["ray.io/node-type"]  # head / worker
    assert "batch.kubernetes.io/job-name" in labels, labels
    return "data-prep"


def node_labels(cp: ControlPlane, names: list[str]) -> dict[str, dict[str, str]]:
    return {n["metadata"]["name"]: n["metadata"]["labels"] for n in items(cp, "nodes", *names)}


# --- every profile binds to its pools -------------------------------------------------------------


@pytest.mark.parametrize("profile", PROFILES)
def test_pods_bind_to_their_pools(
    control_plane: ControlPlane, lab: Callable[..., Cluster], profile: str, tmp_path: Path
) -> None:
    cp = control_plane
    gpu, autopilot = gpu_profiles()[profile.split("-")[0]], "-autopilot" in profile
    namespace = f"sched-{profile}"
    cluster = lab(namespace, gpu, autopilot)
    docs = render(tmp_path, profile, namespace)
    create(cp, docs)

    placed = wait_for("every pod bound to a node", lambda: all_bound(cp, namespace, expected_pods(docs)))
    labels = node_labels(cp, cluster.all)
    by_role: dict[str, list[str]] = {}
    for pod in placed:
        by_role.setdefault(role(pod), []).append(pod["spec"]["nodeName"])
        # No webhook here, so no GCS FUSE sidecar (on GKE: gke-gcsfuse-sidecar, a native sidecar);
        # KubeRay's own wait-gcs-ready init container on workers does not add to the requests.
        spec = pod["spec"]
        assert "gke-gcsfuse-sidecar" not in [
            c["name"] for c in spec.get("initContainers", []) + spec["containers"]
        ]

    assert sorted(by_role) == ["data-prep", "head", "worker"], by_role
    workers = by_role["worker"]
    # One worker per GPU node (each asks for all 8 GPUs), on the profile's accelerator only.
    assert sorted(workers) == sorted(cluster.gpu), workers
    for name in workers:
        assert labels[name][ACCELERATOR] == gpu.accelerator
        if autopilot:
            assert labels[name][ACCELERATOR_COUNT] == str(gpu.gpus_per_node)
    # The head and the data-prep Job on the CPU pool (Standard) or Performance/c2 nodes (Autopilot),
    # on different nodes: together they ask more CPU (12 + 8) than one c2-standard-16 has.
    cpu_pods = by_role["head"] + by_role["data-prep"]
    assert len(set(cpu_pods)) == 2 and set(cpu_pods) <= set(cluster.cpu), (cpu_pods, cluster.cpu)
    for name in cpu_pods:
        assert cpu_pool_labels(autopilot).items() <= labels[name].items()


@pytest.mark.parametrize(
    ("run_gpu", "machine"), [("h200", ""), ("b200", "h200")], ids=["one-machine", "h200-group"]
)
def test_worker_groups_bind_to_their_own_pools(
    control_plane: ControlPlane, lab: Callable[..., Cluster], tmp_path: Path, run_gpu: str, machine: str
) -> None:
    """A reserved group and a spot group (workerGroups): each group's workers land on its own
    pool's nodes (gpu-pool, gpu-pool-spot), never on the other's, though both pools' nodes would
    take either pod were it not for the pool selector the kit adds when there are several groups.
    With the spot group on H200s in a B200 run (workerGroups[].machine), its pods select the H200's
    accelerator and ask for its derived memory: they fit the H200's 2687Gi allocatable only with
    the H200's 2670Gi, not the B200's 3597Gi."""
    cp = control_plane
    gpu, spot_gpu = gpu_profiles()[run_gpu], gpu_profiles()[machine or run_gpu]
    namespace = f"groups-{machine or 'one'}"
    cluster = lab(namespace, gpu, autopilot=False)  # 2 GPU nodes of pool gpu-pool
    spot_nodes = [f"{namespace}-{spot_gpu.name}-spot-{i}" for i in range(2)]
    cluster.gpu += spot_nodes  # deleted with the lab's
    bodies = [gpu_node(n, spot_gpu, autopilot=False) for n in spot_nodes]
    for body in bodies:
        body["metadata"]["labels"][NODEPOOL] = "gpu-pool-spot"
    cp.kubectl("create", "-f", "-", stdin=json.dumps({"apiVersion": "v1", "kind": "List", "items": bodies}))
    groups = (
        "cluster.capacity=reservation,cluster.reservation=r1,workerGroups[0].name=reserved,"
        "workerGroups[0].replicas=2,workerGroups[1].name=spot,workerGroups[1].replicas=2,"
        "workerGroups[1].capacity=spot" + (f",workerGroups[1].machine={machine}" if machine else "")
    )
    docs = render(tmp_path, f"{run_gpu}-standard-raycluster", namespace, groups)
    create(cp, docs)

    placed = wait_for("head, data prep and 4 workers bound", lambda: all_bound(cp, namespace, 6))
    by_group: dict[str, list[str]] = {}
    for pod in placed:
        if group := pod["metadata"]["labels"].get("ray.io/group"):
            by_group.setdefault(group, []).append(pod["spec"]["nodeName"])
    assert sorted(by_group["reserved"]) == sorted(cluster.gpu[:2]), by_group
    assert sorted(by_group["spot"]) == sorted(spot_nodes), by_group


# --- the node-fit model, with sidecars and system pods stood in ----------------------------------


def as_resources(a: Amounts) -> dict[str, str]:
    # Rounded up: a stand-in must never ask for less than what it stands in for.
    return {
        "cpu": f"{math.ceil(a.cpu * 1000)}m",
        "memory": str(math.ceil(a.memory)),
        "ephemeral-storage": str(math.ceil(a.ephemeral)),
    }


def add_fuse_sidecar(template: dict[str, Any], mode: str) -> None:
    """What the GCS FUSE webhook injects: a native sidecar asking for what its annotations imply
    (the limits, or the defaults where a limit is "0"), plus the metadata-prefetch sidecar."""
    notes = template["metadata"]["annotations"]
    need = sidecars(
        mode,
        notes["gke-gcsfuse/cpu-limit"],
        notes["gke-gcsfuse/memory-limit"],
        notes["gke-gcsfuse/ephemeral-storage-limit"],
        prefetch=True,  # every pod mounts the data volume, whose PV turns prefetch on
    )
    template["spec"]["initContainers"] = [
        {
            "name": "gke-gcsfuse-sidecar-standin",
            "image": "registry.k8s.io/pause:3.10",
            "restartPolicy": "Always",
            "resources": {"requests": as_resources(need)},
        }
    ]


def system_pod(name: str, node_name: str, need: Amounts) -> dict[str, Any]:
    """A pod bound straight to a node (no scheduler), asking what GKE's system pods there take."""
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name},
        "spec": {
            "nodeName": node_name,
            "tolerations": [{"operator": "Exists"}],
            "containers": [
                {
                    "name": "system",
                    "image": "registry.k8s.io/pause:3.10",
                    "resources": {"requests": as_resources(need)},
                }
            ],
        },
    }


@pytest.mark.parametrize("profile", [p for p in PROFILES if "-standard" in p])
def test_pods_fit_beside_fuse_sidecars_and_system_pods(
    control_plane: ControlPlane, lab: Callable[..., Cluster], profile: str, tmp_path: Path
) -> None:
    """Standard only: there the project sizes the workers to the node (allocatable less the
    DaemonSets less the sidecars) and packs the CPU pool itself; on Autopilot GKE sizes the nodes."""
    cp = control_plane
    gpu = gpu_profiles()[profile.split("-")[0]]
    namespace = f"fit-{profile}"
    cluster = lab(namespace, gpu, autopilot=False)
    system = [system_pod(f"system-{n}", n, GPU_NODE_DAEMONSETS) for n in cluster.gpu]
    system += [system_pod(f"system-{n}", n, CPU_NODE_SYSTEM) for n in cluster.cpu]
    create(cp, [{**p, "metadata": {**p["metadata"], "namespace": namespace}} for p in system])

    docs = render(tmp_path, profile, namespace)
    for template in pod_templates(docs):
        add_fuse_sidecar(template, "standard")
    create(cp, docs)

    count = expected_pods(docs) + len(system)
    placed = wait_for("every pod bound beside the stand-ins", lambda: all_bound(cp, namespace, count))
    ray_nodes = [p for p in placed if "ray.io/node-type" in p["metadata"].get("labels", {})]
    workers = sorted(p["spec"]["nodeName"] for p in ray_nodes if role(p) == "worker")
    assert workers == sorted(cluster.gpu)


# --- what no longer fits stays Pending, with the scheduler's reason ------------------------------


# A pod tried before the PV controller bound its claims says so until the scheduler's next
# attempt: not the reason a test waits for.
UNBOUND_CLAIMS = "unbound immediate PersistentVolumeClaims"


def settled(texts: list[str]) -> list[str] | None:
    return None if any(UNBOUND_CLAIMS in t for t in texts) else texts


def pending_reasons(cp: ControlPlane, namespace: str, selector: str, count: int) -> list[str] | None:
    """The PodScheduled messages once ``count`` matching pods are Unschedulable for a settled reason."""
    stuck = [p for p in pods(cp, namespace, selector) if unschedulable(p)]
    return settled([message(p) for p in stuck]) if len(stuck) >= count else None


def message(pod: dict[str, Any]) -> str:
    condition = scheduled_condition(pod)
    assert condition is not None, pod["metadata"]["name"]
    return condition.get("message", "")


def test_more_workers_than_gpu_nodes_wait_for_gpus(
    control_plane: ControlPlane, lab: Callable[..., Cluster], tmp_path: Path
) -> None:
    """Four workers (valid values: verl accepts 32 GPUs) on a GPU pool of 2 nodes."""
    cp = control_plane
    namespace = "pending-gpus"
    cluster = lab(namespace, gpu_profiles()["h200"], autopilot=False)
    create(
        cp,
        render(
            tmp_path,
            "h200-standard-raycluster",
            namespace,
            "workerGroups[0].name=gpu-group,workerGroups[0].replicas=4",
        ),
    )

    selector = "ray.io/node-type=worker"
    messages = wait_for("two workers Unschedulable", lambda: pending_reasons(cp, namespace, selector, 2))
    placed = sorted(p["spec"]["nodeName"] for p in pods(cp, namespace, selector) if p["spec"].get("nodeName"))
    assert placed == sorted(cluster.gpu)
    for text in messages:
        assert f"Insufficient {GPU}" in text, text


def test_worker_memory_above_allocatable_waits(
    control_plane: ControlPlane, lab: Callable[..., Cluster], tmp_path: Path
) -> None:
    """A worker asking 1Gi more memory than a B200 node has allocatable. `verl-grpo check` refuses
    that as values (worker.memory), so the rendered RayCluster is edited instead."""
    cp = control_plane
    gpu = gpu_profiles()["b200"]
    namespace = "pending-memory"
    lab(namespace, gpu, autopilot=False)
    docs = render(tmp_path, "b200-standard-raycluster", namespace)
    too_much = f"{math.ceil(allocatable_memory_gib(gpu.memory_gb)) + 1}Gi"
    (container,) = worker_group(docs)["template"]["spec"]["containers"]
    container["resources"]["requests"]["memory"] = container["resources"]["limits"]["memory"] = too_much
    create(cp, docs)

    messages = wait_for(
        "both workers Unschedulable", lambda: pending_reasons(cp, namespace, "ray.io/node-type=worker", 2)
    )
    for text in messages:
        assert "Insufficient memory" in text, text
        assert f"Insufficient {GPU}" not in text, text  # the GPUs are free; memory is what is short


def test_cpu_pool_of_one_node_leaves_a_pod_waiting(
    control_plane: ControlPlane, lab: Callable[..., Cluster], tmp_path: Path
) -> None:
    """The project packs the head (12 CPU) and the data-prep Job (8 CPU) onto cpuNodeCount=2
    c2-standard-16 nodes, and `check` refuses 1 node; the scheduler agrees: with one, one waits."""
    cp = control_plane
    namespace = "pending-cpu"
    lab(namespace, gpu_profiles()["b200"], autopilot=False, cpu_nodes=1)
    create(cp, render(tmp_path, "b200-standard-raycluster", namespace))

    def one_waiting() -> list[str] | None:
        cpu_pods = [p for p in pods(cp, namespace) if role(p) != "worker"]
        stuck = [p for p in cpu_pods if unschedulable(p)]
        bound = [p for p in cpu_pods if p["spec"].get("nodeName")]
        return settled([message(p) for p in stuck]) if len(stuck) == 1 and len(bound) == 1 else None

    (text,) = wait_for("the head or the data-prep pod Unschedulable", one_waiting)
    assert "Insufficient cpu" in text, text
