"""Cross-field rules the schema cannot express; checked on concrete values before anything is written."""

from __future__ import annotations

import re

from .derive import RAY_CPUS_PER_GPU, DeploySpec
from .machines import GIB, allocatable_cpu, allocatable_memory_gib, cpu_machines
from .quantity import parse_quantity

DNS1035 = re.compile(r"^[a-z]([-a-z0-9]*[a-z0-9])?$")
DNS1123_LABEL = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$")
# KubeRay: RayJob names <= 47 (it appends a suffix for the cluster and submitter), RayCluster <= 53.
RAYJOB_NAME_MAX = 47
RAYCLUSTER_NAME_MAX = 53


# Paths the pods already mount (GPU stack, Ray's scratch space) and the root.
RESERVED_MOUNTS = {
    "the NVIDIA driver": "/usr/local/nvidia",
    "the gIB plugin": "/usr/local/gib",
    "/tmp": "/tmp",
    "/": "/",
}


def _nested(a: str, b: str) -> bool:
    a, b = a.rstrip("/") or "/", b.rstrip("/") or "/"
    if "/" in (a, b):
        return a == b
    return a == b or a.startswith(b + "/") or b.startswith(a + "/")


def check(spec: DeploySpec) -> list[str]:
    v, gpu, d, rel = spec.values, spec.gpu, spec.derived, spec.release
    problems: list[str] = []

    if not DNS1035.match(rel.name) or len(rel.name) > 30:
        problems.append(f"release name: {rel.name!r} must be DNS-1035 (a-z, 0-9, '-'), at most 30 characters")
    if not DNS1123_LABEL.match(rel.namespace) or len(rel.namespace) > 63:
        problems.append(f"namespace: {rel.namespace!r} must be a DNS-1123 label")
    if v.run.kind == "RayJob":
        name = f"{rel.name}-{v.run.name}"
        if len(name) > RAYJOB_NAME_MAX:
            problems.append(
                f"run.name: RayJob name {name!r} is {len(name)} characters; KubeRay allows {RAYJOB_NAME_MAX}"
            )
    else:
        name = f"{rel.name}-{v.gpu.type}"
        if len(name) > RAYCLUSTER_NAME_MAX:
            problems.append(
                f"release name: RayCluster name {name!r} exceeds {RAYCLUSTER_NAME_MAX} characters"
            )

    cpu_cap = allocatable_cpu(gpu.vcpu)
    mem_cap = allocatable_memory_gib(gpu.memory_gb)
    worker_cpu = parse_quantity(d.worker_cpu)
    if worker_cpu > cpu_cap:
        problems.append(
            f"worker.cpu: {d.worker_cpu!r} exceeds what {gpu.machine_type} can allocate ({cpu_cap:.2f} CPUs)"
        )
    need = RAY_CPUS_PER_GPU * gpu.gpus_per_node
    if worker_cpu < need:
        problems.append(
            f"worker.cpu: {d.worker_cpu!r} is below {need}: verl places {RAY_CPUS_PER_GPU} CPUs per GPU "
            "bundle and waits forever without them"
        )
    if parse_quantity(d.worker_memory) > mem_cap * GIB:
        problems.append(
            f"worker.memory: {d.worker_memory!r} exceeds what {gpu.machine_type} can allocate "
            f"({mem_cap:.0f}Gi of {gpu.memory_gb} GB)"
        )

    if v.cluster.mode == "standard":
        head = cpu_machines()[v.cluster.cpu_machine_type]
        if parse_quantity(v.head.cpu) > allocatable_cpu(head.vcpu):
            problems.append(
                f"head.cpu: {v.head.cpu!r} does not fit cluster.cpuMachineType {head.name} "
                f"({allocatable_cpu(head.vcpu):.2f} allocatable CPUs)"
            )
        if parse_quantity(v.head.memory) > allocatable_memory_gib(head.memory_gb) * GIB:
            problems.append(
                f"head.memory: {v.head.memory!r} does not fit cluster.cpuMachineType {head.name} "
                f"({allocatable_memory_gib(head.memory_gb):.0f}Gi allocatable)"
            )
    else:
        for key, value in (
            ("storage.sidecar.cpuLimit", d.sidecar_cpu_limit),
            ("storage.sidecar.memoryLimit", d.sidecar_memory_limit),
            ("storage.sidecar.ephemeralStorageLimit", d.sidecar_ephemeral_storage_limit),
        ):
            if parse_quantity(value) == 0:
                problems.append(
                    f"{key}: {value!r} (unlimited) is not allowed on Autopilot; give a real limit"
                )

    mounts = {
        "storage.mountPath": v.storage.mount_path,
        "storage.checkpointMountPath": v.storage.checkpoint_mount_path,
        "preflight.mountPath": v.preflight.mount_path,
    }
    for key, path in mounts.items():
        for other_key, other in [*mounts.items(), *RESERVED_MOUNTS.items()]:
            if other_key != key and _nested(path, other):
                problems.append(
                    f"{key}: {path!r} overlaps {other_key} ({other!r}); mount paths must be disjoint"
                )
                break

    if v.job.ttl_seconds_after_finished > 0 and not v.job.shutdown_after_job_finishes:
        problems.append(
            "job.ttlSecondsAfterFinished: > 0 needs job.shutdownAfterJobFinishes: true (or set it to 0)"
        )

    t = v.training
    if t.ppo_mini_batch_size > t.train_batch_size:
        problems.append(
            f"training.ppoMiniBatchSize: {t.ppo_mini_batch_size} exceeds training.trainBatchSize "
            f"{t.train_batch_size}"
        )
    if gpu.gpus_per_node % t.tensor_parallel_size:
        problems.append(
            f"training.tensorParallelSize: {t.tensor_parallel_size} must divide the {gpu.gpus_per_node} "
            "GPUs of a node"
        )
    return problems
