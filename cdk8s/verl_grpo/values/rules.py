"""Cross-field rules the schema cannot express; checked on concrete values before anything is written."""

from __future__ import annotations

import re

from .derive import RAY_CPUS_PER_GPU, DeploySpec
from .machines import GIB, allocatable_cpu, allocatable_memory_gib
from .node_fit import (
    AUTOPILOT_GPU_SIDECAR_MAX,
    GPU_NODE_DAEMONSETS,
    SUBMITTER,
    Amounts,
    Pod,
    amounts,
    cpu_pool,
    pack,
    sidecars,
)
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

    worker_cpu = parse_quantity(d.worker_cpu)
    need = RAY_CPUS_PER_GPU * gpu.gpus_per_node
    if worker_cpu < need:
        problems.append(
            f"worker.cpu: {d.worker_cpu!r} is below {need}: verl places {RAY_CPUS_PER_GPU} CPUs per GPU "
            "bundle and waits forever without them"
        )

    if v.cluster.mode == "standard":
        problems += cpu_pool_problems(spec)
    else:
        for key, value, most in (
            ("storage.sidecar.cpuLimit", d.sidecar_cpu_limit, AUTOPILOT_GPU_SIDECAR_MAX.cpu),
            ("storage.sidecar.memoryLimit", d.sidecar_memory_limit, AUTOPILOT_GPU_SIDECAR_MAX.memory),
            ("storage.sidecar.ephemeralStorageLimit", d.sidecar_ephemeral_storage_limit, 0),
        ):
            if parse_quantity(value) == 0:
                problems.append(
                    f"{key}: {value!r} (unlimited) is not allowed on Autopilot; give a real limit"
                )
            elif most and parse_quantity(value) > most:
                problems.append(
                    f"{key}: {value!r} exceeds what Autopilot gives a GCS FUSE sidecar on GPU nodes "
                    f"({most / GIB if 'memory' in key else most:g}{'Gi' if 'memory' in key else ''}; "
                    "gcs-fuse-csi-driver docs/troubleshooting.md); the pod would never schedule"
                )
        if not v.cluster.zone:
            problems.append(
                "cluster.zone: required on Autopilot: the RDMA network profile is zonal and the "
                "workers must be pinned to its zone (e.g. us-central1-b)"
            )
    problems += gpu_node_problems(spec)
    if v.cluster.capacity == "reservation" and not v.cluster.reservation:
        problems.append(
            "cluster.reservation: required with cluster.capacity 'reservation' (the reservation's name)"
        )
    if v.cluster.capacity != "reservation" and v.cluster.reservation:
        problems.append(
            f"cluster.reservation: {v.cluster.reservation!r} is only used with cluster.capacity "
            f"'reservation' (capacity is {v.cluster.capacity!r})"
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

    # Both run paths hand the entrypoint to a shell (KubeRay's submitter line, Ray's job supervisor):
    # the extra overrides must not split it.
    from ..constructs.runtime_env import entrypoint
    from ..validate.shell_command import one_command_problems

    problems += [f"training.extraArgs: the entrypoint {p}" for p in one_command_problems(entrypoint(spec))]

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


def pod_sidecars(spec: DeploySpec, prefetch: bool = True) -> Amounts:
    d = spec.derived
    return sidecars(
        spec.values.cluster.mode,
        d.sidecar_cpu_limit,
        d.sidecar_memory_limit,
        d.sidecar_ephemeral_storage_limit,
        prefetch=prefetch,
    )


def cpu_pool_pods(spec: DeploySpec) -> list[Pod]:
    """Every pod of a run that lands on the CPU pool (Standard), each with its FUSE sidecars."""
    v = spec.values
    fuse = pod_sidecars(spec)
    pods = [Pod("the Ray head", amounts(v.head.cpu, v.head.memory, v.head.ephemeral_storage) + fuse)]
    if v.data_prep.enabled:
        p = v.data_prep
        pods.append(Pod("the data-prep Job", amounts(p.cpu, p.memory, p.ephemeral_storage) + fuse))
    if v.run.kind == "RayJob" and v.job.submission_mode == "K8sJobMode":
        pods.append(Pod("the RayJob submitter", SUBMITTER))
    return pods


def cpu_pool_problems(spec: DeploySpec) -> list[str]:
    c = spec.values.cluster
    pool = cpu_pool(c.cpu_machine_type, c.cpu_node_count, c.cpu_disk_size_gb)
    found = pack(cpu_pool_pods(spec), pool)
    if not found:
        return []
    return [
        f"cluster.cpuMachineType/cpuNodeCount/cpuDiskSizeGb: {p}; raise one of them or lower the requests"
        for p in found
    ]


def gpu_node_problems(spec: DeploySpec) -> list[str]:
    """The worker container plus its FUSE sidecars plus GKE's DaemonSets against one GPU node."""
    gpu, d = spec.gpu, spec.derived
    node = Amounts(allocatable_cpu(gpu.vcpu), allocatable_memory_gib(gpu.memory_gb) * GIB, 0)
    others = GPU_NODE_DAEMONSETS + pod_sidecars(spec)
    worker = amounts(d.worker_cpu, d.worker_memory)
    problems = []
    for key, value, need, room, unit, scale in (
        ("worker.cpu", d.worker_cpu, worker.cpu, node.cpu, " CPUs", 1),
        ("worker.memory", d.worker_memory, worker.memory, node.memory, "Gi", GIB),
    ):
        other = others.cpu if key == "worker.cpu" else others.memory
        if need + other > room:
            problems.append(
                f"{key}: {value!r} plus the GCS FUSE sidecars and GKE's DaemonSets "
                f"({other / scale:.2f}{unit}) exceeds what {gpu.machine_type} can allocate "
                f"({room / scale:.2f}{unit}); at most {(room - other) / scale:.2f}{unit}"
            )
    return problems
