"""GKE's node pools, as the scripts' recorded ``gcloud container`` calls create them.

One function per rule GKE applies to a pool's nodes, each with its source. Machine facts (vCPU,
memory, GPUs, bundled Local SSDs) come from the kit's data files (``values.machines``); nothing
here sizes a node by hand. A test gets its nodes only through ``pools_from_calls`` and
``NodePool.node`` (the autoscaler stand-in calls it), so a flag the scripts do not pass is a
property the nodes do not have.

Not modelled: kube-reserved ephemeral storage beyond the documented figures, node images other
than COS, the DaemonSets GKE runs on each node (``values.node_fit`` bounds them), GKE's own
controllers (node auto-repair, upgrades, the RDMA installer), Autopilot's admission webhook.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from typing import Any

from verl_grpo.facts.machines import (
    DEFAULT_BOOT_DISK_GB,
    allocatable_cpu,
    allocatable_ephemeral_bytes,
    allocatable_memory_gib,
    cpu_machines,
    gpu_profiles,
    local_ssd_ephemeral,
)
from verl_grpo.facts.quantity import parse_quantity

GPU_RESOURCE = "nvidia.com/gpu"
NODEPOOL = "cloud.google.com/gke-nodepool"
ACCELERATOR = "cloud.google.com/gke-accelerator"
ACCELERATOR_COUNT = "cloud.google.com/gke-accelerator-count"
SPOT = "cloud.google.com/gke-spot"
FLEX_START = "cloud.google.com/gke-flex-start"
COMPUTE_CLASS = "cloud.google.com/compute-class"
MACHINE_FAMILY = "cloud.google.com/machine-family"
LOCAL_SSD = "cloud.google.com/gke-ephemeral-storage-local-ssd"
ZONE = "topology.kubernetes.io/zone"
TOPOLOGY_BLOCK = "cloud.google.com/gce-topology-block"
TOPOLOGY_SUBBLOCK = "cloud.google.com/gce-topology-subblock"
TOPOLOGY_HOST = "cloud.google.com/gce-topology-host"
# gcloud's defaults where a flag is absent: a node pool's boot disk is 100 GB of pd-balanced
# (https://cloud.google.com/kubernetes-engine/docs/how-to/custom-boot-disks: "By default, GKE uses
# balanced Persistent Disks"; cluster-autoscaler cloudprovider/gce/gce_price_model.go
# DefaultBootDiskSizeGB = 100), three nodes per zone (gcloud container clusters create --num-nodes),
# e2-medium for a cluster's default pool (gcloud container clusters create --machine-type).
DEFAULT_DISK_TYPE = "pd-balanced"
DEFAULT_NUM_NODES = 3
# GKE's default maximum Pods per node on Standard
# (https://cloud.google.com/kubernetes-engine/docs/how-to/flexible-pod-cidr: 110).
MAX_PODS = 110
NODE_INFO_FIELDS = (
    "machineID",
    "systemUUID",
    "bootID",
    "kernelVersion",
    "osImage",
    "containerRuntimeVersion",
    "kubeletVersion",
    "kubeProxyVersion",
)


# --- the recorded calls ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Call:
    """One recorded gcloud call: its words (release track dropped) and its ``--flag=value``s."""

    words: tuple[str, ...]
    flags: dict[str, list[str]]

    @classmethod
    def parse(cls, args: list[str]) -> Call:
        words = [a for a in args if not a.startswith("-")]
        if words and words[0] in ("alpha", "beta"):
            words = words[1:]
        flags: dict[str, list[str]] = {}
        for a in args:
            if a.startswith("--"):
                name, _, value = a[2:].partition("=")
                flags.setdefault(name, []).append(value)
        return cls(tuple(words), flags)

    def flag(self, name: str, default: str | None = None) -> str | None:
        return self.flags[name][-1] if name in self.flags else default

    def has(self, name: str) -> bool:
        return name in self.flags


def key_values(text: str) -> dict[str, str]:
    """``type=nvidia-h200-141gb,count=8`` (gcloud's dict flags) as a dict."""
    return dict(part.split("=", 1) for part in text.split(",") if "=" in part)


# --- what GKE leaves allocatable ------------------------------------------------------------------


def cpu_millis(cores: float) -> str:
    return f"{math.floor(cores * 1000)}m"  # rounded down: what the node can give, never more


# --- pools --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class NodePool:
    """One node pool: the template every node of it is made from, and its size bounds."""

    name: str
    machine_type: str
    labels: dict[str, str]
    taints: tuple[dict[str, str], ...]
    capacity: dict[str, str]
    allocatable: dict[str, str]
    initial: int  # nodes the pool starts with (--num-nodes)
    max_nodes: int  # --total-max-nodes with autoscaling, else initial
    arch: str
    queued: bool = False  # --enable-queued-provisioning: nodes only for a ProvisioningRequest
    reservation: str = ""  # --reservation's reservation (consumed), or ""
    sub_block: tuple[str, str] | None = None  # (block, sub-block) --reservation pins it to
    topology: bool = False  # GCE labels its nodes' physical topology (gce-topology-*)

    def node(self, name: str, annotations: dict[str, str], topology: dict[str, str] | None = None) -> dict:
        """A Node of this pool, as its kubelet would register it."""
        labels = {
            "kubernetes.io/hostname": name,
            **self.labels,
            **(topology or {}),
        }
        return {
            "apiVersion": "v1",
            "kind": "Node",
            "metadata": {"name": name, "labels": labels, "annotations": annotations},
            "spec": {"taints": [dict(t) for t in self.taints]} if self.taints else {},
            "status": {
                "capacity": dict(self.capacity),
                "allocatable": dict(self.allocatable),
                # Every field is required on create; kwok keeps what is given (node-initialize).
                "nodeInfo": {
                    **dict.fromkeys(NODE_INFO_FIELDS, ""),
                    "architecture": self.arch,
                    "operatingSystem": "linux",
                },
            },
        }


def machine_family(machine_type: str) -> str:
    """``cloud.google.com/machine-family``: the machine type's series (a3, a4, c2, ...), the label a
    Pod selects "for Autopilot to allocate specific Compute Engine hardware"
    (https://cloud.google.com/kubernetes-engine/docs/how-to/performance-pods)."""
    return machine_type.split("-", 1)[0]


def generic_labels(machine_type: str, arch: str, region: str, zone: str) -> dict[str, str]:
    """What every GKE node carries, as cluster-autoscaler builds it for a GCE template node
    (cloudprovider/gce/templates.go@cluster-autoscaler-1.36.1 BuildGenericLabels)."""
    return {
        "kubernetes.io/arch": arch,
        "kubernetes.io/os": "linux",
        "node.kubernetes.io/instance-type": machine_type,
        "topology.kubernetes.io/region": region,
        ZONE: zone,
        "topology.gke.io/zone": zone,
    }


def resources(vcpu: int, memory_gb: int, ephemeral: tuple[int, int], gpus: int) -> tuple[dict, dict]:
    """Capacity and allocatable: CPU and memory by GKE's reservation formulas
    (``values.machines``, https://cloud.google.com/kubernetes-engine/docs/concepts/plan-node-sizes)."""
    capacity = {
        "cpu": str(vcpu),
        "memory": f"{memory_gb * 10**9 // 1024}Ki",
        "ephemeral-storage": str(ephemeral[0]),
        "pods": str(MAX_PODS),
    }
    allocatable = {
        "cpu": cpu_millis(allocatable_cpu(vcpu)),
        "memory": f"{math.floor(allocatable_memory_gib(memory_gb) * 2**20)}Ki",
        "ephemeral-storage": str(ephemeral[1]),
        "pods": str(MAX_PODS),
    }
    if gpus:
        capacity[GPU_RESOURCE] = allocatable[GPU_RESOURCE] = str(gpus)
    return capacity, allocatable


def boot_disk_ephemeral(disk_gb: int) -> tuple[int, int]:
    return disk_gb * 10**9, math.floor(allocatable_ephemeral_bytes(disk_gb))


def pool_from_call(call: Call, pool: str, region: str, cluster_has_cpu_pool: bool) -> NodePool:
    """A Standard pool from ``clusters create`` (its default pool) or ``node-pools create``."""
    machine = call.flag("machine-type", "e2-medium") or "e2-medium"
    zone = (call.flag("node-locations") or call.flag("zone") or "").split(",")[0]
    accelerator = key_values(call.flag("accelerator") or "")
    gpu = next((g for g in gpu_profiles().values() if g.machine_type == machine), None)
    if gpu is not None:
        vcpu, memory_gb, arch, bundled = gpu.vcpu, gpu.memory_gb, gpu.arch, gpu.local_ssds
    else:
        m = cpu_machines()[machine]
        vcpu, memory_gb, arch, bundled = m.vcpu, m.memory_gb, "amd64", 0
    disk_type = call.flag("disk-type", DEFAULT_DISK_TYPE) or DEFAULT_DISK_TYPE
    labels = {
        **generic_labels(machine, arch, region, zone),
        NODEPOOL: pool,
        # https://cloud.google.com/kubernetes-engine/docs/how-to/custom-boot-disks (the label
        # cluster-autoscaler reads back, templates.go BootDiskTypeLabel)
        "cloud.google.com/gke-boot-disk": disk_type,
        "cloud.google.com/gke-os-distribution": "cos",
        MACHINE_FAMILY: machine_family(machine),
    }
    taints: list[dict[str, str]] = []
    ssd_flag = call.flag("ephemeral-storage-local-ssd")
    if ssd_flag is not None:
        # --ephemeral-storage-local-ssd count=N; 0 (or none) takes the machine's bundled disks on
        # machines that dictate their count (GKE API EphemeralStorageLocalSsdConfig.local_ssd_count).
        count = int(key_values(ssd_flag).get("count", "0")) or bundled
        ephemeral = local_ssd_ephemeral(count)
        labels[LOCAL_SSD] = "true"  # cluster-autoscaler templates.go EphemeralStorageLocalSsdLabel
    else:
        ephemeral = boot_disk_ephemeral(int(call.flag("disk-size") or DEFAULT_BOOT_DISK_GB))
    gpus = int(accelerator.get("count", "0"))
    if gpus:
        # https://cloud.google.com/kubernetes-engine/docs/how-to/gpus: nodes labelled with the
        # accelerator; tainted nvidia.com/gpu=present:NoSchedule when the cluster has a non-GPU pool.
        labels[ACCELERATOR] = accelerator["type"]
        if "gpu-driver-version" in accelerator:
            # GKE installs the driver and labels the node so its manual installer stays away
            # (container-engine-accelerators nvidia-driver-installer/cos/daemonset-preloaded.yaml).
            labels["cloud.google.com/gke-gpu-driver-version"] = accelerator["gpu-driver-version"]
        if cluster_has_cpu_pool:
            taints.append({"key": GPU_RESOURCE, "value": "present", "effect": "NoSchedule"})
    if arch == "arm64":
        # "GKE places a kubernetes.io/arch=arm64:NoSchedule taint on all Arm nodes"
        # (https://cloud.google.com/kubernetes-engine/docs/how-to/prepare-arm-workloads-for-deployment)
        taints.append({"key": "kubernetes.io/arch", "value": "arm64", "effect": "NoSchedule"})
    if call.has("spot"):
        # "GKE automatically adds the cloud.google.com/gke-spot=true label" (no taint on Standard)
        # https://cloud.google.com/kubernetes-engine/docs/concepts/spot-vms
        labels[SPOT] = "true"
    if call.has("flex-start"):
        # https://cloud.google.com/kubernetes-engine/docs/how-to/dws-flex-start-training
        labels[FLEX_START] = "true"
    queued = call.has("enable-queued-provisioning")
    if queued:
        # Queued provisioning: GKE taints the pool's nodes cloud.google.com/gke-queued=true:NoSchedule
        # (https://cloud.google.com/kubernetes-engine/docs/how-to/provisioningrequest;
        # cluster-toolkit modules/compute/gke-node-pool README, enable_queued_provisioning).
        taints.append({"key": "cloud.google.com/gke-queued", "value": "true", "effect": "NoSchedule"})
    for text in call.flags.get("node-labels", []):
        labels.update(key_values(text))
    for text in call.flags.get("node-taints", []):
        for part in text.split(","):
            key_value, _, effect = part.partition(":")
            key, _, value = key_value.partition("=")
            taints.append({"key": key, "value": value, "effect": effect})
    reservation, sub_block = reservation_of(call.flag("reservation", "") or "")
    capacity, allocatable = resources(vcpu, memory_gb, ephemeral, gpus)
    initial = int(call.flag("num-nodes", str(DEFAULT_NUM_NODES)) or DEFAULT_NUM_NODES)
    autoscaled = call.has("enable-autoscaling")
    return NodePool(
        name=pool,
        machine_type=machine,
        labels=labels,
        taints=tuple(taints),
        capacity=capacity,
        allocatable=allocatable,
        initial=initial,
        max_nodes=int(call.flag("total-max-nodes") or initial) if autoscaled else initial,
        arch=arch,
        queued=queued,
        reservation=reservation,
        sub_block=sub_block,
        topology=has_topology_labels(call, gpu is not None),
    )


def reservation_of(flag: str) -> tuple[str, tuple[str, str] | None]:
    """``[projects/P/reservations/]NAME[/reservationBlocks/B[/reservationSubBlocks/S]]`` (the
    forms xpk documents, src/xpk/core/reservation.py@367c838): the reservation's name, and the
    (block, sub-block) a pool's nodes are made in when the path names one."""
    parts = flag.split("/")
    if parts[0] == "projects":
        parts = parts[3:]
    named = dict(zip(parts[1::2], parts[2::2], strict=False))
    if "reservationSubBlocks" in named:
        return parts[0], (named["reservationBlocks"], named["reservationSubBlocks"])
    return parts[0], None


def has_topology_labels(call: Call, accelerator_optimized: bool) -> bool:
    """Whether GCE labels the pool's nodes with their physical topology (gce-topology-block,
    -subblock, -host): nodes of a reservation's densely deployed capacity, or placed COMPACT
    (https://cloud.google.com/ai-hypercomputer/docs/workloads/schedule-gke-workloads-tas "Topology
    of GKE nodes on A4 and A3 Ultra VMs": dense capacity "obtained through reservations", Spot and
    flex-start capacity "less likely to allocated close together"; xpk src/xpk/commands/common.py
    @367c838: TAS on A3 Ultra and newer for every capacity type "as long as COMPACT placement is
    used"). A4X's HIGH_THROUGHPUT workload policy consumes a reservation too."""
    compact = call.flag("placement-type") == "COMPACT"
    return accelerator_optimized and (bool(call.flag("reservation")) or compact)


@dataclass(frozen=True)
class Cluster:
    """What the recorded calls made: the cluster's mode, region, zone and (Standard) pools."""

    name: str
    mode: str  # standard | autopilot
    region: str
    zone: str
    pools: tuple[NodePool, ...]

    def resized(self, sizes: dict[str, int]) -> Cluster:
        """The cluster with pools resized by hand to a fixed size (`gcloud container clusters
        resize --node-pool P --num-nodes N`), as a platform keeps reserved capacity warm."""
        pools = tuple(
            dataclasses.replace(p, initial=sizes[p.name], max_nodes=sizes[p.name]) if p.name in sizes else p
            for p in self.pools
        )
        return dataclasses.replace(self, pools=pools)


def cluster_from_calls(calls: list[dict[str, Any]]) -> Cluster:
    """The cluster the recorded gcloud calls created (``tests/fakes`` calls.jsonl entries)."""
    parsed = [Call.parse(c["args"]) for c in calls if c["tool"] == "gcloud"]
    creates = [c for c in parsed if c.words[:3] == ("container", "clusters", "create")]
    autos = [c for c in parsed if c.words[:3] == ("container", "clusters", "create-auto")]
    if autos:
        auto = autos[-1]
        region = auto.flag("location") or ""
        return Cluster(auto.words[3], "autopilot", region, "", ())
    (create,) = creates
    region = create.flag("location") or ""
    zone = (create.flag("node-locations") or "").split(",")[0]
    pools = [pool_from_call(create, "default-pool", region, cluster_has_cpu_pool=True)]
    for c in parsed:
        if c.words[:3] == ("container", "node-pools", "create"):
            pools.append(pool_from_call(c, c.words[3], region, cluster_has_cpu_pool=True))
    return Cluster(create.words[3], "standard", region, zone, tuple(pools))


# --- Autopilot -----------------------------------------------------------------------------------


def autopilot_pool(pod: dict[str, Any], region: str) -> NodePool | None:
    """The node Autopilot provisions for one pending pod, or None when it would make none.

    Autopilot has no node pools: it picks the hardware from the pod's selectors and requests.
    GPU pods: the machine of ``cloud.google.com/gke-accelerator`` with the count the pod names
    (https://cloud.google.com/kubernetes-engine/docs/how-to/autopilot-gpus), Spot when it selects
    ``gke-spot`` (https://cloud.google.com/kubernetes-engine/docs/how-to/autopilot-spot-pods), the
    reservation it names (https://cloud.google.com/kubernetes-engine/docs/how-to/consuming-reservations),
    in the zone it pins. The Performance compute class: one pod per node, of the machine family it
    selects, the smallest the kit knows that fits it; a pod of no class: the general-purpose platform
    (https://cloud.google.com/kubernetes-engine/docs/how-to/performance-pods). Autopilot's GPU nodes
    keep ephemeral storage on the machine's Local SSDs (modelled as a Standard pool given
    --ephemeral-storage-local-ssd); its per-pod ceilings are not modelled.
    """
    selector: dict[str, str] = pod["spec"].get("nodeSelector", {}) or {}
    zone = selector.get(ZONE, f"{region}-b")
    accelerator = selector.get(ACCELERATOR)
    flags = [f"--node-locations={zone}", "--num-nodes=0", "--enable-autoscaling"]
    if accelerator:
        gpu = next((g for g in gpu_profiles().values() if g.accelerator == accelerator), None)
        if gpu is None or "autopilot" not in gpu.modes:
            return None
        count = selector.get(ACCELERATOR_COUNT, str(gpu.gpus_per_node))
        flags += [
            f"--machine-type={gpu.machine_type}",
            f"--accelerator=type={accelerator},count={count},gpu-driver-version=latest",
            "--ephemeral-storage-local-ssd=count=0",
            f"--total-max-nodes={10**6}",
        ]
        if selector.get(SPOT) == "true":
            flags.append("--spot")
        if selector.get("cloud.google.com/reservation-name"):
            flags.append(f"--reservation={selector['cloud.google.com/reservation-name']}")
        pool = pool_from_call(Call.parse(flags), "autopilot-gpu", region, cluster_has_cpu_pool=True)
        labels = {**pool.labels, ACCELERATOR_COUNT: count}
        # A node of the reservation the pod names carries the labels it selects it by.
        labels |= {k: v for k, v in selector.items() if k.startswith("cloud.google.com/reservation-")}
        del labels[NODEPOOL]
        # Autopilot tolerates the Spot taint for Spot pods itself; its GPU nodes keep the GPU taint.
        return dataclasses.replace(pool, labels=labels)
    family = selector.get(MACHINE_FAMILY)
    if COMPUTE_CLASS not in selector and not family:
        # Autopilot's default general-purpose platform: Autopilot picks the hardware and bills the
        # pod's requests (https://cloud.google.com/kubernetes-engine/docs/concepts/autopilot-compute-classes);
        # the twin gives it the kit's smallest general-purpose machine that fits.
        family = "e2"
    elif selector.get(COMPUTE_CLASS) != "Performance" or not family:
        return None
    need_cpu = sum(
        float(parse_quantity(c.get("resources", {}).get("requests", {}).get("cpu", "0")))
        for c in pod["spec"]["containers"]
    )
    fitting = sorted(
        (
            m
            for m in cpu_machines().values()
            if m.name.startswith(f"{family}-") and allocatable_cpu(m.vcpu) > need_cpu
        ),
        key=lambda m: m.vcpu,
    )
    if not fitting:
        return None
    machine = fitting[0].name
    # Autopilot sizes the node's boot disk for the pod's ephemeral storage (its per-class ceilings
    # are not modelled): the smallest whole-GB disk whose allocatable share holds the request.
    need_disk = sum(
        float(parse_quantity(c.get("resources", {}).get("requests", {}).get("ephemeral-storage", "0")))
        for c in pod["spec"]["containers"]
    )
    disk_gb = DEFAULT_BOOT_DISK_GB
    while allocatable_ephemeral_bytes(disk_gb) < need_disk:
        disk_gb += 10
    flags += [f"--machine-type={machine}", f"--total-max-nodes={10**6}", f"--disk-size={disk_gb}"]
    pool = pool_from_call(Call.parse(flags), f"autopilot-{machine}", region, cluster_has_cpu_pool=True)
    labels = {**pool.labels, **({COMPUTE_CLASS: "Performance"} if COMPUTE_CLASS in selector else {})}
    del labels[NODEPOOL]
    return dataclasses.replace(pool, labels=labels)
