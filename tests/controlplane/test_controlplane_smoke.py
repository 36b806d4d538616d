"""Smoke test of the control-plane tier: KubeRay makes pods, the real scheduler binds them to the
GKE twin's nodes (an H200 pool and the CPU pool of `scripts/up.sh` for h200-standard, the GPU pool
resized to one node), and kwok runs them.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from typing import Any, TypeVar

import pytest

from ..twin.autoscaler import Autoscaler
from ..twin.cloud import provision
from .cluster import ControlPlane
from .helpers import wait_for

pytestmark = pytest.mark.controlplane

GPU = "nvidia.com/gpu"
T = TypeVar("T")
SMOKE_TIMEOUT_S = 90.0  # the first pods after start-up wait for the operator's caches

# A RayCluster whose workers each want a whole H200 node.
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
        tolerations:
        - {{key: nvidia.com/gpu, operator: Exists, effect: NoSchedule}}
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
def gpu_node(control_plane: ControlPlane, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The one node of the scripts' H200 pool, resized to 1 (and the CPU pool's two); no scale-up."""
    cloud = provision("h200-standard", tmp_path_factory.mktemp("smoke-cloud"))
    scaler = Autoscaler(control_plane, cloud.cluster.resized({"gpu-pool": 1}), (), tag="smoke")
    with scaler.running():
        (node,) = [n for n in scaler.nodes if "gpu-pool" in n]
        yield node


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
    # kwok reports it Ready and keeps what GKE's pool gave it; the node lifecycle controller is off,
    # so nothing adds a not-ready taint: only GKE's GPU taint is there.
    wait_for("kwok to report the node Ready", lambda: ready(control_plane, gpu_node))
    time.sleep(1)
    node = json.loads(control_plane.kubectl("get", "node", gpu_node, "-o", "json"))
    assert [t["key"] for t in node["spec"].get("taints", [])] == [GPU]
    assert node["status"]["allocatable"][GPU] == "8"


def ready(cp: ControlPlane, name: str) -> bool:
    node = json.loads(cp.kubectl("get", "node", name, "-o", "json"))
    return any(c["type"] == "Ready" and c["status"] == "True" for c in node["status"].get("conditions", []))


def test_operator_head_pod_is_scheduled(control_plane: ControlPlane, gpu_node: str, namespace: str) -> None:
    # Not KubeRay's sample from ../shared: a user's clone has none (DESIGN.md, "What shared/ is for").
    manifest = MINIMAL_RAYCLUSTER.format(name="raycluster-kuberay", workers=1)
    control_plane.kubectl("create", "-n", namespace, "-f", "-", stdin=manifest)

    selector = "ray.io/cluster=raycluster-kuberay,ray.io/node-type=head"
    (head,) = wait_for(
        "the head pod to be created and bound",
        lambda: bound(control_plane, namespace, selector),
        timeout=SMOKE_TIMEOUT_S,
    )

    assert head["metadata"]["labels"].get("ray.io/node-type") == "head" and head["spec"]["nodeName"]
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
