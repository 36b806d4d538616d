"""The DRA drivers of an A4X node, stood in: what they would publish, as API objects.

What cannot run here stands in, as objects those components would write (nothing else is faked):
- GKE's managed DRANET driver publishes each node's RDMA NICs as a ResourceSlice and GKE defines
  the DeviceClass `mrdma.google.com` (facts/networks.py cites the page). How GKE's class selects
  its devices is not published: the stand-in selects the stand-in driver's devices.
- NVIDIA's DRA driver (k8s-dra-driver-gpu v25.12.0): its DeviceClass
  `compute-domain-default-channel.nvidia.com` (deployments/helm/nvidia-dra-driver-gpu/templates/
  deviceclass-compute-domain-default-channel.yaml, CEL copied), a channel device per node
  (driver compute-domain.nvidia.com, attributes type=channel, id=0), and the workload
  ResourceClaimTemplate its ComputeDomain controller makes for `spec.channel.resourceClaimTemplate`
  (templates/compute-domain-workload-claim-template.tmpl.yaml, without the opaque driver config
  the scheduler does not read).
The kube-controller-manager's resourceclaim controller makes each pod's ResourceClaims from the
templates and the scheduler allocates them; the autoscaler stand-in publishes a node's slices
when it adds the node (``Autoscaler.on_node``), as the drivers' kubelet plugins would.
"""

from __future__ import annotations

from typing import Any

from verl_grpo.facts.machines import gpu_profiles
from verl_grpo.facts.networks import DRANET_DEVICE_CLASS, DRANET_LABEL

from .gke import ACCELERATOR

FAKE_DRANET_DRIVER = "dranet.verl-grpo.test"  # the stand-in for GKE's driver
CHANNEL_DRIVER = "compute-domain.nvidia.com"
CHANNEL = "compute-domain-default-channel.nvidia.com"  # its DeviceClass
A4X = gpu_profiles()["a4x"]


def device_class(name: str, expression: str) -> dict[str, Any]:
    return {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "DeviceClass",
        "metadata": {"name": name},
        "spec": {"selectors": [{"cel": {"expression": expression}}]},
    }


def device_classes() -> list[dict[str, Any]]:
    """The classes GKE (DRANET) and NVIDIA's driver define, selecting the stand-ins' devices."""
    return [
        device_class(DRANET_DEVICE_CLASS, f"device.driver == '{FAKE_DRANET_DRIVER}'"),
        device_class(
            CHANNEL,
            f"device.driver == '{CHANNEL_DRIVER}' && device.attributes['{CHANNEL_DRIVER}'].type == 'channel' "
            f"&& device.attributes['{CHANNEL_DRIVER}'].id == 0",
        ),
    ]


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


def drivers(node: dict[str, Any]) -> list[dict[str, Any]]:
    """What the drivers publish for a node the twin adds: on an A4X node its IMEX channel (NVIDIA's
    driver), and its RDMA NICs where the pool runs GKE's DRANET (its node label)."""
    labels = node["metadata"]["labels"]
    if labels.get(ACCELERATOR) != A4X.accelerator:
        return []
    name = node["metadata"]["name"]
    channel = [{"name": "channel-0", "attributes": {"type": {"string": "channel"}, "id": {"int": 0}}}]
    out = [slice_of(name, CHANNEL_DRIVER, channel)]
    if labels.get(DRANET_LABEL) == "true":
        out.append(slice_of(name, FAKE_DRANET_DRIVER, [{"name": f"rdma{i}"} for i in range(A4X.rdma_nics)]))
    return out


def channel_template(name: str, namespace: str) -> dict[str, Any]:
    """The workload claim template NVIDIA's ComputeDomain controller makes for a domain."""
    return {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceClaimTemplate",
        "metadata": {"name": name, "namespace": namespace},
        "spec": {
            "spec": {"devices": {"requests": [{"name": "channel", "exactly": {"deviceClassName": CHANNEL}}]}}
        },
    }
