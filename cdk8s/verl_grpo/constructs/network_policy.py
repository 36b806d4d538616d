"""Who may reach the Ray pods, and whom they may reach, both ways closed to all but what a run needs.

Ingress: the release's own pods (head, workers, the RayJob's submitter, which carries the
release's labels through the RayJob's submitterPodTemplate, the data-prep Job), and on the
dashboard port only networkPolicy.dashboardSources (the KubeRay operator, which polls job status;
it dials nothing else on the head: ray-operator v1.7.0, docs/research/issue-27-security-facts.md
§3). `kubectl port-forward` enters through the node, which NetworkPolicy always admits
("traffic to and from the node where a Pod is running is always allowed",
https://kubernetes.io/docs/concepts/services-networking/network-policies/).

Egress: the release's pods; the cluster's DNS (kube-dns, NodeLocal DNSCache's 169.254.20.10 where
GKE runs it: https://cloud.google.com/kubernetes-engine/docs/how-to/nodelocal-dns-cache, and
Cloud DNS's 169.254.169.254 on port 53 where it runs without NodeLocal DNSCache); the GKE
metadata server that Workload Identity and the GCS FUSE sidecar get tokens from (169.254.169.254:80
and, on Dataplane V2, 169.254.169.252:988:
https://cloud.google.com/kubernetes-engine/docs/how-to/network-policy#network-policy-and-workload-identity);
HTTPS (443) to addresses outside networkPolicy.clusterCidrs: Cloud Storage and Google APIs, and the
Hugging Face Hub for the data-prep Job. A NetworkPolicy has no host names: narrowing 443 to
*.googleapis.com needs GKE's FQDNNetworkPolicy (networking.gke.io/v1alpha1; Dataplane V2, GKE
1.26.4-gke.500+, enabled per cluster: https://cloud.google.com/kubernetes-engine/docs/how-to/fqdn-network-policies),
which this chart does not render. GPUDirect traffic runs on the RDMA NICs, outside the policy.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..facts.kuberay import DASHBOARD_PORT
from ..values.derive import DeploySpec
from .base import ManifestConstruct, pod_labels
from .pod_security import NAMESPACED_EXCEPTIONS

if TYPE_CHECKING:
    from constructs import Construct

DNS_PORTS = [{"protocol": "UDP", "port": 53}, {"protocol": "TCP", "port": 53}]
KUBE_DNS = {
    "namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": "kube-system"}},
    "podSelector": {"matchLabels": {"k8s-app": "kube-dns"}},
}
NODE_LOCAL_DNS = "169.254.20.10/32"
# Cloud DNS for GKE without NodeLocal DNSCache: pods' resolv.conf names the metadata server,
# 169.254.169.254, as their nameserver (https://cloud.google.com/kubernetes-engine/docs/how-to/cloud-dns;
# not re-read here, the review of issue 40 found it): DNS goes there on port 53.
CLOUD_DNS = "169.254.169.254/32"
METADATA_SERVER = [("169.254.169.254/32", 80), ("169.254.169.252/32", 988)]
HTTPS = 443


def egress_rules(spec: DeploySpec) -> list[object]:
    """What the release's pods may reach. More (an MLflow server, a registry mirror): add a
    NetworkPolicy of your own selecting app.kubernetes.io/instance=<release>; policies add up."""
    np = spec.values.network_policy
    own = {"podSelector": {"matchLabels": pod_labels(spec.release.name)}}
    return [
        {"to": [own]},
        {
            "to": [KUBE_DNS, {"ipBlock": {"cidr": NODE_LOCAL_DNS}}, {"ipBlock": {"cidr": CLOUD_DNS}}],
            "ports": DNS_PORTS,
        },
        *(
            {"to": [{"ipBlock": {"cidr": cidr}}], "ports": [{"protocol": "TCP", "port": port}]}
            for cidr, port in METADATA_SERVER
        ),
        {
            "to": [{"ipBlock": {"cidr": "0.0.0.0/0", "except": np.cluster_cidrs}}],
            "ports": [{"protocol": "TCP", "port": HTTPS}],
        },
    ]


class RayNetworkPolicy(ManifestConstruct):
    def __init__(self, scope: Construct, id: str, spec: DeploySpec) -> None:
        super().__init__(scope, id, spec)
        rel = spec.release
        own = {"podSelector": {"matchLabels": pod_labels(rel.name)}}
        self.add_object(
            "network-policy",
            kind="NetworkPolicy",
            name=f"{rel.name}-ray",
            skips=NAMESPACED_EXCEPTIONS,
            body={
                "spec": {
                    "podSelector": {"matchLabels": pod_labels(rel.name)},
                    "policyTypes": ["Ingress", "Egress"],
                    "ingress": [
                        {"from": [own]},
                        {
                            "from": spec.values.network_policy.dashboard_sources,
                            "ports": [{"protocol": "TCP", "port": DASHBOARD_PORT}],
                        },
                    ],
                    "egress": egress_rules(spec),
                }
            },
        )
