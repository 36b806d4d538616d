"""Names of the VPCs, subnets and Network objects, from one prefix (manifests and scripts share them),
and GKE's managed DRANET, the other way to give a pod its RDMA NICs."""

from __future__ import annotations

from dataclasses import dataclass

# GKE managed DRANET (https://cloud.google.com/kubernetes-engine/docs/how-to/allocate-network-resources-dra,
# "Allocate network resources by using GKE managed DRANET", 2026-04-10): a node pool labelled
# cloud.google.com/gke-networking-dra-driver=true (created with --accelerator-network-profile=auto,
# which makes the RDMA VPC and subnets) publishes its RDMA NICs as devices of the DeviceClass
# mrdma.google.com; a pod claims all of its node's through a ResourceClaimTemplate
# (resource.k8s.io/v1, allocationMode All). It must not be mixed with Device-type Network objects.
DRANET_LABEL = "cloud.google.com/gke-networking-dra-driver"
DRANET_DEVICE_CLASS = "mrdma.google.com"
DRANET_POOL_FLAGS = ("--accelerator-network-profile=auto", f"--node-labels={DRANET_LABEL}=true")


@dataclass(frozen=True)
class NicNetwork:
    name: str
    vpc: str
    subnet: str
    device_mode: str


def nic_networks(prefix: str, rdma_nics: int) -> list[NicNetwork]:
    """The gVNIC network then the RDMA networks (one per RoCE NIC of the machine, data/gpus/), in
    pod interface order (eth1, eth2, ...)."""
    return [gvnic_network(prefix), *(rdma_network(prefix, i) for i in range(rdma_nics))]


def gvnic_network(prefix: str) -> NicNetwork:
    return NicNetwork(f"{prefix}-gvnic", f"{prefix}-gvnic-net", f"{prefix}-gvnic-sub", "NetDevice")


def rdma_network(prefix: str, index: object) -> NicNetwork:
    """The network of RDMA NIC `index` (an int, or the chart's range index)."""
    return NicNetwork(f"{prefix}-rdma-{index}", f"{prefix}-rdma-net", f"{prefix}-rdma-sub-{index}", "RDMA")


def pod_interfaces(prefix: str, rdma_nics: int) -> list[dict[str, str]]:
    """GKE's networking.gke.io/interfaces: eth0 on the default network, then each of nic_networks."""
    return [{"interfaceName": "eth0", "network": "default"}] + [
        {"interfaceName": f"eth{i + 1}", "network": net.name}
        for i, net in enumerate(nic_networks(prefix, rdma_nics))
    ]
