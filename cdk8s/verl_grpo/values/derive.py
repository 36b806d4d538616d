"""Derived settings: computed once, here, from the values and the machine facts.

Constructs receive a DeploySpec and never re-derive a number.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import NamedTuple

from .. import __version__
from ..facts.kuberay import RAYJOB_FIELD_SINCE
from ..facts.machines import (
    GIB,
    GpuProfile,
    allocatable_cpu,
    allocatable_memory_gib,
    gpu_node_ephemeral_bytes,
    gpu_profiles,
)
from ..facts.node_fit import (
    FILE_CACHE_CAPACITY,
    GPU_NODE_DAEMONSETS,
    GPU_SIDECAR_EPHEMERAL_HEADROOM,
    LOG_SHIPPER,
    SIDECAR_LIMITS,
    Amounts,
    sidecars,
)
from .decisions import Decisions, Helper
from .model import Values

# The GPU pods' FUSE sidecar ephemeral limit with the default file cache (derive's
# gpu_sidecar_ephemeral_storage_limit): what the workers' derived defaults leave it.
GPU_SIDECAR_EPHEMERAL_DEFAULT = Decisions().quantity_plus(FILE_CACHE_CAPACITY, GPU_SIDECAR_EPHEMERAL_HEADROOM)

CHART_NAME = "verl-grpo"
# Derived.storage_digest in Go (Decisions.leaves_digest of the bucket and the capacity).
STORAGE_DIGEST = Helper(
    "verl-grpo.storageDigest",
    "{{- list .Values.storage.bucket .Values.storage.capacity | toJson | sha256sum | trunc 8 }}",
    "The PV and PVC names' suffix: a digest of storage.bucket and storage.capacity (Derived.storage_digest).",
)


class Release(NamedTuple):
    """Helm's release name and namespace; `verl-grpo synth` takes the same two settings."""

    name: str
    namespace: str


@dataclass(frozen=True)
class MachineDefaults:
    """What a pod is given unless the values say otherwise, by GPU type and cluster mode: the
    worker container's requests (worker_room) and the FUSE sidecar's limits (node_fit.SIDECAR_LIMITS).
    The chart reads the same figures from `_facts.tpl` (chart/facts.py)."""

    worker_cpu: str
    worker_memory: str
    worker_ephemeral_storage: str
    sidecar_cpu_limit: str
    sidecar_memory_limit: str
    sidecar_ephemeral_storage_limit: str


def machine_defaults(gpu_type: str, mode: str) -> MachineDefaults:
    gpu = gpu_profiles()[gpu_type]
    sidecar = SIDECAR_LIMITS[mode]
    return MachineDefaults(
        worker_cpu=worker_cpu_default(gpu, mode),
        worker_memory=worker_memory_default(gpu, mode),
        worker_ephemeral_storage=worker_ephemeral_default(gpu, mode),
        sidecar_cpu_limit=sidecar.cpu,
        sidecar_memory_limit=sidecar.memory,
        sidecar_ephemeral_storage_limit=sidecar.ephemeral_storage,
    )


def machine_profile(gpu_type: str, mode: str) -> GpuProfile:
    """The machine's facts (the same in every mode)."""
    return gpu_profiles()[gpu_type]


@dataclass(frozen=True)
class Derived:
    worker_cpu: str
    worker_memory: str
    worker_ephemeral_storage: str
    sidecar_cpu_limit: str
    sidecar_memory_limit: str
    sidecar_ephemeral_storage_limit: str  # on CPU pods (head, data prep)
    gpu_sidecar_ephemeral_storage_limit: str  # on GPU pods: above the file cache it holds
    experiment_name: str
    # Names the PV/PVC pairs: the server holds a PV's csi source immutable and does not resize a
    # statically bound claim, so a new bucket or capacity is a new pair, not a failed patch.
    storage_digest: str
    rayjob_version_fields: dict[str, object]  # RayJob spec fields the kuberay.version knows


@dataclass(frozen=True)
class DeploySpec:
    """Everything a construct may read: values, machine facts, derived settings, release."""

    values: Values
    gpu: GpuProfile
    derived: Derived
    release: Release
    decide: Decisions  # the decisions constructs state (values/decisions.py); chart mode writes them

    @property
    def chart_label(self) -> str:
        return f"{CHART_NAME}-{__version__}"


def gpu_node(gpu: GpuProfile) -> Amounts:
    """What a GPU node offers its pods (on Autopilot, a GPU pod's ceiling: machines.py)."""
    return Amounts(
        allocatable_cpu(gpu.vcpu), allocatable_memory_gib(gpu.memory_gb) * GIB, gpu_node_ephemeral_bytes(gpu)
    )


def worker_room(gpu: GpuProfile, mode: str) -> Amounts:
    """A GPU node's allocatable less its DaemonSets and the worker pod's sidecars (FUSE at the
    mode's default limits and the default file cache's limit, the log shipper): what the worker
    container may request."""
    limits = SIDECAR_LIMITS[mode]
    fuse = sidecars(mode, limits.cpu, limits.memory, GPU_SIDECAR_EPHEMERAL_DEFAULT, prefetch=True)
    return gpu_node(gpu) - GPU_NODE_DAEMONSETS - fuse - LOG_SHIPPER


def worker_cpu_default(gpu: GpuProfile, mode: str) -> str:
    return str(math.floor(worker_room(gpu, mode).cpu))


def worker_memory_default(gpu: GpuProfile, mode: str) -> str:
    return f"{math.floor(worker_room(gpu, mode).memory / GIB)}Gi"


def worker_ephemeral_default(gpu: GpuProfile, mode: str) -> str:
    return f"{math.floor(worker_room(gpu, mode).ephemeral / GIB)}Gi"


def derive(values: Values, decide: Decisions) -> Derived:
    defaults = decide.machine(values, MachineDefaults, machine_defaults)
    sidecar = values.storage.sidecar
    return Derived(
        worker_cpu=decide.or_default(values.worker.cpu, defaults.worker_cpu),
        worker_memory=decide.or_default(values.worker.memory, defaults.worker_memory),
        worker_ephemeral_storage=decide.or_default(
            values.worker.ephemeral_storage, defaults.worker_ephemeral_storage
        ),
        sidecar_cpu_limit=decide.or_default(sidecar.cpu_limit, defaults.sidecar_cpu_limit),
        sidecar_memory_limit=decide.or_default(sidecar.memory_limit, defaults.sidecar_memory_limit),
        sidecar_ephemeral_storage_limit=decide.or_default(
            sidecar.ephemeral_storage_limit, defaults.sidecar_ephemeral_storage_limit
        ),
        gpu_sidecar_ephemeral_storage_limit=decide.or_default(
            values.storage.sidecar.ephemeral_storage_limit,
            decide.quantity_plus(values.storage.file_cache_capacity, GPU_SIDECAR_EPHEMERAL_HEADROOM),
        ),
        experiment_name=decide.or_default(values.training.experiment_name, values.run.name),
        storage_digest=decide.helper(
            STORAGE_DIGEST,
            None,
            lambda: Decisions().leaves_digest(values.storage.bucket, values.storage.capacity),
        ),
        rayjob_version_fields=_rayjob_version_fields(values, decide),
    )


def _rayjob_version_fields(values: Values, decide: Decisions) -> dict[str, object]:
    fields = {"preRunningDeadlineSeconds": values.job.pre_running_deadline_seconds}
    out: dict[str, object] = {}
    for key, value in fields.items():
        out |= decide.when(decide.at_least(values.kuberay.version, RAYJOB_FIELD_SINCE[key]), {key: value})
    return out


def deploy_spec(values: Values, release: Release, decide: Decisions | None = None) -> DeploySpec:
    decide = decide or Decisions()
    return DeploySpec(
        values, decide.machine(values, GpuProfile, machine_profile), derive(values, decide), release, decide
    )


def group_spec(spec: DeploySpec, group_values: Values) -> DeploySpec:
    """The spec a worker group's pods are built from: the group's view of the values
    (values/worker_groups.py), its machine's facts and the defaults derived for that machine."""
    return replace(
        spec,
        values=group_values,
        gpu=spec.decide.machine(group_values, GpuProfile, machine_profile),
        derived=derive(group_values, spec.decide),
    )
