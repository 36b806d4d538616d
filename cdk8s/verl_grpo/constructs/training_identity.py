"""The Kubernetes service account the training pods run as."""

from __future__ import annotations

from constructs import Construct

from ..values.derive import DeploySpec
from .base import ManifestConstruct
from .pod_security import NAMESPACED_EXCEPTIONS, skip_annotations


class TrainingIdentity(ManifestConstruct):
    """The bucket's IAM binding names this account's Workload Identity principal."""

    def __init__(self, scope: Construct, id: str, spec: DeploySpec) -> None:
        super().__init__(scope, id)
        self.name = spec.values.service_account.name
        self.add_object(
            "service-account",
            api_version="v1",
            kind="ServiceAccount",
            name=self.name,
            namespace=spec.release.namespace,
            annotations=skip_annotations(NAMESPACED_EXCEPTIONS),
            body={},
        )
