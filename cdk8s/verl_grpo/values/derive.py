"""Derived settings: computed once, here, from the values and the machine facts.

Constructs receive a DeploySpec and never re-derive a number.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from .. import __version__
from .machines import GIB, GpuProfile, allocatable_cpu, allocatable_memory_gib, gpu_profiles
from .model import Values
from .node_fit import GPU_NODE_DAEMONSETS, Amounts, sidecars
from .refs import Ops

# verl >= 0.7 asks 3 CPUs per GPU bundle in each node's placement group and waits forever otherwise.
RAY_CPUS_PER_GPU = 3
# GCS FUSE sidecar limits: "0" (unlimited) is allowed on Standard only (gcs-fuse-csi-driver
# docs/troubleshooting.md: "You cannot use value "0" ... on Autopilot clusters"); on Autopilot GPU
# nodes the sidecar cannot exceed 2 vCPU and 14 GiB (same file), and the limit is also its request.
SIDECAR_LIMITS = {
    "standard": ("0", "0", "0"),
    "autopilot": ("2", "14Gi", "200Gi"),
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
    values_digest: str  # names what must be replaced, not patched, when any value changes


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


def worker_room(gpu: GpuProfile, mode: str) -> Amounts:
    """A GPU node's allocatable less its DaemonSets and the worker pod's FUSE sidecars at the
    mode's default limits: what the worker container may request."""
    node = Amounts(allocatable_cpu(gpu.vcpu), allocatable_memory_gib(gpu.memory_gb) * GIB, 0)
    return node - GPU_NODE_DAEMONSETS - sidecars(mode, *SIDECAR_LIMITS[mode], prefetch=True)


def worker_cpu_default(gpu: GpuProfile, mode: str) -> str:
    return str(math.floor(worker_room(gpu, mode).cpu))


def worker_memory_default(gpu: GpuProfile, mode: str) -> str:
    return f"{math.floor(worker_room(gpu, mode).memory / GIB)}Gi"


def derive(values: Values, ops: Ops) -> Derived:
    gpu = gpu_profiles()[values.gpu.type]
    mode = values.cluster.mode
    sidecar = SIDECAR_LIMITS[mode]
    return Derived(
        worker_cpu=ops.or_default(values.worker.cpu, worker_cpu_default(gpu, mode)),
        worker_memory=ops.or_default(values.worker.memory, worker_memory_default(gpu, mode)),
        sidecar_cpu_limit=ops.or_default(values.storage.sidecar.cpu_limit, sidecar[0]),
        sidecar_memory_limit=ops.or_default(values.storage.sidecar.memory_limit, sidecar[1]),
        sidecar_ephemeral_storage_limit=ops.or_default(
            values.storage.sidecar.ephemeral_storage_limit, sidecar[2]
        ),
        experiment_name=ops.or_default(values.training.experiment_name, values.run.name),
        values_digest=ops.values_digest(values),
    )


def deploy_spec(values: Values, release: Release, ops: Ops | None = None) -> DeploySpec:
    return DeploySpec(values, gpu_profiles()[values.gpu.type], derive(values, ops or Ops()), release)
