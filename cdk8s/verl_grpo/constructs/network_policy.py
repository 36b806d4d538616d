"""Who may reach the Ray pods: pods of the same namespace (Ray pods, the RayJob submitter; the
`verl-grpo submit` port-forward enters through the kubelet), and on the dashboard port only the
KubeRay operator, which polls job status from its own namespace (networkPolicy.dashboardSources).
Egress stays open: the pods fetch from Cloud Storage and Google APIs. GPUDirect traffic runs on
the RDMA NICs, outside the policy."""

from __future__ import annotations

from constructs import Construct

from ..values.derive import DeploySpec
from ..values.kuberay import DASHBOARD_PORT
from .base import ManifestConstruct, pod_labels
from .pod_security import NAMESPACED_EXCEPTIONS


class RayNetworkPolicy(ManifestConstruct):
    def __init__(self, scope: Construct, id: str, spec: DeploySpec) -> None:
        super().__init__(scope, id, spec.release.namespace)
        rel = spec.release
        self.add_object(
            "network-policy",
            kind="NetworkPolicy",
            name=f"{rel.name}-ray",
            skips=NAMESPACED_EXCEPTIONS,
            body={
                "spec": {
                    "podSelector": {"matchLabels": pod_labels(rel.name)},
                    "policyTypes": ["Ingress"],
                    "ingress": [
                        {"from": [{"podSelector": {}}]},
                        {
                            "from": spec.values.network_policy.dashboard_sources,
                            "ports": [{"protocol": "TCP", "port": DASHBOARD_PORT}],
                        },
                    ],
                }
            },
        )
