"""The Kubernetes service account the training pods run as."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..values.derive import DeploySpec
from .base import ManifestConstruct
from .pod_security import NAMESPACED_EXCEPTIONS

if TYPE_CHECKING:
    from constructs import Construct


class TrainingIdentity(ManifestConstruct):
    """The bucket's IAM binding names this account's Workload Identity principal."""

    def __init__(self, scope: Construct, id: str, spec: DeploySpec) -> None:
        super().__init__(scope, id, spec)
        self.name = spec.values.service_account.name
        self.add_object(
            "service-account",
            kind="ServiceAccount",
            name=self.name,
            skips=NAMESPACED_EXCEPTIONS,
            body={},
        )
