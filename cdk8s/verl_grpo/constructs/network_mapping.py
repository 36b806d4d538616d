"""GPUDirect RDMA multi-networking: GKENetworkParamSet + Network per NIC, and the pod annotation."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..facts.networks import NicNetwork, gvnic_network, pod_interfaces, rdma_network
from ..values.decisions import Condition, Helper, RangeIndex, go_json
from ..values.derive import DeploySpec
from .base import ManifestConstruct

if TYPE_CHECKING:
    from constructs import Construct


# pod_interfaces in Go: (list prefix count).
POD_INTERFACES = Helper(
    "verl-grpo.podInterfaces",
    """
{{- $prefix := index . 0 }}
{{- $interfaces := list (dict "interfaceName" "eth0" "network" "default") }}
{{- $interfaces = append $interfaces (dict "interfaceName" "eth1" "network" (printf "%s-gvnic" $prefix)) }}
{{- range $i := until (int (index . 1)) }}
{{- $rdma := dict "interfaceName" (printf "eth%d" (add $i 2)) "network" (printf "%s-rdma-%d" $prefix $i) }}
{{- $interfaces = append $interfaces $rdma }}
{{- end }}
{{- toJson $interfaces }}""",
    "A worker pod's networking.gke.io/interfaces (facts/networks.py pod_interfaces).",
)


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
        decide, v = spec.decide, spec.values
        super().__init__(
            scope, id, spec, when=decide.all_of(multi_network(spec), decide.flag(v.network.create_objects))
        )
        gvnic = gvnic_network(v.network.prefix)
        self._add_network("gvnic", gvnic)
        for i in decide.indexes(spec.gpu.rdma_nics):
            self._add_network("rdma", rdma_network(v.network.prefix, i), index=i)

    def _add_network(self, suffix: str, net: NicNetwork, index: int | RangeIndex | None = None) -> None:
        self.add_object(
            f"params-{suffix}",
            kind="GKENetworkParamSet",
            name=net.name,
            index=index,
            body={"spec": {"vpc": net.vpc, "vpcSubnet": net.subnet, "deviceMode": net.device_mode}},
        )
        self.add_object(
            f"network-{suffix}",
            kind="Network",
            name=net.name,
            index=index,
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

    @staticmethod
    def pod_annotations(group: DeploySpec) -> dict[str, object]:
        """A worker group's pod interfaces: eth0 the default network, eth1 the gVNIC, then one per
        RDMA NIC of its machine, in the order nic_networks lists them."""
        decide, prefix = group.decide, group.values.network.prefix
        nics = group.gpu.rdma_nics
        interfaces = decide.helper(POD_INTERFACES, [prefix, nics], lambda p, n: go_json(pod_interfaces(p, n)))
        return decide.when(
            multi_network(group),
            {"networking.gke.io/default-interface": "eth0", "networking.gke.io/interfaces": interfaces},
        )


def multi_network(spec: DeploySpec) -> Condition:
    return spec.decide.is_(spec.values.network.rdma, "multi-network")
