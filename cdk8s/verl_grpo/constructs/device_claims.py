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

from ..values.derive import DeploySpec
from ..values.networks import DRANET_DEVICE_CLASS
from .base import ManifestConstruct

if TYPE_CHECKING:
    from constructs import Construct


class DeviceClaims(ManifestConstruct):
    """The claim templates (and the ComputeDomain) of the release; `pod_fields` and
    `container_fields` are what the worker pod template adds (nothing without claims)."""

    def __init__(self, scope: Construct, id: str, spec: DeploySpec) -> None:
        super().__init__(scope, id, spec.release.namespace)
        release = spec.release.name
        self.claims: list[tuple[str, str]] = []  # (claim name in the pod, ResourceClaimTemplate)
        if spec.values.network.rdma == "dranet":
            template = f"{release}-rdma"
            self.add_object(
                "rdma",
                kind="ResourceClaimTemplate",
                name=template,
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
            self.claims.append(("rdma", template))
        if spec.gpu.imex:
            # The ComputeDomain's spec is immutable (CRD rule `self == oldSelf`, which the API
            # server enforced on a helm upgrade that changed the workers): its name carries a
            # digest of the spec, so a new size is a new domain, as a new bucket is a new PV pair.
            nodes = spec.ops.total_workers(spec.values)
            domain = f"{release}-imex-{spec.ops.leaves_digest(nodes)}"
            channel = f"{domain}-channel"
            self.add_object(
                "imex",
                kind="ComputeDomain",
                name=domain,
                body={
                    "spec": {
                        "numNodes": nodes,
                        "channel": {"resourceClaimTemplate": {"name": channel}},
                    }
                },
            )
            self.claims.append(("imex-channel", channel))

    def pod_fields(self) -> dict[str, Any]:
        claims = [{"name": name, "resourceClaimTemplateName": template} for name, template in self.claims]
        return {"resourceClaims": claims} if claims else {}

    def container_fields(self) -> dict[str, Any]:
        return {"claims": [{"name": name} for name, _ in self.claims]} if self.claims else {}
