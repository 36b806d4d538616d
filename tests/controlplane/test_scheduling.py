"""Do the rendered pods fit the nodes GKE would give them, by the real scheduler's judgment?

Every node here is the GKE twin's (tests/twin/): the pools are the ones `scripts/up.sh` creates
on the fake cloud for the same values, their nodes come and go through the autoscaler stand-in,
and kwok runs what is bound. What the twin does not run, these tests stand in for: the GCS FUSE
webhook's native sidecar (its requests, from the pod's annotations) and GKE's system pods on each
node (``node_fit.GPU_NODE_DAEMONSETS`` / ``CPU_NODE_SYSTEM``), to hold the project's node-fit model
to the scheduler's own accounting. A pod that cannot fit gets the autoscaler's verdict, pool by
pool, and keeps the scheduler's own reason on its PodScheduled condition.

Where every profile's and capacity's run comes up, and each group binds to its own pool:
``test_twin.py``.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Iterator
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import pytest

from verl_grpo.facts.machines import allocatable_memory_gib, gpu_profiles
from verl_grpo.facts.node_fit import CPU_NODE_SYSTEM, GPU_NODE_DAEMONSETS, Amounts, sidecars

from ..scripts_harness import MY_VALUES
from ..twin.autoscaler import NOT_TRIGGERED, Autoscaler
from ..twin.cloud import provision
from ..twin.gke import ACCELERATOR
from .cluster import ControlPlane
from .helpers import (
    await_namespaces_deleted,
    begin_namespace_deletion,
    objects,
    pods,
    release_pvs,
    scheduled_condition,
    synth,
    unschedulable,
    wait_for,
)

pytestmark = pytest.mark.controlplane

GPU = "nvidia.com/gpu"
PROFILES = ["b200-standard", "h200-standard", "b200-standard-raycluster", "h200-standard-raycluster"]


# --- fixtures and rendering ------------------------------------------------------------------------


@pytest.fixture(scope="module")
def doomed(control_plane: ControlPlane) -> Iterator[list[str]]:
    """Namespaces whose deletion the tests started; the module waits for all of them at the end."""
    names: list[str] = []
    yield names
    await_namespaces_deleted(control_plane, names)


Twin = Callable[..., Autoscaler]


@pytest.fixture
def twin(control_plane: ControlPlane, doomed: list[str], tmp_path: Path) -> Iterator[Twin]:
    """``twin(tag, profile, *sets, resize={pool: nodes}, on_node=...)``: the scripts for the
    profile and values on the fake cloud, a namespace named ``tag``, and the autoscaler over the
    scripts' pools (``resize``: a pool resized by hand, as `gcloud container clusters resize`
    would). The namespace's deletion starts at the end and the twin's nodes go."""
    stack = ExitStack()

    def make(
        tag: str,
        profile: str,
        *sets: str,
        resize: dict[str, int] | None = None,
        on_node: Callable[[dict[str, Any]], list[dict[str, Any]]] | None = None,
    ) -> Autoscaler:
        cloud = provision(
            profile, tmp_path / f"cloud-{tag}", "-f", str(MY_VALUES), *(a for s in sets for a in ("--set", s))
        )
        cluster = cloud.cluster.resized(resize or {})
        control_plane.kubectl("create", "namespace", tag)
        scaler = Autoscaler(
            control_plane, cluster, (tag,), tag=tag, sub_blocks=cloud.sub_blocks, on_node=on_node
        )
        stack.enter_context(scaler.running())
        stack.callback(forget, tag)  # before the nodes go (last in, first out)
        return scaler

    def forget(namespace: str) -> None:
        begin_namespace_deletion(control_plane, namespace)
        doomed.append(namespace)
        if pvs := release_pvs(control_plane, namespace, "verl"):
            control_plane.kubectl("delete", *pvs, "--ignore-not-found", "--wait=false")

    with stack:
        yield make


def render(tmp_path: Path, profile: str, namespace: str, *sets: str) -> list[dict[str, Any]]:
    """The profile's objects as `verl-grpo synth -n` writes them, in kustomization order."""
    args = [a for s in sets for a in ("--set", s)]
    return objects(synth(tmp_path / namespace, profile, "-n", namespace, *args))


def create(cp: ControlPlane, docs: list[dict[str, Any]]) -> None:
    cp.kubectl(
        "apply",
        "--server-side",
        "--field-manager=verl-grpo-controlplane-test",
        "-f",
        "-",
        stdin=json.dumps({"apiVersion": "v1", "kind": "List", "items": docs}),
    )


def ray_spec(doc: dict[str, Any]) -> dict[str, Any]:
    """The RayCluster spec, standalone or inside a RayJob."""
    return doc["spec"]["rayClusterSpec"] if doc["kind"] == "RayJob" else doc["spec"]


def worker_group(docs: list[dict[str, Any]]) -> dict[str, Any]:
    (group,) = next(ray_spec(d) for d in docs if d["kind"] in {"RayCluster", "RayJob"})["workerGroupSpecs"]
    return group


def pod_templates(docs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Every pod template of the run: head, worker groups, the data-prep Job."""
    out = []
    for d in docs:
        if d["kind"] in {"RayCluster", "RayJob"}:
            spec = ray_spec(d)
            out += [spec["headGroupSpec"]["template"], *(g["template"] for g in spec["workerGroupSpecs"])]
        elif d["kind"] == "Job":
            out.append(d["spec"]["template"])
    return out


def role(pod: dict[str, Any]) -> str:
    labels = pod["metadata"]["labels"]
    if "ray.io/node-type" in labels:
        return labels["ray.io/node-type"]  # head / worker
    if "batch.kubernetes.io/job-name" in labels:
        return "data-prep" if "data-prep" in labels["batch.kubernetes.io/job-name"] else "submitter"
    return "system"


def verdicts(scaler: Autoscaler, selector: Callable[[str], bool]) -> list[str]:
    """The autoscaler's NotTriggerScaleUp messages for the pods ``selector`` accepts by name."""
    return [e["message"] for e in scaler.events if e["reason"] == NOT_TRIGGERED and selector(e["pod"])]


def message(pod: dict[str, Any]) -> str:
    condition = scheduled_condition(pod)
    assert condition is not None, pod["metadata"]["name"]
    return condition.get("message", "")


# --- the node-fit model, with sidecars and system pods stood in ----------------------------------


def as_resources(a: Amounts) -> dict[str, str]:
    # Rounded up: a stand-in must never ask for less than what it stands in for.
    return {
        "cpu": f"{math.ceil(a.cpu * 1000)}m",
        "memory": str(math.ceil(a.memory)),
        "ephemeral-storage": str(math.ceil(a.ephemeral)),
    }


def add_fuse_sidecar(template: dict[str, Any], mode: str) -> None:
    """What the GCS FUSE webhook injects: a native sidecar asking for what its annotations imply
    (the limits, or the defaults where a limit is "0"), plus the metadata-prefetch sidecar."""
    notes = template["metadata"]["annotations"]
    need = sidecars(
        mode,
        notes["gke-gcsfuse/cpu-limit"],
        notes["gke-gcsfuse/memory-limit"],
        notes["gke-gcsfuse/ephemeral-storage-limit"],
        prefetch=True,  # every pod mounts the data volume, whose PV turns prefetch on
    )
    template["spec"].setdefault("initContainers", []).insert(
        0,
        {
            "name": "gke-gcsfuse-sidecar-standin",
            "image": "registry.k8s.io/pause:3.10",
            "restartPolicy": "Always",
            "resources": {"requests": as_resources(need)},
        },
    )


def system_pods(namespace: str) -> Callable[[dict[str, Any]], list[dict[str, Any]]]:
    """For each node the twin adds: a pod bound to it asking what GKE's system pods there take."""

    def on_node(node: dict[str, Any]) -> list[dict[str, Any]]:
        name = node["metadata"]["name"]
        need = GPU_NODE_DAEMONSETS if GPU in node["status"]["allocatable"] else CPU_NODE_SYSTEM
        return [
            {
                "apiVersion": "v1",
                "kind": "Pod",
                "metadata": {"name": f"system-{name}", "namespace": namespace},
                "spec": {
                    "nodeName": name,
                    "tolerations": [{"operator": "Exists"}],
                    "containers": [
                        {
                            "name": "system",
                            "image": "registry.k8s.io/pause:3.10",
                            "resources": {"requests": as_resources(need)},
                        }
                    ],
                },
            }
        ]

    return on_node


def running(cp: ControlPlane, namespace: str, count: int) -> list[dict[str, Any]] | None:
    found = pods(cp, namespace)
    live = [p for p in found if p["status"].get("phase") in ("Running", "Succeeded")]
    return found if len(found) >= count and len(live) == len(found) else None


@pytest.mark.parametrize("profile", PROFILES)
def test_pods_fit_beside_fuse_sidecars_and_system_pods(
    control_plane: ControlPlane, twin: Twin, profile: str, tmp_path: Path
) -> None:
    """Standard only: there the project sizes the workers to the node (allocatable less the
    DaemonSets less the sidecars) and packs the CPU pool itself; on Autopilot GKE sizes the nodes.
    The head and the data-prep Job share the CPU pool's two nodes on different nodes: together
    they ask more CPU than one c2-standard-16 has."""
    cp = control_plane
    namespace = f"fit-{profile}"
    scaler = twin(namespace, profile, on_node=system_pods(namespace))
    docs = render(tmp_path, profile, namespace)
    for template in pod_templates(docs):
        add_fuse_sidecar(template, "standard")
    create(cp, docs)

    # Head, 2 workers, data prep (a RayJob's submitter once the cluster is ready), one system pod a node.
    count = 1 + worker_group(docs)["replicas"] + 1 + sum(d["kind"] == "RayJob" for d in docs)
    placed = wait_for(
        "every pod running beside the stand-ins",
        lambda: verdicts(scaler, lambda _: True) or running(cp, namespace, count + len(scaler.nodes)),
        timeout=180,
    )
    assert isinstance(placed, list) and all(isinstance(p, dict) for p in placed), placed
    nodes = {p["metadata"]["name"]: p["spec"]["nodeName"] for p in placed}
    labels = {
        n: json.loads(cp.kubectl("get", "node", n, "-o", "json"))["metadata"]["labels"]
        for n in set(nodes.values())
    }
    workers = [p for p in placed if role(p) == "worker"]
    gpu = gpu_profiles()[profile.split("-")[0]]
    assert len({p["spec"]["nodeName"] for p in workers}) == len(workers) == 2  # one worker a GPU node
    assert all(labels[p["spec"]["nodeName"]][ACCELERATOR] == gpu.accelerator for p in workers)
    cpu_pods = [p["spec"]["nodeName"] for p in placed if role(p) in ("head", "data-prep")]
    assert len(set(cpu_pods)) == 2 and all(
        labels[n]["cloud.google.com/gke-nodepool"] == "default-pool" for n in cpu_pods
    )


# --- what no longer fits stays Pending, with the scheduler's reason ------------------------------


# A pod tried before the PV controller bound its claims says so until the scheduler's next
# attempt: not the reason a test waits for.
UNBOUND_CLAIMS = "unbound immediate PersistentVolumeClaims"


def pending(
    cp: ControlPlane, namespace: str, which: Callable[[dict[str, Any]], bool], count: int
) -> list[str] | None:
    """The PodScheduled messages once ``count`` pods ``which`` accepts are Unschedulable for a
    settled reason."""
    stuck = [p for p in pods(cp, namespace) if which(p) and unschedulable(p)]
    texts = [message(p) for p in stuck]
    return texts if len(stuck) >= count and not any(UNBOUND_CLAIMS in t for t in texts) else None


def test_more_workers_than_the_pool_allows_wait_for_gpus(
    control_plane: ControlPlane, twin: Twin, tmp_path: Path
) -> None:
    """Four workers (valid values: verl accepts 32 GPUs) against a GPU pool the scripts capped at
    the two workers they were given: two run, two wait at the pool's maximum."""
    cp, namespace = control_plane, "pending-gpus"
    scaler = twin(namespace, "h200-standard-raycluster")  # the scripts' pool: at most 2 nodes
    create(
        cp,
        render(
            tmp_path,
            "h200-standard-raycluster",
            namespace,
            "workerGroups.gpu-group.replicas=4",
        ),
    )

    def is_worker(p: dict[str, Any]) -> bool:
        return role(p) == "worker"

    def two_and_two() -> list[str] | None:
        bound = [p for p in pods(cp, namespace) if is_worker(p) and p["spec"].get("nodeName")]
        return pending(cp, namespace, is_worker, 2) if len(bound) == 2 else None

    messages = wait_for("two workers bound, two Unschedulable", two_and_two, timeout=120)
    assert scaler.sizes["gpu-pool"] == 2
    for text in messages:
        assert f"Insufficient {GPU}" in text, text
    said = wait_for("the autoscaler's verdict", lambda: verdicts(scaler, lambda name: "-worker-" in name))
    assert "gpu-pool: 1 max node group size reached" in said[0], said


def test_worker_memory_above_allocatable_gets_no_node(
    control_plane: ControlPlane, twin: Twin, tmp_path: Path
) -> None:
    """A worker asking 1Gi more memory than a B200 node has allocatable: no node of any pool would
    take it, so the autoscaler adds none and says why. `verl-grpo check` refuses that as values
    (worker.memory), so the rendered RayCluster is edited instead."""
    cp, namespace = control_plane, "pending-memory"
    scaler = twin(namespace, "b200-standard-raycluster")
    docs = render(tmp_path, "b200-standard-raycluster", namespace)
    gpu = gpu_profiles()["b200"]
    too_much = f"{math.ceil(allocatable_memory_gib(gpu.memory_gb)) + 1}Gi"
    (container,) = worker_group(docs)["template"]["spec"]["containers"]
    container["resources"]["requests"]["memory"] = container["resources"]["limits"]["memory"] = too_much
    create(cp, docs)

    said = wait_for("the autoscaler's verdict", lambda: verdicts(scaler, lambda name: "-worker-" in name))
    assert "gpu-pool: 1 Insufficient memory" in said[0], said
    assert f"Insufficient {GPU}" not in said[0]  # the GPUs would be there; memory is what is short
    assert scaler.sizes["gpu-pool"] == 0


def test_a_cpu_pool_of_one_node_leaves_a_pod_waiting(
    control_plane: ControlPlane, twin: Twin, tmp_path: Path
) -> None:
    """The project packs the head (12 CPU) and the data-prep Job (8 CPU) onto cpuNodeCount=2
    c2-standard-16 nodes, and `check` refuses 1 node; the scheduler agrees: with the pool resized
    to one node, one of them waits, and the autoscaler cannot grow a pool without autoscaling."""
    cp, namespace = control_plane, "pending-cpu"
    scaler = twin(namespace, "b200-standard-raycluster", resize={"default-pool": 1})
    create(cp, render(tmp_path, "b200-standard-raycluster", namespace))

    def on_cpu(p: dict[str, Any]) -> bool:
        return role(p) in ("head", "data-prep")

    (text,) = wait_for(
        "the head or the data-prep pod Unschedulable", lambda: pending(cp, namespace, on_cpu, 1)
    )
    assert "Insufficient cpu" in text, text
    said = wait_for("the autoscaler's verdict", lambda: verdicts(scaler, lambda name: "-worker-" not in name))
    assert "default-pool: 1 max node group size reached" in said[0], said
