"""Smoke test of the control-plane tier: KubeRay makes pods, the real scheduler binds them to a GPU Node.

There is no kubelet, so the Node is an object we create with the capacity and labels of a GKE
H200 node, and pods stay Pending-but-bound (``spec.nodeName`` set) forever; that is all the
scheduler decides and all these tests look at.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any, TypeVar

import pytest

from .cluster import ControlPlane
from .helpers import wait_for

pytestmark = pytest.mark.controlplane

SHARED = Path(__file__).resolve().parents[3] / "shared"  # beside the repo, as tests/conftest.py has it
SAMPLE = SHARED / "corpus" / "kuberay-v1.7.0-samples" / "ray-cluster.sample.yaml"
NODE = "gke-h200-gpu-pool-0"
GPU = "nvidia.com/gpu"
T = TypeVar("T")
SMOKE_TIMEOUT_S = 90.0  # the first pods after start-up wait for the operator's caches

# Labels a GKE node pool of a3-ultragpu-8g machines carries (what the chart's nodeSelectors target).
GPU_NODE: dict[str, Any] = {
    "apiVersion": "v1",
    "kind": "Node",
    "metadata": {
        "name": NODE,
        "labels": {
            "kubernetes.io/hostname": NODE,
            "kubernetes.io/os": "linux",
            "kubernetes.io/arch": "amd64",
            "cloud.google.com/gke-accelerator": "nvidia-h200-141gb",
            "cloud.google.com/gke-nodepool": "gpu-pool",
        },
    },
    # Status is kept on create (the kubelet registers nodes this way): pkg/registry/core/node/strategy.go
    # PrepareForCreate@v1.36.3 only drops disabled fields.
    "status": {
        "capacity": {"cpu": "224", "memory": "2880Gi", "pods": "110", "ephemeral-storage": "1Ti", GPU: "8"},
        "allocatable": {
            "cpu": "220",
            "memory": "2800Gi",
            "pods": "110",
            "ephemeral-storage": "900Gi",
            GPU: "8",
        },
    },
}

# A RayCluster whose workers each want a whole H200 node; used when no corpus copy is beside the repo too.
MINIMAL_RAYCLUSTER = """
apiVersion: ray.io/v1
kind: RayCluster
metadata:
  name: {name}
spec:
  rayVersion: "2.52.0"
  headGroupSpec:
    rayStartParams: {{}}
    template:
      spec:
        containers:
        - name: ray-head
          image: rayproject/ray:2.52.0
          resources:
            requests: {{cpu: "1", memory: 2Gi}}
  workerGroupSpecs:
  - groupName: gpu
    replicas: {workers}
    minReplicas: 0
    maxReplicas: 4
    rayStartParams: {{}}
    template:
      spec:
        nodeSelector:
          cloud.google.com/gke-accelerator: nvidia-h200-141gb
          cloud.google.com/gke-nodepool: gpu-pool
        containers:
        - name: ray-worker
          image: rayproject/ray:2.52.0
          resources:
            requests: {{cpu: "8", memory: 64Gi, nvidia.com/gpu: "8"}}
            limits: {{nvidia.com/gpu: "8"}}
"""


def pods(cp: ControlPlane, namespace: str, selector: str) -> list[dict[str, Any]]:
    out = cp.kubectl("get", "pods", "-n", namespace, "-l", selector, "-o", "json")
    return json.loads(out)["items"]


def bound(cp: ControlPlane, namespace: str, selector: str, count: int = 1) -> list[dict[str, Any]] | None:
    """The matching pods once at least ``count`` exist and all have been bound to a node."""
    found = pods(cp, namespace, selector)
    if len(found) >= count and all(p["spec"].get("nodeName") for p in found):
        return found
    return None


@pytest.fixture(scope="module")
def gpu_node(control_plane: ControlPlane) -> str:
    control_plane.kubectl("create", "-f", "-", stdin=json.dumps(GPU_NODE))
    return NODE


@pytest.fixture
def namespace(control_plane: ControlPlane, request: pytest.FixtureRequest) -> Iterator[str]:
    name = request.node.name.replace("_", "-").lower()[:50]
    control_plane.kubectl("create", "namespace", name)
    yield name
    control_plane.kubectl("delete", "namespace", name, "--wait=false")


def test_node_keeps_gpu_capacity(control_plane: ControlPlane, gpu_node: str) -> None:
    node = json.loads(control_plane.kubectl("get", "node", gpu_node, "-o", "json"))
    assert node["status"]["allocatable"][GPU] == "8"
    assert node["metadata"]["labels"]["cloud.google.com/gke-accelerator"] == "nvidia-h200-141gb"
    # The node lifecycle controller is off, so nothing taints the kubelet-less node not-ready.
    time.sleep(1)
    node = json.loads(control_plane.kubectl("get", "node", gpu_node, "-o", "json"))
    assert not node["spec"].get("taints")


def test_operator_head_pod_is_scheduled(control_plane: ControlPlane, gpu_node: str, namespace: str) -> None:
    manifest = (
        SAMPLE.read_text()
        if SAMPLE.is_file()
        else MINIMAL_RAYCLUSTER.format(name="raycluster-kuberay", workers=1)
    )
    control_plane.kubectl("create", "-n", namespace, "-f", "-", stdin=manifest)

    selector = "ray.io/cluster=raycluster-kuberay,ray.io/node-type=head"
    (head,) = wait_for(
        "the head pod to be created and bound",
        lambda: bound(control_plane, namespace, selector),
        timeout=SMOKE_TIMEOUT_S,
    )

    assert head["spec"]["nodeName"] == gpu_node
    assert head["metadata"]["ownerReferences"][0]["kind"] == "RayCluster"
    # The operator also made the head Service selecting that pod (headless unless
    # ENABLE_RAY_HEAD_CLUSTER_IP_SERVICE: ray-operator/controllers/ray/common/service.go@v1.6.0).
    services = control_plane.kubectl("get", "svc", "-n", namespace, "-l", selector, "-o", "json")
    (svc,) = json.loads(services)["items"]
    assert svc["spec"]["selector"]["ray.io/node-type"] == "head"


def test_gpu_workers_fill_the_node_then_wait(
    control_plane: ControlPlane, gpu_node: str, namespace: str
) -> None:
    """Two 8-GPU workers, one 8-GPU node: the scheduler binds one and reports the other unschedulable."""
    control_plane.kubectl(
        "create", "-n", namespace, "-f", "-", stdin=MINIMAL_RAYCLUSTER.format(name="gpu", workers=2)
    )
    selector = "ray.io/cluster=gpu,ray.io/node-type=worker"

    def one_bound_one_rejected() -> tuple[dict[str, Any], dict[str, Any]] | None:
        workers = pods(control_plane, namespace, selector)
        placed = [p for p in workers if p["spec"].get("nodeName")]
        rejected = [p for p in workers if _unschedulable(p)]
        return (placed[0], rejected[0]) if len(placed) == 1 and len(rejected) == 1 else None

    placed, rejected = wait_for(
        "one GPU worker bound and one unschedulable", one_bound_one_rejected, timeout=SMOKE_TIMEOUT_S
    )
    assert placed["spec"]["nodeName"] == gpu_node
    message = next(c["message"] for c in rejected["status"]["conditions"] if c["type"] == "PodScheduled")
    assert f"Insufficient {GPU}" in message


def _unschedulable(pod: dict[str, Any]) -> bool:
    return any(
        c["type"] == "PodScheduled" and c["status"] == "False" and c.get("reason") == "Unschedulable"
        for c in pod.get("status", {}).get("conditions", [])
    )
