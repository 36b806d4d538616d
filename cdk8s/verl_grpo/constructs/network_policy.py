"""Who may reach the Ray pods: pods of the same namespace only (the RayJob submitter, the
`verl-grpo submit` port-forward goes through the kubelet). Egress stays open: the pods fetch
from Cloud Storage and Google APIs. GPUDirect traffic runs on the RDMA NICs, outside the policy."""

from __future__ import annotations

from constructs import Construct

from ..values.derive import DeploySpec
from .base import ManifestConstruct, pod_labels
from .pod_security import NAMESPACED_EXCEPTIONS, skip_annotations


class RayNetworkPolicy(ManifestConstruct):
    def __init__(self, scope: Construct, id: str, spec: DeploySpec) -> None:
        super().__init__(scope, id)
        rel = spec.release
        self.add_object(
            "network-policy",
            api_version="networking.k8s.io/v1",
            kind="NetworkPolicy",
            name=f"{rel.name}-ray",
            namespace=rel.namespace,
            annotations=skip_annotations(NAMESPACED_EXCEPTIONS),
            body={
                "spec": {
                    "podSelector": {"matchLabels": pod_labels(rel.name)},
                    "policyTypes": ["Ingress"],
                    "ingress": [{"from": [{"podSelector": {}}]}],
                }
            },
        )
