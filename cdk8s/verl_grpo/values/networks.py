"""Names of the VPCs, subnets and Network objects, from one prefix (manifests and scripts share them)."""

from __future__ import annotations

from dataclasses import dataclass

# a4-highgpu-8g and a3-ultragpu-8g both carry 8 RoCE NICs beside the gVNIC.
RDMA_NICS = 8


@dataclass(frozen=True)
class NicNetwork:
    name: str
    vpc: str
    subnet: str
    device_mode: str


def nic_networks(prefix: str) -> list[NicNetwork]:
    """The gVNIC network then the RDMA networks, in pod interface order (eth1, eth2, ...)."""
    gvnic = NicNetwork(f"{prefix}-gvnic", f"{prefix}-gvnic-net", f"{prefix}-gvnic-sub", "NetDevice")
    rdma = [
        NicNetwork(f"{prefix}-rdma-{i}", f"{prefix}-rdma-net", f"{prefix}-rdma-sub-{i}", "RDMA")
        for i in range(RDMA_NICS)
    ]
    return [gvnic, *rdma]
