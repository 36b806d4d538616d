"""Where pods run: CPU-only pods (Ray head, data preparation) per cluster mode, and the GPU
workers per capacity (spot, reservation, flex-start, on-demand); with Kueue, the queue and the
workers' topology.

The GPU pool's gcloud flags (scripts/30-gpu-pool.sh, from `verl-grpo env`) and these selectors
come from one table, facts/capacity.py, so a pod can never ask for a node kind the pool lacks.
"""

from __future__ import annotations

from ..facts.capacity import CAPACITIES
from ..facts.kueue import QUEUE_LABEL, QUEUED_TOLERATION, TOPOLOGY_ANNOTATIONS
from ..facts.networks import DRANET_LABEL
from ..values.decisions import Decisions, text
from ..values.derive import DeploySpec
from ..values.model import Values
from ..values.worker_groups import GroupView

# GKE taints Arm nodes kubernetes.io/arch=arm64:NoSchedule and labels them kubernetes.io/arch
# (https://cloud.google.com/kubernetes-engine/docs/how-to/prepare-arm-workloads-for-deployment);
# Google's A4X Ray workers select the label and tolerate the taint
# (https://cloud.google.com/kubernetes-engine/docs/add-on/ray-on-gke/how-to/ray-a4x).
ARCH_LABEL = "kubernetes.io/arch"
# "Each node in the pool has a Kubernetes node label, cloud.google.com/gke-nodepool, which has the
# node pool's name" (https://cloud.google.com/kubernetes-engine/docs/concepts/node-pools).
NODE_POOL_LABEL = "cloud.google.com/gke-nodepool"


def arch_toleration(arch: str) -> dict[str, str]:
    return {"key": ARCH_LABEL, "operator": "Equal", "value": arch, "effect": "NoSchedule"}


def cpu_node_selector(spec: DeploySpec) -> object:
    """The CPU pool on Standard, a compute class on Autopilot."""
    v = spec.values
    return spec.decide.choose(
        spec.decide.is_(v.cluster.mode, "standard"), cpu_pool_selector(v), compute_class_selector(v)
    )


def cpu_pool_selector(v: Values) -> dict[str, str]:
    return {NODE_POOL_LABEL: v.cluster.cpu_node_pool}


def compute_class_selector(v: Values) -> dict[str, str]:
    # Autopilot compute classes
    # (https://cloud.google.com/kubernetes-engine/docs/concepts/autopilot-compute-classes); "You can
    # add a cloud.google.com/machine-family node selector to your Pod specification for Autopilot to
    # allocate specific Compute Engine hardware"
    # (https://cloud.google.com/kubernetes-engine/docs/how-to/performance-pods).
    return {
        "cloud.google.com/compute-class": v.cluster.compute_class,
        "cloud.google.com/machine-family": v.cluster.head_machine_family,
    }


def gpu_node_selector(spec: DeploySpec) -> dict[str, object]:
    """The GPU workers' node selector: the machine's labels, then the capacity's."""
    return {**gpu_machine_selector(spec), **gpu_selector_labels(spec.values, spec.decide)}


def worker_node_selector(spec: DeploySpec, group: GroupView) -> dict[str, object]:
    """A worker group's node selector (`spec` the group's, values/derive.py group_spec): the
    machine's labels, the capacity's, and on Standard its pool's when several groups each select
    their own (values/worker_groups.py GroupView.pinned)."""
    v, decide = spec.values, spec.decide
    pinned = decide.all_of(decide.is_(v.cluster.mode, "standard"), decide.flag(group.pinned))
    return {**gpu_node_selector(spec), **decide.when(pinned, {NODE_POOL_LABEL: group.pool})}


def gpu_machine_selector(spec: DeploySpec) -> dict[str, str]:
    """The labels every GPU node of the machine carries, whatever capacity it comes from."""
    v, gpu, decide = spec.values, spec.gpu, spec.decide
    return {
        # "GKE attaches a unique node selector to GPU nodes": cloud.google.com/gke-accelerator, the
        # accelerator type (https://cloud.google.com/kubernetes-engine/docs/how-to/gpus).
        "cloud.google.com/gke-accelerator": gpu.accelerator,
        # Autopilot sizes the node from these; the count is a string like every label value
        # (cloud.google.com/gke-accelerator-count: "GPU_COUNT", "the total number of GPUs available to
        # attach to the node", https://cloud.google.com/kubernetes-engine/docs/how-to/autopilot-gpus).
        **decide.when(
            decide.is_(v.cluster.mode, "autopilot"),
            {"cloud.google.com/gke-accelerator-count": text(gpu.gpus_per_node)},
        ),
        **decide.when(decide.negate(decide.is_(gpu.arch, "amd64")), {ARCH_LABEL: gpu.arch}),
        # Only the pools that publish their NICs (facts/networks.py).
        **decide.when(decide.is_(v.network.rdma, "dranet"), {DRANET_LABEL: "true"}),
    }


def queue_labels(spec: DeploySpec) -> dict[str, str]:
    """The run's own labels: Kueue's queue, when queued (facts/kueue.py)."""
    q = spec.values.queue
    return spec.decide.when(spec.decide.flag(q.enabled), {QUEUE_LABEL: q.local_queue})


def worker_annotations(spec: DeploySpec) -> dict[str, object]:
    """Kueue topology-aware placement of the worker group, when queued and asked for."""
    q, decide = spec.values.queue, spec.decide
    out: dict[str, object] = {}
    for mode, annotation in TOPOLOGY_ANNOTATIONS.items():
        placed = decide.all_of(decide.flag(q.enabled), decide.is_(q.topology.mode, mode))
        out.update(decide.when(placed, {annotation: q.topology.level}))
    return out


def worker_tolerations(spec: DeploySpec) -> object:
    """The values' tolerations, the Arm taint's on Arm GPU nodes, and the queued-provisioning
    taint's when flex-start goes through Kueue (its nodes carry
    cloud.google.com/gke-queued=true:NoSchedule)."""
    v, decide = spec.values, spec.decide
    return decide.appended_when(
        v.worker.tolerations,
        [
            (decide.negate(decide.is_(spec.gpu.arch, "amd64")), arch_toleration(spec.gpu.arch)),
            (
                decide.all_of(decide.flag(v.queue.enabled), decide.is_(v.cluster.capacity, "flex-start")),
                QUEUED_TOLERATION,
            ),
        ],
    )


def gpu_selector_labels(v: Values, decide: Decisions) -> dict[str, object]:
    """Selectors the GPU workers add for the capacity (and, on Autopilot, the RDMA zone)."""
    autopilot = decide.is_(v.cluster.mode, "autopilot")
    labels: dict[str, object] = {}
    for c in CAPACITIES.values():
        chosen = decide.is_(v.cluster.capacity, c.name)
        extra = {
            k: val.replace("{reservation}", v.cluster.reservation) for k, val in c.autopilot_labels.items()
        }
        labels |= decide.when(chosen, c.labels) | decide.when(decide.all_of(autopilot, chosen), extra)
    # The RoCE network profile is zonal (<zone>-vpc-roce) and Autopilot picks a node's zone
    # from the pod: pin the workers to the zone of the RDMA VPC (well-known node label,
    # https://kubernetes.io/docs/reference/labels-annotations-taints/#topologykubernetesiozone).
    return labels | decide.when(autopilot, {"topology.kubernetes.io/zone": v.cluster.zone})
