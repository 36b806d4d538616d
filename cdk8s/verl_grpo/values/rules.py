"""Cross-field rules the schema cannot express; checked on concrete values before anything is written."""

from __future__ import annotations

import re

from ..problems import RULES, Problem, error
from .cross_rules import violations
from .derive import DeploySpec
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
from .verl_placement import MOST_RAY_CPUS_PER_GPU

DNS1035 = re.compile(r"^[a-z]([-a-z0-9]*[a-z0-9])?$")
DNS1123_LABEL = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$")


def rule(key: str, message: str) -> Problem:
    return error(RULES, key, message)


def check(spec: DeploySpec) -> list[Problem]:
    v, gpu, d, rel = spec.values, spec.gpu, spec.derived, spec.release
    problems: list[Problem] = []

    if not DNS1035.match(rel.name) or len(rel.name) > 30:
        problems.append(
            rule("release name", f"{rel.name!r} must be DNS-1035 (a-z, 0-9, '-'), at most 30 characters")
        )
    if not DNS1123_LABEL.match(rel.namespace) or len(rel.namespace) > 63:
        problems.append(rule("namespace", f"{rel.namespace!r} must be a DNS-1123 label"))
    # The rules the chart enforces too, from one table (cross_rules.py).
    values = v.model_dump(by_alias=True, mode="json")
    problems += [Problem("error", RULES, r.key, text, rule=r.id) for r, text in violations(values, rel.name)]

    worker_cpu = parse_quantity(d.worker_cpu)
    need = MOST_RAY_CPUS_PER_GPU * gpu.gpus_per_node
    if worker_cpu < need:
        problems.append(
            rule(
                "worker.cpu",
                f"{d.worker_cpu!r} is below {need}: verl (0.7 and newer) places "
                f"{MOST_RAY_CPUS_PER_GPU} CPUs per GPU bundle and waits forever without them",
            )
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
                    rule(key, f"{value!r} (unlimited) is not allowed on Autopilot; give a real limit")
                )
            elif most and parse_quantity(value) > most:
                problems.append(
                    rule(
                        key,
                        f"{value!r} exceeds what Autopilot gives a GCS FUSE sidecar on GPU nodes "
                        f"({most / GIB if 'memory' in key else most:g}{'Gi' if 'memory' in key else ''}; "
                        "gcs-fuse-csi-driver docs/troubleshooting.md); the pod would never schedule",
                    )
                )
    problems += gpu_node_problems(spec)

    # Both run paths hand the entrypoint to a shell (KubeRay's submitter line, Ray's job supervisor):
    # the extra overrides must not split it.
    from ..constructs.runtime_env import entrypoint
    from ..validate.shell_command import one_command_problems

    problems += [
        rule("training.extraArgs", f"the entrypoint {p}") for p in one_command_problems(entrypoint(spec))
    ]

    # ppoMiniBatchSize > trainBatchSize is verl's own rule, which it skips with dynamic batch
    # sizes (verl_check/rules.py startup_rules): not repeated here, stricter than verl.
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


def cpu_pool_problems(spec: DeploySpec) -> list[Problem]:
    c = spec.values.cluster
    pool = cpu_pool(c.cpu_machine_type, c.cpu_node_count, c.cpu_disk_size_gb)
    found = pack(cpu_pool_pods(spec), pool)
    if not found:
        return []
    return [
        rule(
            "cluster.cpuMachineType/cpuNodeCount/cpuDiskSizeGb",
            f"{p}; raise one of them or lower the requests",
        )
        for p in found
    ]


def gpu_node_problems(spec: DeploySpec) -> list[Problem]:
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
                rule(
                    key,
                    f"{value!r} plus the GCS FUSE sidecars and GKE's DaemonSets "
                    f"({other / scale:.2f}{unit}) exceeds what {gpu.machine_type} can allocate "
                    f"({room / scale:.2f}{unit}); at most {(room - other) / scale:.2f}{unit}",
                )
            )
    return problems
