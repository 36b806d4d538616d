"""The GPU worker groups as each one's pods see the values: its capacity in place of
cluster.capacity, its machine in place of gpu.type, its node pool, its replica bounds.

The chart ranges over the same list, which its helper `verl-grpo.workerGroups` (WORKER_GROUPS)
computes; the parity tests hold the two equal.
"""

from __future__ import annotations

from dataclasses import dataclass

from .decisions import Helper
from .model import Values, WorkerGroup

# The first group's pool keeps the name the single pool had (clusters made before groups keep
# theirs); every further group gets its own, named after it (scripts/30-gpu-pool.sh).
GPU_NODE_POOL = "gpu-pool"
# The chart renders each group with this named template (Decisions.each_group), given the group's view.
WORKER_GROUP_TEMPLATE = "verl-grpo.workerGroup"
# group_views in Go: each group's fields, its capacity and machine (cluster.capacity and gpu.type
# unless it names its own), its pool and whether it is pinned to it; a JSON list.
WORKER_GROUPS = Helper(
    "verl-grpo.workerGroups",
    f"""
{{{{- $groups := list }}}}
{{{{- range $i, $g := .Values.workerGroups }}}}
{{{{- $groups = append $groups (dict
    "name" $g.name
    "replicas" $g.replicas
    "minReplicas" ($g.minReplicas | default $g.replicas)
    "maxReplicas" ($g.maxReplicas | default $g.replicas)
    "pool" (ternary "{GPU_NODE_POOL}" (printf "{GPU_NODE_POOL}-%s" $g.name) (eq $i 0))
    "pinned" (gt (len $.Values.workerGroups) 1)
    "capacity" ($g.capacity | default $.Values.cluster.capacity)
    "machine" ($g.machine | default $.Values.gpu.type)) }}}}
{{{{- end }}}}
{{{{- toJson $groups }}}}""",
    "The worker groups as their pods see the values (values/worker_groups.py group_views).",
)


def pool_name(index: int, name: str) -> str:
    return GPU_NODE_POOL if index == 0 else f"{GPU_NODE_POOL}-{name}"


@dataclass(frozen=True)
class GroupView:
    name: str
    replicas: int
    min_replicas: int
    max_replicas: int
    pool: str
    # Several groups on Standard: each selects its own pool, since a reservation's or on-demand
    # nodes carry no label of their capacity (facts/capacity.py) and pods of one group would
    # otherwise land on another's nodes.
    pinned: bool
    values: Values  # cluster.capacity and gpu.type are the group's


def capacity_of(group: WorkerGroup, v: Values) -> str:
    return group.capacity or v.cluster.capacity


def machine_of(group: WorkerGroup, v: Values) -> str:
    return group.machine or v.gpu.type


def group_views(v: Values) -> list[GroupView]:
    pinned = len(v.worker_groups) > 1
    return [
        GroupView(
            name=g.name,
            replicas=g.replicas,
            min_replicas=g.min_replicas or g.replicas,
            max_replicas=g.max_replicas or g.replicas,
            pool=pool_name(i, g.name),
            pinned=pinned,
            values=v.model_copy(
                update={
                    "cluster": v.cluster.model_copy(update={"capacity": capacity_of(g, v)}),
                    "gpu": v.gpu.model_copy(update={"type": machine_of(g, v)}),
                }
            ),
        )
        for i, g in enumerate(v.worker_groups)
    ]


def one_capacity(v: Values) -> bool:
    """No group names a capacity other than cluster.capacity (expressions.OneCapacity, in the
    rules' terms)."""
    return all(capacity_of(g, v) == v.cluster.capacity for g in v.worker_groups)


def machines(v: Values) -> list[str]:
    """The GPU types of the groups' nodes, each once, in group order."""
    return list(dict.fromkeys(machine_of(g, v) for g in v.worker_groups))


# KubeRay retries a failed RayJob on a new cluster up to spec.backoffLimit times
# (ray-operator/apis/ray/v1/rayjob_types.go BackoffLimit, v1.6.1), and verl resumes the newest
# checkpoint: a Spot node "can be preempted at any time" with 30 s notice
# (https://cloud.google.com/kubernetes-engine/docs/concepts/spot-vms), so a run on Spot survives as
# many preemptions as it has retries. Our choice: 10 on Spot (each costs at most training.saveFreq
# steps and a cluster start; job.activeDeadlineSeconds bounds the whole), 1 elsewhere, where a
# failure is seldom the node's and a retry repeats it.
SPOT_RETRIES, OTHER_RETRIES = 10, 1


def backoff_limit(v: Values) -> int:
    """job.backoffLimit, or (-1) the capacity's: SPOT_RETRIES when any group runs on Spot."""
    if v.job.backoff_limit >= 0:
        return v.job.backoff_limit
    return SPOT_RETRIES if any(capacity_of(g, v) == "spot" for g in v.worker_groups) else OTHER_RETRIES


def total_workers(v: Values) -> int:
    return sum(g.replicas for g in v.worker_groups)
