"""Cross-field rules the schema cannot express; checked on concrete values before anything is written."""

from __future__ import annotations

import re

from ..facts.node_fit import (
    LOG_SHIPPER,
    SUBMITTER,
    ZERO,
    Amounts,
    Pod,
    amounts,
    cpu_pool,
    pack,
    sidecars,
)
from ..problems import RULES, Problem, error
from ..values.derive import DeploySpec
from .cross_rules import violations

DNS1123_LABEL = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$")


def rule(key: str, message: str) -> Problem:
    return error(RULES, key, message)


def check(spec: DeploySpec, deploying: bool = True) -> list[Problem]:
    v, rel = spec.values, spec.release
    problems: list[Problem] = []

    if not DNS1123_LABEL.match(rel.namespace) or len(rel.namespace) > 63:
        problems.append(rule("namespace", f"{rel.namespace!r} must be a DNS-1123 label"))
    # The rules the chart enforces too, from one table (cross_rules.py).
    values = v.model_dump(by_alias=True, mode="json")
    broken = violations(values, rel.name, deploying)
    problems += [Problem("error", RULES, r.key, text, rule=r.id) for r, text in broken]

    if v.cluster.mode == "standard":
        problems += cpu_pool_problems(spec)

    # Both run paths hand the entrypoint to a shell (KubeRay's submitter line, Ray's job supervisor):
    # the extra overrides must not split it.
    from ..constructs.runtime_env import entrypoint
    from ..validate.shell_command import one_command_problems

    problems += [
        rule("training.extraArgs", f"the entrypoint {p}") for p in one_command_problems(entrypoint(spec))
    ]

    return problems


def pod_sidecars(spec: DeploySpec, prefetch: bool = True, ray_pod: bool = True, gpu: bool = False) -> Amounts:
    """A pod's sidecars: the FUSE ones (on a GPU pod with the file cache's limit), and on a Ray
    pod the log shipper."""
    d = spec.derived
    fuse = sidecars(
        spec.values.cluster.mode,
        d.sidecar_cpu_limit,
        d.sidecar_memory_limit,
        d.gpu_sidecar_ephemeral_storage_limit if gpu else d.sidecar_ephemeral_storage_limit,
        prefetch=prefetch,
    )
    return fuse + (LOG_SHIPPER if ray_pod else ZERO)


def cpu_pool_pods(spec: DeploySpec) -> list[Pod]:
    """Every pod of a run that lands on the CPU pool (Standard), each with its FUSE sidecars."""
    v = spec.values
    head = amounts(v.head.cpu, v.head.memory, v.head.ephemeral_storage) + pod_sidecars(spec)
    pods = [Pod("the Ray head", head)]
    if v.data_prep.enabled:
        p = v.data_prep
        fuse = pod_sidecars(spec, ray_pod=False)
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
