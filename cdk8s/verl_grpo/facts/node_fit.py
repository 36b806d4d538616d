"""What every node must hold, and whether it fits: the pods of each pool (sidecars included)
against the machine's allocatable, by GKE's reserved-resources formula (machines.py).

`check` and `plan` read this one model; a values change that no longer fits fails before any
cloud call.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

from .machines import GIB, allocatable_cpu, allocatable_ephemeral_bytes, allocatable_memory_gib, cpu_machines
from .quantity import parse_quantity


@dataclass(frozen=True)
class Amounts:
    cpu: float
    memory: float  # bytes
    ephemeral: float  # bytes

    def __add__(self, other: Amounts) -> Amounts:
        return Amounts(self.cpu + other.cpu, self.memory + other.memory, self.ephemeral + other.ephemeral)

    def __sub__(self, other: Amounts) -> Amounts:
        return Amounts(self.cpu - other.cpu, self.memory - other.memory, self.ephemeral - other.ephemeral)

    def fits(self, room: Amounts) -> bool:
        return self.cpu <= room.cpu and self.memory <= room.memory and self.ephemeral <= room.ephemeral

    def text(self) -> str:
        return f"{self.cpu:g} CPU, {self.memory / GIB:.1f}Gi memory, {self.ephemeral / GIB:.0f}Gi ephemeral"


def amounts(cpu: str, memory: str, ephemeral: str = "0") -> Amounts:
    return Amounts(
        float(parse_quantity(cpu)), float(parse_quantity(memory)), float(parse_quantity(ephemeral))
    )


ZERO = Amounts(0, 0, 0)

# GCS FUSE sidecars the webhook injects into every pod that mounts the bucket
# (GoogleCloudPlatform/gcs-fuse-csi-driver pkg/webhook/config.go: a limit without a request sets
# the request equal to it; limit "0" keeps the default request, deploy/base/webhook/deployment.yaml:
# 250m / 256Mi / 5Gi). The metadata-prefetch sidecar (cmd/webhook/main.go defaults): requests
# 10m / 10Mi / 10Mi, limits 50m / 250Mi; counted at its limits, which Autopilot makes requests.
FUSE_SIDECAR_DEFAULT_REQUEST = amounts("250m", "256Mi", "5Gi")
PREFETCH_SIDECAR = amounts("50m", "250Mi", "10Mi")
# Our log shipper's sidecar (constructs/log_shipper_sidecar.py) on every Ray pod; counted whether
# logs.enabled or not, so the worker's derived requests fit either way.
LOG_SHIPPER_CPU, LOG_SHIPPER_MEMORY = "100m", "256Mi"
LOG_SHIPPER = amounts(LOG_SHIPPER_CPU, LOG_SHIPPER_MEMORY)
# Autopilot GPU nodes: "the sidecar container CPU allocation cannot exceed 2 vCPU and memory
# allocation cannot exceed 14 GiB" (gcs-fuse-csi-driver docs/troubleshooting.md, 2026-06).
AUTOPILOT_GPU_SIDECAR_CPU_MAX, AUTOPILOT_GPU_SIDECAR_MEMORY_MAX = "2", "14Gi"


# The sidecar's (cpu, memory, ephemeral storage) limits when the values leave them empty. "0"
# (unlimited) is allowed on Standard only ("You cannot use value "0" ... on Autopilot clusters",
# same file); on Autopilot the most it may have, and the limit is also its request there.
class SidecarLimits(NamedTuple):
    cpu: str
    memory: str
    ephemeral_storage: str


SIDECAR_LIMITS = {
    "standard": SidecarLimits("0", "0", "0"),
    "autopilot": SidecarLimits(AUTOPILOT_GPU_SIDECAR_CPU_MAX, AUTOPILOT_GPU_SIDECAR_MEMORY_MAX, "200Gi"),
}
# The model volume's file cache (storage.fileCacheCapacity's default): bounded, where an unbounded
# one (-1) grows with every file read until the pod's ephemeral storage is spent. It lives in the
# FUSE sidecar's emptyDir on the node's ephemeral storage, and "the value of Pod annotation
# gke-gcsfuse/ephemeral-storage-limit must be larger than the fileCacheCapacity volume attribute"
# (GKE "Optimize Cloud Storage FUSE CSI driver for performance",
# https://cloud.google.com/kubernetes-engine/docs/how-to/persistent-volumes/cloud-storage-fuse-csi-driver-perf;
# gcs-fuse-csi-driver docs/troubleshooting.md). The default holds the default model (Qwen2.5-32B,
# 61 GiB of bf16 weights) with room for verl and the data.
FILE_CACHE_CAPACITY = "100Gi"
# On a GPU pod the sidecar's ephemeral limit, when the values give none, is the cache's capacity
# plus the webhook's default request (its own logs and buffers): bounded, and above the cache.
GPU_SIDECAR_EPHEMERAL_HEADROOM = "5Gi"
# System DaemonSets on a GPU node. Documented: nccl-rdma-installer 150m (container-engine-accelerators
# gpudirect-rdma/nccl-rdma-installer.yaml @2da1c92), nvidia-gpu-device-plugin 50m / 100Mi
# (cmd/nvidia_gpu/device-plugin.yaml). GKE's own (anetd, netd, fluentbit-gke, gke-metadata-server,
# gke-metrics-agent, pdcsi-node, gcsfusecsi-node, ...) are not documented and scale with the node
# (cloud.google.com/gke-cpu-scaling-level): this is a generous bound; measure with
# `kubectl describe node` on a live node to tighten it.
GPU_NODE_DAEMONSETS = amounts("4", "16Gi", "20Gi")
# The same for a CPU node, plus the kube-system Deployments that land on the first one
# (kube-dns, metrics-server, konnectivity-agent, event exporter): a bound, not a measurement.
CPU_NODE_SYSTEM = amounts("1500m", "3Gi", "10Gi")
# KubeRay's default submitter container (ray-operator common/job.go, v1.4-v1.7): requests
# 500m / 200Mi, limits 1 / 1Gi.
SUBMITTER = amounts("500m", "200Mi", "0")


@dataclass(frozen=True)
class Pool:
    name: str
    machine: str
    nodes: int
    allocatable: Amounts  # per node
    reserved: Amounts  # per node, for system pods

    @property
    def room(self) -> Amounts:
        return self.allocatable - self.reserved


class Pod(NamedTuple):
    """What one pod asks of a node: its containers and sidecars together."""

    name: str
    needs: Amounts


def sidecars(mode: str, cpu_limit: str, memory_limit: str, ephemeral_limit: str, prefetch: bool) -> Amounts:
    """What the FUSE sidecars of one pod request, by the webhook's rules."""
    limit = amounts(cpu_limit, memory_limit, ephemeral_limit)
    d = FUSE_SIDECAR_DEFAULT_REQUEST
    fuse = Amounts(limit.cpu or d.cpu, limit.memory or d.memory, limit.ephemeral or d.ephemeral)
    return fuse + (PREFETCH_SIDECAR if prefetch else ZERO)


def cpu_pool(machine_type: str, nodes: int, disk_gb: int) -> Pool:
    m = cpu_machines()[machine_type]
    allocatable = Amounts(
        allocatable_cpu(m.vcpu),
        allocatable_memory_gib(m.memory_gb) * GIB,
        allocatable_ephemeral_bytes(disk_gb),
    )
    return Pool("cpu", machine_type, nodes, allocatable, CPU_NODE_SYSTEM)


def pack(pods: list[Pod], pool: Pool) -> list[str]:
    """First-fit decreasing onto the pool's nodes (the scheduler's outcome is no better than a
    packing that exists); one problem per pod that fits nowhere."""
    free = [pool.room for _ in range(pool.nodes)]
    problems = []
    for pod in sorted(pods, key=lambda p: (-p.needs.cpu, -p.needs.memory, p.name)):
        for i, room in enumerate(free):
            if pod.needs.fits(room):
                free[i] = room - pod.needs
                break
        else:
            problems.append(
                f"{pod.name} ({pod.needs.text()}) fits on none of the {pool.nodes} {pool.machine} "
                f"nodes of the {pool.name} pool (each has {pool.room.text()} for pods after system pods; "
                f"{', '.join(p.name for p in pods)} must all fit)"
            )
    return problems
