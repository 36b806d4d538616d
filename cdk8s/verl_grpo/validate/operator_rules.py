"""Rules the KubeRay operator and GKE enforce outside any schema (DESIGN.md, "Facts")."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from decimal import Decimal
from typing import Any

import yaml

from ..facts.kuberay import NAME_MAX
from ..facts.machines import GIB, allocatable_cpu, allocatable_memory_gib, cpu_machines, gpu_profiles
from ..facts.quantity import parse_quantity
from .ray_runtime_env import unknown_field_problems

DNS1035 = re.compile(r"^[a-z]([-a-z0-9]*[a-z0-9])?$")
SUBMISSION_MODES = {"K8sJobMode", "HTTPMode", "InteractiveMode", "SidecarMode"}
INTERFACES = "networking.gke.io/interfaces"

Problem = tuple[str, str, str, str]  # severity, path, rule, message


def cluster_spec_paths(body: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    kind, spec = body.get("kind"), body.get("spec") or {}
    if kind == "RayCluster":
        return [("spec", spec)]
    if kind == "RayJob" and isinstance(spec.get("rayClusterSpec"), dict):
        return [("spec.rayClusterSpec", spec["rayClusterSpec"])]
    if kind == "RayService" and isinstance(spec.get("rayClusterConfig"), dict):
        return [("spec.rayClusterConfig", spec["rayClusterConfig"])]
    if kind == "RayCronJob":
        job = (spec.get("jobTemplate") or {}).get("spec") or {}
        if isinstance(job.get("rayClusterSpec"), dict):
            return [("spec.jobTemplate.spec.rayClusterSpec", job["rayClusterSpec"])]
    return []


def groups(cluster: dict[str, Any]) -> Iterator[tuple[str, dict[str, Any]]]:
    if isinstance(cluster.get("headGroupSpec"), dict):
        yield "headGroupSpec", cluster["headGroupSpec"]
    for i, group in enumerate(cluster.get("workerGroupSpecs") or []):
        if isinstance(group, dict):
            yield f"workerGroupSpecs[{i}]", group


PLACEHOLDER = re.compile(r"\$\{[A-Za-z_][A-Za-z0-9_]*\}")
# What the shipped dist/ names instead of the user's bucket and (A4X) image (output/dist.py): applied
# as it is, its pods never mount a bucket. `validate` refuses it; the kit's own check of what it is
# about to write lets it through into dist/ alone (pipeline._invalid).
DIST_PLACEHOLDER = "replace-me-with-your-"
DIST_PLACEHOLDER_RULE = "dist-placeholder"
# Fields that name things; a ${VAR} there was meant to be substituted (free text may hold shell).
NAMING_FIELDS = {
    "name",
    "namespace",
    "serviceAccountName",
    "image",
    "volumeHandle",
    "claimName",
    "vpc",
    "vpcSubnet",
}


def placeholder_rules(body: dict[str, Any]) -> Iterator[Problem]:
    def visit(node: Any, path: str, naming: bool) -> Iterator[Problem]:
        if isinstance(node, dict):
            for key, value in node.items():
                child = f"{path}.{key}" if "." not in key and "/" not in key else f"{path}[{key}]"
                yield from visit(
                    value,
                    child.lstrip("."),
                    key in NAMING_FIELDS
                    or key == "nodeSelector"
                    or (naming and path.endswith("nodeSelector")),
                )
        elif isinstance(node, list):
            for i, value in enumerate(node):
                yield from visit(value, f"{path}[{i}]", False)
        elif naming and isinstance(node, str) and PLACEHOLDER.search(node):
            yield "error", path, "placeholder", f"{node!r} holds an unsubstituted placeholder"
        elif naming and isinstance(node, str) and DIST_PLACEHOLDER in node:
            yield (
                "error",
                path,
                DIST_PLACEHOLDER_RULE,
                f"{node!r} is the shipped dist/'s placeholder, not yours: render your own folder with "
                "verl-grpo synth --profile <profile> -f my.yaml -o DIR, and apply or commit that",
            )

    yield from visit(body, "", False)


def ray_rules(body: dict[str, Any]) -> Iterator[Problem]:
    meta = body.get("metadata") or {}
    kind, name = body.get("kind"), meta.get("name", "")
    if kind in NAME_MAX and not (name == "" and meta.get("generateName")):
        limit = NAME_MAX[kind]
        if len(name) > limit:
            yield (
                "error",
                "metadata.name",
                "kuberay-name-length",
                f"{len(name)} characters; KubeRay allows {limit}",
            )
        if not DNS1035.match(name or ""):
            yield "error", "metadata.name", "kuberay-name-dns1035", f"{name!r} is not a DNS-1035 label"
    spec = body.get("spec") or {}
    if kind == "RayJob":
        mode = spec.get("submissionMode", "K8sJobMode")
        if mode not in SUBMISSION_MODES:
            yield (
                "error",
                "spec.submissionMode",
                "kuberay-submission-mode",
                (f"{mode!r}; allowed: {', '.join(sorted(SUBMISSION_MODES))}"),
            )
        if spec.get("ttlSecondsAfterFinished", 0) > 0 and not spec.get("shutdownAfterJobFinishes", False):
            yield (
                "error",
                "spec.ttlSecondsAfterFinished",
                "kuberay-ttl-needs-shutdown",
                ("ttlSecondsAfterFinished > 0 needs shutdownAfterJobFinishes: true"),
            )
        if "runtimeEnvYAML" in spec:
            yield from _runtime_env(spec["runtimeEnvYAML"])
        yield from _tensor_parallel(spec)
    for prefix, cluster in cluster_spec_paths(body):
        if not cluster.get("rayVersion"):
            yield (
                "warning",
                f"{prefix}.rayVersion",
                "kuberay-ray-version",
                "not set; set it to the image's Ray version",
            )
        for where, group in groups(cluster):
            for key, value in (group.get("rayStartParams") or {}).items():
                if not isinstance(value, str):
                    yield (
                        "error",
                        f"{prefix}.{where}.rayStartParams.{key}",
                        "kuberay-start-params-strings",
                        (f"{value!r} must be a string"),
                    )
            if where.startswith("worker"):
                yield from _replica_bounds(f"{prefix}.{where}", group)


def _replica_bounds(path: str, group: dict[str, Any]) -> Iterator[Problem]:
    low, high = group.get("minReplicas", 0), group.get("maxReplicas", 2**31 - 1)
    replicas = group.get("replicas", low)
    if all(isinstance(v, int) for v in (low, high, replicas)) and not low <= replicas <= high:
        yield (
            "error",
            f"{path}.replicas",
            "kuberay-replica-bounds",
            (f"needs minReplicas <= replicas <= maxReplicas, got {low} <= {replicas} <= {high}"),
        )


TENSOR_PARALLEL = re.compile(r"actor_rollout_ref\.rollout\.tensor_model_parallel_size=(\d+)")


def _tensor_parallel(spec: dict[str, Any]) -> Iterator[Problem]:
    """The rollout's tensor-parallel size in the entrypoint against the GPUs of each worker pod:
    the kit's `tp-divides-node` rule (rules/cross_rules.py), re-derived from the objects."""
    found = TENSOR_PARALLEL.search(str(spec.get("entrypoint", "")))
    if not found:
        return
    tp = int(found[1])
    for where, group in groups(spec.get("rayClusterSpec") or {}):
        if not where.startswith("workerGroupSpecs"):
            continue
        for container in ((group.get("template") or {}).get("spec") or {}).get("containers") or []:
            gpus = ((container.get("resources") or {}).get("limits") or {}).get("nvidia.com/gpu")
            if gpus is not None and str(gpus).isdigit() and (tp == 0 or int(gpus) % tp):
                yield (
                    "error",
                    "spec.entrypoint",
                    "tp-divides-node",
                    f"tensor_model_parallel_size={tp} must divide the {gpus} GPUs of a worker ({where})",
                )


def _runtime_env(text: Any) -> Iterator[Problem]:
    path = "spec.runtimeEnvYAML"
    try:
        env = yaml.safe_load(text) if isinstance(text, str) else None
    except yaml.YAMLError as e:
        yield "error", path, "ray-runtime-env", f"not valid YAML: {e}"
        return
    if env is None or not isinstance(env, dict):
        yield "error", path, "ray-runtime-env", "must parse to a mapping"
        return
    for field, message in unknown_field_problems(env):
        yield "error", f"{path}.{field}", "ray-runtime-env", message
    for key, value in (env.get("env_vars") or {}).items():
        if not isinstance(value, str):
            yield "error", f"{path}.env_vars.{key}", "ray-runtime-env", f"{value!r} must be a string"


def pod_templates(body: dict[str, Any]) -> Iterator[tuple[str, dict[str, Any]]]:
    if body.get("kind") == "Pod":
        yield "", body
    for prefix, cluster in cluster_spec_paths(body):
        for where, group in groups(cluster):
            if isinstance(group.get("template"), dict):
                yield f"{prefix}.{where}.template", group["template"]


def interface_rules(body: dict[str, Any], networks: set[str] | None) -> Iterator[Problem]:
    for where, template in pod_templates(body):
        annotations = (template.get("metadata") or {}).get("annotations") or {}
        if INTERFACES not in annotations:
            continue
        path = f"{where}.metadata.annotations[{INTERFACES}]".lstrip(".")
        try:
            interfaces = json.loads(annotations[INTERFACES])
        except (TypeError, json.JSONDecodeError) as e:
            yield "error", path, "gke-interfaces-json", f"not valid JSON: {e}"
            continue
        if not isinstance(interfaces, list) or not all(isinstance(i, dict) for i in interfaces):
            yield "error", path, "gke-interfaces-json", "must be a JSON list of {interfaceName, network}"
            continue
        for item in interfaces:
            net = item.get("network")
            if networks is not None and net != "default" and net not in networks:
                yield "error", path, "gke-interfaces-network", f"names Network {net!r}, which is not defined"


def machine_for(selector: dict[str, Any]) -> tuple[str, float, float] | None:
    """(machine type, allocatable CPUs, allocatable GiB) when the node selector pins a known machine."""
    accel = selector.get("cloud.google.com/gke-accelerator")
    for gpu in gpu_profiles().values():
        if accel == gpu.accelerator or selector.get("node.kubernetes.io/instance-type") == gpu.machine_type:
            return gpu.machine_type, allocatable_cpu(gpu.vcpu), allocatable_memory_gib(gpu.memory_gb)
    cpu = cpu_machines().get(selector.get("node.kubernetes.io/instance-type", ""))
    if cpu:
        return cpu.name, allocatable_cpu(cpu.vcpu), allocatable_memory_gib(cpu.memory_gb)
    return None


def fit_rules(body: dict[str, Any]) -> Iterator[Problem]:
    for where, template in pod_templates(body):
        spec = template.get("spec") or {}
        machine = machine_for(spec.get("nodeSelector") or {})
        if machine is None:
            continue
        name, cpus, gib = machine
        for resource, capacity, unit in (("cpu", Decimal(str(cpus)), 1), ("memory", Decimal(str(gib)), GIB)):
            total = Decimal(0)
            for c in spec.get("containers") or []:
                amount = ((c.get("resources") or {}).get("requests") or {}).get(resource)
                try:
                    total += parse_quantity(str(amount)) if amount is not None else 0
                except ValueError:
                    continue
            if total > capacity * unit:
                shown = f"{total / unit:.0f}Gi" if unit != 1 else f"{total}"
                have = f"{capacity:.0f}Gi" if unit != 1 else f"{capacity:.2f}"
                yield (
                    "error",
                    f"{where}.spec.containers".lstrip("."),
                    "node-fit",
                    (f"{resource} requests {shown} exceed what {name} can allocate ({have})"),
                )


def entrypoint_rules(body: dict[str, Any]) -> Iterator[Problem]:
    """A K8sJobMode RayJob's entrypoint must stay one command inside the submitter's bash line."""
    from .shell_command import one_command_problems

    spec = body.get("spec") or {}
    if body.get("kind") != "RayJob" or spec.get("submissionMode", "K8sJobMode") != "K8sJobMode":
        return
    if isinstance(spec.get("entrypoint"), str):
        for message in one_command_problems(spec["entrypoint"]):
            yield "error", "spec.entrypoint", "kuberay-entrypoint-one-command", message


# Node labels of mutually exclusive ways to get a GPU node (cloud.google.com/gke-spot,
# https://cloud.google.com/kubernetes-engine/docs/concepts/cluster-autoscaler; gke-flex-start,
# https://cloud.google.com/kubernetes-engine/docs/how-to/dws-flex-start-training; Autopilot's
# reservation selectors, https://cloud.google.com/kubernetes-engine/docs/how-to/consuming-reservations):
# a pod selecting two of them matches no node and stays Pending.
CAPACITY_LABELS = {
    "cloud.google.com/gke-spot": "spot",
    "cloud.google.com/gke-flex-start": "flex-start",
    "cloud.google.com/reservation-name": "a reservation",
}


def capacity_rules(body: dict[str, Any]) -> Iterator[Problem]:
    for where, template in pod_templates(body):
        selector = (template.get("spec") or {}).get("nodeSelector") or {}
        asked = [
            kind
            for label, kind in CAPACITY_LABELS.items()
            if label in selector and selector[label] not in ("false", "")
        ]
        if len(asked) > 1:
            yield (
                "error",
                f"{where}.spec.nodeSelector".lstrip("."),
                "gke-capacity-selectors",
                f"selects {' and '.join(asked)} at once; no GKE node is both, the pod never schedules",
            )
