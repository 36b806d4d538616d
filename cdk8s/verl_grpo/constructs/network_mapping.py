"""GPUDirect RDMA multi-networking: GKENetworkParamSet + Network per NIC, and the pod annotation."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from ..values.derive import DeploySpec
from ..values.networks import nic_networks
from .base import ManifestConstruct

if TYPE_CHECKING:
    from constructs import Construct


class NetworkMapping(ManifestConstruct):
    """Cluster-scoped network objects; `pod_annotations` is generated from the same list.

    One owner per object: by default scripts/40-rdma.sh applies these objects once per cluster
    (rendered from the user's values, see docs/DESIGN.md), and the release only references them.
    `network.createObjects` moves ownership into the release (for GitOps without the scripts).
    Under GKE managed DRANET (network.rdma dranet) there are none: the node pool makes its RDMA
    networks and the workers claim the NICs (constructs/device_claims.py); GKE's DRANET page says
    not to mix the two.
    """

    def __init__(self, scope: Construct, id: str, spec: DeploySpec) -> None:
        super().__init__(scope, id, spec.release.namespace)
        dranet = spec.values.network.rdma == "dranet"
        self.networks = [] if dranet else nic_networks(spec.values.network.prefix, spec.gpu.rdma_nics)
        if not spec.values.network.create_objects:
            return
        for i, net in enumerate(self.networks):
            suffix = "gvnic" if i == 0 else f"rdma-{i - 1}"
            self.add_object(
                f"params-{suffix}",
                kind="GKENetworkParamSet",
                name=net.name,
                body={"spec": {"vpc": net.vpc, "vpcSubnet": net.subnet, "deviceMode": net.device_mode}},
            )
            self.add_object(
                f"network-{suffix}",
                kind="Network",
                name=net.name,
                body={
                    "spec": {
                        "type": "Device",
                        "parametersRef": {
                            "group": "networking.gke.io",
                            "kind": "GKENetworkParamSet",
                            "name": net.name,
                        },
                    }
                },
            )

    @property
    def pod_annotations(self) -> dict[str, str]:
        if not self.networks:
            return {}
        interfaces = [{"interfaceName": "eth0", "network": "default"}] + [
            {"interfaceName": f"eth{i + 1}", "network": net.name} for i, net in enumerate(self.networks)
        ]
        return {
            "networking.gke.io/default-interface": "eth0",
            "networking.gke.io/interfaces": json.dumps(interfaces),
        }
