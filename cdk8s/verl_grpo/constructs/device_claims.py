"""Devices the GPU workers claim through Kubernetes DRA, beside their nvidia.com/gpu limit: the
RDMA NICs under GKE managed DRANET (network.rdma dranet), and the IMEX channel of a multi-node
NVLink domain (A4X, data/gpus/a4x.yaml imex) through NVIDIA's ComputeDomain.

Sources:
- DRANET: https://cloud.google.com/kubernetes-engine/docs/how-to/allocate-network-resources-dra
  (2026-04-10): a ResourceClaimTemplate (resource.k8s.io/v1) whose one request takes
  `exactly: {deviceClassName: mrdma.google.com, allocationMode: All}`, referenced from the pod's
  spec.resourceClaims and the container's resources.claims.
- ComputeDomain: NVIDIA/k8s-dra-driver-gpu v25.12.0 api/nvidia.com/resource/v1beta1/computedomain.go
  and its CRD (tools/pinned-crds/); the A4X form (numNodes = the nodes the workload uses, a channel
  ResourceClaimTemplate the driver creates) from
  https://cloud.google.com/ai-hypercomputer/docs/create/gke-ai-hypercompute-custom-a4x
  ("Configure your workload manifest"). The driver itself (Helm chart nvidia-dra-driver-gpu) is
  the platform's to install, like the KubeRay operator.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..facts.networks import DRANET_DEVICE_CLASS
from ..values.decisions import Condition
from ..values.derive import DeploySpec
from .base import ManifestConstruct

if TYPE_CHECKING:
    from constructs import Construct


class DeviceClaims(ManifestConstruct):
    """The claim templates (and the ComputeDomain) of the release; `pod_fields` and
    `container_fields` are what the worker pod template adds (nothing without claims)."""

    def __init__(self, scope: Construct, id: str, spec: DeploySpec) -> None:
        super().__init__(scope, id, spec)
        decide, release = spec.decide, spec.release.name
        self.rdma_template = f"{release}-rdma"
        self.add_object(
            "rdma",
            kind="ResourceClaimTemplate",
            name=self.rdma_template,
            when=dranet(spec),
            body={
                "spec": {
                    "spec": {
                        "devices": {
                            "requests": [
                                {
                                    "name": "rdma",
                                    "exactly": {
                                        "deviceClassName": DRANET_DEVICE_CLASS,
                                        "allocationMode": "All",
                                    },
                                }
                            ]
                        }
                    }
                }
            },
        )
        # The ComputeDomain's spec is immutable (CRD rule `self == oldSelf`, which the API
        # server enforced on a helm upgrade that changed the workers): its name carries a
        # digest of the spec, so a new size is a new domain, as a new bucket is a new PV pair.
        nodes = decide.total_workers(spec.values)
        domain = f"{release}-imex-{decide.leaves_digest(nodes)}"
        self.imex_channel = f"{domain}-channel"
        self.add_object(
            "imex",
            kind="ComputeDomain",
            name=domain,
            when=decide.flag(spec.gpu.imex),
            body={
                "spec": {"numNodes": nodes, "channel": {"resourceClaimTemplate": {"name": self.imex_channel}}}
            },
        )

    def claims(self, group: DeploySpec) -> list[tuple[Condition, str, str]]:
        """(whether, claim name in the pod, ResourceClaimTemplate) for a worker group's pods."""
        return [
            (dranet(group), "rdma", self.rdma_template),
            (group.decide.flag(group.gpu.imex), "imex-channel", self.imex_channel),
        ]

    def pod_fields(self, group: DeploySpec) -> dict[str, Any]:
        decide, claims = group.decide, self.claims(group)
        items = [(w, {"name": name, "resourceClaimTemplateName": t}) for w, name, t in claims]
        return decide.when(
            decide.any_of(*(w for w, _, _ in claims)), {"resourceClaims": decide.listed(items)}
        )

    def container_fields(self, group: DeploySpec) -> dict[str, Any]:
        decide, claims = group.decide, self.claims(group)
        items = [(w, {"name": name}) for w, name, _ in claims]
        return decide.when(decide.any_of(*(w for w, _, _ in claims)), {"claims": decide.listed(items)})


def dranet(spec: DeploySpec) -> Condition:
    return spec.decide.is_(spec.values.network.rdma, "dranet")
