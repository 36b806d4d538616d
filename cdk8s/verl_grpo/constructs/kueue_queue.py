"""Kueue's objects for the run's queue (queue.createObjects): where a platform has no queue yet.

The LocalQueue the run is labelled with points at a ClusterQueue that covers the pods' resources
with two ResourceFlavors: the CPU nodes first (the Ray head and the submitter fit there and get
its node labels), then the GPU nodes, which alone have GPU quota. With topology placement the GPU
flavor names a Topology of GKE's node labels; with flex-start the ClusterQueue runs Kueue's
ProvisioningRequest admission check on the GPU flavor, so GKE provisions the whole gang at once
(queued provisioning) before Kueue admits the run. Facts and sources: facts/kueue.py.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..facts.kueue import (
    ATOMIC_PROVISIONING_CLASS,
    COVERING_QUOTAS,
    GPU_RESOURCE,
    KUEUE_API,
    PROVISIONING_CONTROLLER,
    QUEUED_PROVISIONING_CLASS,
)
from ..values.decisions import Condition, Helper
from ..values.derive import DeploySpec
from ..values.model import TOPOLOGY_LEVELS
from .base import ManifestConstruct
from .scheduling import cpu_pool_selector, gpu_machine_selector, gpu_selector_labels

if TYPE_CHECKING:
    from constructs import Construct


# The Kueue objects the kit makes are named after the ClusterQueue, <clusterQueue>-<role>: one named
# template (`(list . "<role>")`), the Go twin of queue_object_name.
QUEUE_OBJECT_NAME = Helper(
    "verl-grpo.queueObjectName",
    '{{- printf "%s-%s" (index . 0).Values.queue.clusterQueue (index . 1) }}',
    "A Kueue object of the kit's queue: <queue.clusterQueue>-<role> (kueue_queue.py).",
)


class KueueQueue(ManifestConstruct):
    def __init__(self, scope: Construct, id: str, spec: DeploySpec) -> None:
        decide, v, q = spec.decide, spec.values, spec.values.queue
        super().__init__(
            scope, id, spec, when=decide.all_of(decide.flag(q.enabled), decide.flag(q.create_objects))
        )
        cq = q.cluster_queue

        def named(role: str) -> str:
            return decide.helper(QUEUE_OBJECT_NAME, [role], lambda r: f"{cq}-{r}", root=True)

        cpu_flavor, gpu_flavor, topology = named("cpu"), named("gpu"), named("gke")
        self.add_object(
            "local-queue", kind="LocalQueue", name=q.local_queue, body={"spec": {"clusterQueue": cq}}
        )
        self.add_object(
            "topology",
            kind="Topology",
            name=topology,
            body={"spec": {"levels": [{"nodeLabel": label} for label in TOPOLOGY_LEVELS]}},
        )
        # A flavor with a topology places all its pods by it: only when placement is asked for.
        placing = decide.negate(decide.is_(q.topology.mode, "none"))
        placed = decide.when(placing, {"topologyName": topology})
        # Kueue adds a flavor's labels to the admitted pods' nodeSelector (below): on Standard the
        # CPU pool's label keeps KubeRay's selector-less submitter on the pool sized for it. On
        # Autopilot the head's labels would give the 0.5-CPU submitter the Performance compute class,
        # "one Pod per node" billed for the whole node
        # (https://cloud.google.com/kubernetes-engine/docs/how-to/performance-pods): the flavor has
        # none, the head selects its class itself (cpu_node_selector) and the submitter runs on
        # Autopilot's default general-purpose platform, billed for what it requests
        # (https://cloud.google.com/kubernetes-engine/docs/concepts/autopilot-compute-classes).
        self.add_object(
            "cpu-flavor",
            kind="ResourceFlavor",
            name=cpu_flavor,
            body=decide.when(
                decide.is_(v.cluster.mode, "standard"), {"spec": {"nodeLabels": cpu_pool_selector(v)}}
            ),
        )
        # The labels every group's workers select: with groups of several capacities (the rule
        # queue-objects-flex-start-alone keeps flex-start out of such a mix) the machine's alone.
        # Kueue gives a pod set only a flavor whose labels its selectors match, and adds the
        # flavor's labels to the admitted pods' nodeSelector
        # (https://kueue.sigs.k8s.io/docs/concepts/resource_flavor/#resourceflavor-labels); the tier
        # shows both (tests/controlplane/test_kueue.py).
        labels = {
            **gpu_machine_selector(spec),
            **decide.when(decide.one_capacity(v), gpu_selector_labels(v, decide)),
        }
        self.add_object(
            "gpu-flavor",
            kind="ResourceFlavor",
            name=gpu_flavor,
            body={"spec": {"nodeLabels": labels, **placed}},
        )
        # The capacity request that precedes admission, on the GPU flavor: with flex-start, GKE's
        # queued provisioning for the whole gang; with topology placement, an atomic scale-up, so
        # the nodes (and their sub-block labels) exist when Kueue places the workers.
        flex_start = decide.is_(v.cluster.capacity, "flex-start")
        queued = self._provisioning_check(
            "", named("flex-start"), QUEUED_PROVISIONING_CLASS, gpu_flavor, when=flex_start
        )
        atomic = decide.all_of(decide.negate(flex_start), placing)
        strategy = self._provisioning_check(
            "atomic-", named("atomic"), ATOMIC_PROVISIONING_CLASS, gpu_flavor, when=atomic
        )
        checks = {**decide.when(flex_start, queued), **decide.when(atomic, strategy)}
        covered = [*COVERING_QUOTAS, GPU_RESOURCE]

        def quotas(gpus: object) -> list[dict[str, object]]:
            covering: list[dict[str, object]] = [
                {"name": name, "nominalQuota": amount} for name, amount in COVERING_QUOTAS.items()
            ]
            return [*covering, {"name": GPU_RESOURCE, "nominalQuota": gpus}]

        self.add_object(
            "cluster-queue",
            kind="ClusterQueue",
            name=cq,
            body={
                "spec": {
                    # "Defaults to null which is a nothing selector (no namespaces eligible). If set
                    # to an empty selector `{}`, then all namespaces are eligible."
                    # (apis/kueue/v1beta2/clusterqueue_types.go@v0.19.2 NamespaceSelector)
                    "namespaceSelector": {},  # every namespace; none would admit nothing
                    "resourceGroups": [
                        {
                            "coveredResources": covered,
                            "flavors": [
                                {"name": cpu_flavor, "resources": quotas(0)},
                                {"name": gpu_flavor, "resources": quotas(q.gpu_quota)},
                            ],
                        }
                    ],
                    **checks,
                }
            },
        )

    def _provisioning_check(
        self, key: str, name: str, provisioning_class: str, gpu_flavor: str, when: Condition
    ) -> dict[str, Any]:
        """A ProvisioningRequest admission check of the class on the GPU flavor; the ClusterQueue's
        field that runs it."""
        self.add_object(
            f"{key}provisioning-config",
            kind="ProvisioningRequestConfig",
            name=name,
            when=when,
            body={"spec": {"provisioningClassName": provisioning_class, "managedResources": [GPU_RESOURCE]}},
        )
        self.add_object(
            f"{key}admission-check",
            kind="AdmissionCheck",
            name=name,
            when=when,
            body={
                "spec": {
                    "controllerName": PROVISIONING_CONTROLLER,
                    "parameters": {
                        "apiGroup": KUEUE_API.split("/")[0],
                        "kind": "ProvisioningRequestConfig",
                        "name": name,
                    },
                }
            },
        )
        return {"admissionChecksStrategy": {"admissionChecks": [{"name": name, "onFlavors": [gpu_flavor]}]}}
