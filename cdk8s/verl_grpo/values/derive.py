"""Derived settings: computed once, here, from the values and the machine facts.

Constructs receive a DeploySpec and never re-derive a number.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from .. import __version__
from .machines import GpuProfile, allocatable_cpu, allocatable_memory_gib, gpu_profiles
from .model import Values
from .refs import Ops

# Left free on a GPU node for GKE's DaemonSets (NCCL installer, metadata server, logging) and the
# GCS FUSE sidecar, whose buffers and parallel downloads grow with read throughput.
WORKER_CPU_HEADROOM = 8
WORKER_MEMORY_HEADROOM_GIB = 48
# verl >= 0.7 asks 3 CPUs per GPU bundle in each node's placement group and waits forever otherwise.
RAY_CPUS_PER_GPU = 3
# GCS FUSE sidecar limits: "0" (unlimited) is allowed on Standard only; Autopilot needs real limits.
SIDECAR_LIMITS = {
    "standard": ("0", "0", "0"),
    "autopilot": ("8", "32Gi", "200Gi"),
}
CHART_NAME = "verl-grpo"


@dataclass(frozen=True)
class Release:
    """Helm's release name and namespace; `verl-grpo synth` takes the same two settings."""

    name: str
    namespace: str


@dataclass(frozen=True)
class Derived:
    worker_cpu: str
    worker_memory: str
    sidecar_cpu_limit: str
    sidecar_memory_limit: str
    sidecar_ephemeral_storage_limit: str
    experiment_name: str


@dataclass(frozen=True)
class DeploySpec:
    """Everything a construct may read: values, machine facts, derived settings, release."""

    values: Values
    gpu: GpuProfile
    derived: Derived
    release: Release

    @property
    def chart_label(self) -> str:
        return f"{CHART_NAME}-{__version__}"


def worker_cpu_default(gpu: GpuProfile) -> str:
    return str(math.floor(allocatable_cpu(gpu.vcpu) - WORKER_CPU_HEADROOM))


def worker_memory_default(gpu: GpuProfile) -> str:
    return f"{math.floor(allocatable_memory_gib(gpu.memory_gb) - WORKER_MEMORY_HEADROOM_GIB)}Gi"


def derive(values: Values, ops: Ops) -> Derived:
    gpu = gpu_profiles()[values.gpu.type]
    sidecar = SIDECAR_LIMITS[values.cluster.mode]
    return Derived(
        worker_cpu=ops.or_default(values.worker.cpu, worker_cpu_default(gpu)),
        worker_memory=ops.or_default(values.worker.memory, worker_memory_default(gpu)),
        sidecar_cpu_limit=ops.or_default(values.storage.sidecar.cpu_limit, sidecar[0]),
        sidecar_memory_limit=ops.or_default(values.storage.sidecar.memory_limit, sidecar[1]),
        sidecar_ephemeral_storage_limit=ops.or_default(
            values.storage.sidecar.ephemeral_storage_limit, sidecar[2]
        ),
        experiment_name=ops.or_default(values.training.experiment_name, values.run.name),
    )


def deploy_spec(values: Values, release: Release, ops: Ops | None = None) -> DeploySpec:
    return DeploySpec(values, gpu_profiles()[values.gpu.type], derive(values, ops or Ops()), release)
