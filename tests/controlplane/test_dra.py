"""A4X's workers get their devices through DRA: the real scheduler allocates the DRANET NICs and
the IMEX channel that `a4x-standard` asks for, on Node objects shaped like GKE's A4X nodes.

What cannot run here stands in, as objects those components would write (nothing else is faked):
- GKE's managed DRANET driver publishes each node's RDMA NICs as a ResourceSlice and GKE defines
  the DeviceClass `mrdma.google.com` (values/networks.py cites the page). How GKE's class selects
  its devices is not published: the stand-in selects the stand-in driver's devices.
- NVIDIA's DRA driver (k8s-dra-driver-gpu v25.12.0): its DeviceClass
  `compute-domain-default-channel.nvidia.com` (deployments/helm/nvidia-dra-driver-gpu/templates/
  deviceclass-compute-domain-default-channel.yaml, CEL copied), a channel device per node
  (driver compute-domain.nvidia.com, attributes type=channel, id=0), and the workload
  ResourceClaimTemplate its ComputeDomain controller makes for `spec.channel.resourceClaimTemplate`
  (templates/compute-domain-workload-claim-template.tmpl.yaml, without the opaque driver config
  the scheduler does not read).
The kube-controller-manager's resourceclaim controller makes each pod's ResourceClaims from the
templates, the scheduler allocates them and binds the pods; there is no kubelet, so nothing runs.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from verl_grpo.values.machines import gpu_profiles
from verl_grpo.values.networks import DRANET_DEVICE_CLASS, DRANET_LABEL

from .cluster import ControlPlane
from .helpers import await_namespaces_deleted, begin_namespace_deletion, items, wait_for
from .test_scheduling import (
    ACCELERATOR,
    all_bound,
    cpu_node,
    cpu_pool_labels,
    create,
    expected_pods,
    gpu_node,
    render,
    role,
)

pytestmark = pytest.mark.controlplane

NAMESPACE = "dra-a4x"
FAKE_DRANET_DRIVER = "dranet.verl-grpo.test"  # the stand-in for GKE's driver
CHANNEL_DRIVER = "compute-domain.nvidia.com"
CHANNEL = "compute-domain-default-channel.nvidia.com"  # its DeviceClass
RDMA_NICS = gpu_profiles()["a4x"].rdma_nics
NODES = ["dra-a4x-gpu-0", "dra-a4x-gpu-1"]
CPU_NODES = ["dra-cpu-0", "dra-cpu-1"]
DECOY = "dra-a4x-no-dranet"  # an A4X node of a pool made without DRANET


def a4x_node(name: str, dranet: bool) -> dict[str, Any]:
    """GKE's A4X node: arm64, tainted as Arm (prepare-arm-workloads-for-deployment) and as a GPU node."""
    body = gpu_node(name, gpu_profiles()["a4x"], autopilot=False)
    labels = body["metadata"]["labels"]
    labels["kubernetes.io/arch"] = "arm64"
    del labels["cloud.google.com/gke-spot"]  # a reservation's node, not a Spot one
    if dranet:
        labels[DRANET_LABEL] = "true"
    body["spec"]["taints"].append({"key": "kubernetes.io/arch", "value": "arm64", "effect": "NoSchedule"})
    return body


def device_class(name: str, expression: str) -> dict[str, Any]:
    return {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "DeviceClass",
        "metadata": {"name": name},
        "spec": {"selectors": [{"cel": {"expression": expression}}]},
    }


def slice_of(node: str, driver: str, devices: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceSlice",
        "metadata": {"name": f"{node}-{driver.split('.')[0]}"},
        "spec": {
            "driver": driver,
            "nodeName": node,
            "pool": {"name": node, "generation": 1, "resourceSliceCount": 1},
            "devices": devices,
        },
    }


def published(node: str) -> list[dict[str, Any]]:
    """What the two drivers would publish for one node: its RDMA NICs and one IMEX channel."""
    nics = [{"name": f"rdma{i}"} for i in range(RDMA_NICS)]
    channel = [{"name": "channel-0", "attributes": {"type": {"string": "channel"}, "id": {"int": 0}}}]
    return [slice_of(node, FAKE_DRANET_DRIVER, nics), slice_of(node, CHANNEL_DRIVER, channel)]


def channel_template(name: str) -> dict[str, Any]:
    return {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceClaimTemplate",
        "metadata": {"name": name, "namespace": NAMESPACE},
        "spec": {
            "spec": {"devices": {"requests": [{"name": "channel", "exactly": {"deviceClassName": CHANNEL}}]}}
        },
    }


@pytest.fixture
def a4x_cluster(control_plane: ControlPlane) -> Iterator[ControlPlane]:
    cp = control_plane
    classes = [
        device_class(DRANET_DEVICE_CLASS, f"device.driver == '{FAKE_DRANET_DRIVER}'"),
        device_class(
            CHANNEL,
            f"device.driver == '{CHANNEL_DRIVER}' && device.attributes['{CHANNEL_DRIVER}'].type == 'channel' "
            f"&& device.attributes['{CHANNEL_DRIVER}'].id == 0",
        ),
    ]
    nodes = [
        *(a4x_node(n, dranet=True) for n in NODES),
        a4x_node(DECOY, dranet=False),
        *(cpu_node(n, cpu_pool_labels(autopilot=False)) for n in CPU_NODES),
    ]
    slices = [s for n in [*NODES, DECOY] for s in published(n)]
    cp.kubectl("create", "namespace", NAMESPACE)
    cp.kubectl("create", "-f", "-", stdin=json.dumps({"kind": "List", "apiVersion": "v1", "items": nodes}))
    create(cp, [*classes, *slices])
    yield cp
    begin_namespace_deletion(cp, NAMESPACE)
    await_namespaces_deleted(cp, [NAMESPACE])
    cp.kubectl("delete", "nodes", *NODES, DECOY, *CPU_NODES, "--ignore-not-found", "--wait=false")
    cp.kubectl("delete", "resourceslices", *(s["metadata"]["name"] for s in slices), "--ignore-not-found")
    cp.kubectl("delete", "deviceclasses", *(c["metadata"]["name"] for c in classes), "--ignore-not-found")


def test_a4x_workers_get_their_nics_and_imex_channel(a4x_cluster: ControlPlane, tmp_path: Path) -> None:
    cp = a4x_cluster
    docs = render(tmp_path, "a4x-standard", NAMESPACE)
    (domain,) = [d for d in docs if d["kind"] == "ComputeDomain"]
    create(cp, docs)
    # NVIDIA's ComputeDomain controller, in its place: the channel template the domain names.
    create(cp, [channel_template(domain["spec"]["channel"]["resourceClaimTemplate"]["name"])])

    placed = wait_for("every pod bound", lambda: all_bound(cp, NAMESPACE, expected_pods(docs)), timeout=120)
    workers = {p["metadata"]["name"]: p["spec"]["nodeName"] for p in placed if role(p) == "worker"}
    assert sorted(workers.values()) == NODES, workers  # one per A4X node of the DRANET pool, not the decoy
    labels = {n["metadata"]["name"]: n["metadata"]["labels"] for n in items(cp, "nodes", *NODES)}
    assert {labels[n][ACCELERATOR] for n in NODES} == {"nvidia-gb200"}

    claims = items(cp, "resourceclaims", "-n", NAMESPACE)
    by_pod: dict[str, dict[str, list[dict[str, Any]]]] = {}
    for claim in claims:
        (owner,) = claim["metadata"]["ownerReferences"]
        results = claim["status"]["allocation"]["devices"]["results"]
        by_pod.setdefault(owner["name"], {})[results[0]["request"]] = results
    assert set(by_pod) == set(workers)
    for pod, node in workers.items():
        nics, channel = by_pod[pod]["rdma"], by_pod[pod]["channel"]
        # allocationMode All: every NIC of the worker's own node; the node's one IMEX channel.
        assert sorted(r["device"] for r in nics) == [f"rdma{i}" for i in range(RDMA_NICS)]
        assert {(r["driver"], r["pool"]) for r in nics} == {(FAKE_DRANET_DRIVER, node)}
        assert [(r["driver"], r["pool"], r["device"]) for r in channel] == [
            (CHANNEL_DRIVER, node, "channel-0")
        ]
