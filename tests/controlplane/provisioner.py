"""A fake of GKE's queued provisioning, the part of its cluster autoscaler that answers the
ProvisioningRequests Kueue creates for a flex-start run.

GKE's provisioner cannot run on the loopback tier, so tests play it, as KubeRay's envtest plays
the kubelet: they find the ProvisioningRequest a Workload owns and set the condition the
autoscaler would. The condition types and their meaning are the API's own
(k8s.io/autoscaler/cluster-autoscaler/apis provisioningrequest/autoscaling.x-k8s.io/v1/types.go
@v0.0.0-20240830133931-adfbe7e45277, the version Kueue v0.19.2 uses): Accepted (the autoscaler
will try), Provisioned (the capacity exists), Failed (it cannot be had). Every change is recorded
in ``actions``, so a test can say what the provisioner did and when.
"""

from __future__ import annotations

import datetime as dt
import json
import time
from dataclasses import dataclass, field
from typing import Any

from .cluster import ControlPlane
from .helpers import items

PROVISIONING_REQUESTS = "provisioningrequests.autoscaling.x-k8s.io"


@dataclass(frozen=True)
class Action:
    """One condition the fake set on one ProvisioningRequest."""

    request: str
    condition: str
    status: str
    message: str
    at: float  # time.monotonic() once the API server took it


def attempt(request: dict[str, Any]) -> int:
    """Kueue names each try <workload>-<check>-<attempt> (provisioning.go@v0.19.2
    ProvisioningRequestName), starting at 1."""
    return int(request["metadata"]["name"].rsplit("-", 1)[1])


@dataclass
class FakeProvisioner:
    cp: ControlPlane
    namespace: str = "default"
    actions: list[Action] = field(default_factory=list)

    def requests_of(self, workload: str) -> list[dict[str, Any]]:
        """The ProvisioningRequests the Workload controls (Kueue sets itself as their
        controller), first attempt first."""
        owned = [
            r
            for r in items(self.cp, PROVISIONING_REQUESTS, "-n", self.namespace)
            if any(
                o["kind"] == "Workload" and o["name"] == workload and o.get("controller")
                for o in r["metadata"].get("ownerReferences", [])
            )
        ]
        return sorted(owned, key=attempt)

    def set_condition(self, request: str, kind: str, status: str, reason: str, message: str) -> None:
        set_condition(self.cp, self.namespace, request, kind, status, reason, message)
        self.actions.append(Action(request, kind, status, message, time.monotonic()))

    def accept(self, request: str) -> str:
        """Accepted, capacity not there yet: Provisioned=False with a message, which Kueue copies
        into the Workload's admission check (controller.go@v0.19.2 syncCheckStates, isAccepted).
        Returns that message."""
        message = "fake provisioner: accepted, waiting for capacity"
        self.set_condition(request, "Accepted", "True", "Accepted", "fake provisioner: accepted")
        self.set_condition(request, "Provisioned", "False", "Waiting", message)
        return message

    def provision(self, request: str) -> str:
        """The whole request's capacity exists. Returns the condition's message."""
        message = "fake provisioner: every node of the request is provisioned"
        self.set_condition(request, "Provisioned", "True", "Provisioned", message)
        return message

    def fail(self, request: str) -> str:
        """The capacity cannot be had. Returns the condition's message."""
        message = "fake provisioner: no capacity"
        self.set_condition(request, "Failed", "True", "FakeNoCapacity", message)
        return message


def set_condition(
    cp: ControlPlane, namespace: str, request: str, kind: str, status: str, reason: str, message: str
) -> None:
    """Set one condition of a ProvisioningRequest through the status subresource, as the
    autoscaler does, keeping the others (a metav1.Condition each: every field below is required by
    the CRD)."""
    current = items(cp, PROVISIONING_REQUESTS, request, "-n", namespace)[0]
    conditions = [c for c in current.get("status", {}).get("conditions", []) if c["type"] != kind]
    conditions.append(
        {
            "type": kind,
            "status": status,
            "reason": reason,
            "message": message,
            "lastTransitionTime": dt.datetime.now(dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
            "observedGeneration": current["metadata"]["generation"],
        }
    )
    patch = json.dumps({"status": {"conditions": conditions}})
    cp.kubectl(
        "patch", PROVISIONING_REQUESTS, request, "-n", namespace,
        "--subresource=status", "--type=merge", "-p", patch,
    )  # fmt: skip
