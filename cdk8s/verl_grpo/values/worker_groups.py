"""The GPU worker groups as each one's pods see the values: its capacity in place of
cluster.capacity, its machine in place of gpu.type, its node pool, its replica bounds.

workerGroups is a map keyed by group name; the groups come in the order of their names, the order
in which Go's templates range over a map (text/template: "If the value is a map and the keys are of
basic type with a defined order, the elements will be visited in sorted key order",
https://pkg.go.dev/text/template#hdr-Actions). The chart ranges over the same views, which its
helper `verl-grpo.workerGroups` (WORKER_GROUPS) computes; the parity tests hold the two equal.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from .decisions import Helper
from .model import DEFAULT_GROUP, Values, WorkerGroup

# The default group's pool keeps the name the single pool had (clusters made before groups keep
# theirs); every other group gets its own, named after it (scripts/30-gpu-pool.sh). By name, not
# by place: adding a group renames no pool.
GPU_NODE_POOL = "gpu-pool"
# The chart renders each group with this named template (Decisions.each_group), given the group's view.
WORKER_GROUP_TEMPLATE = "verl-grpo.workerGroup"
# group_views in Go: each group's fields, its capacity and machine (cluster.capacity and gpu.type
# unless it names its own), its pool and whether it is pinned to it; a JSON list.
WORKER_GROUPS = Helper(
    "verl-grpo.workerGroups",
    f"""
{{{{- $groups := list }}}}
{{{{- range $name, $g := .Values.workerGroups }}}}
{{{{- $groups = append $groups (dict
    "name" $name
    "replicas" $g.replicas
    "minReplicas" ($g.minReplicas | default $g.replicas)
    "maxReplicas" ($g.maxReplicas | default $g.replicas)
    "pool" (ternary "{GPU_NODE_POOL}" (printf "{GPU_NODE_POOL}-%s" $name) (eq $name "{DEFAULT_GROUP}"))
    "pinned" (gt (len $.Values.workerGroups) 1)
    "capacity" ($g.capacity | default $.Values.cluster.capacity)
    "machine" ($g.machine | default $.Values.gpu.type)) }}}}
{{{{- end }}}}
{{{{- toJson $groups }}}}""",
    "The worker groups as their pods see the values (values/worker_groups.py group_views).",
)

# A list of groups (the chart's shape before groups were keyed by name), and how to write it as a
# map: one line, from `verl-grpo` (as_map, before the schema) and from the chart's validateValues
# (LIST_TEMPLATE, in _rules.tpl), from these two parts.
LIST_MESSAGE = "a map keyed by group name, not a list: write workerGroups: "
LIST_HINT = " (a map merges with the chart's gpu-group: set gpu-group: null to drop it)"
AS_MAP = "verl-grpo.workerGroupsAsMap"
LIST_TEMPLATE = f"""{{{{- define "{AS_MAP}" }}}}
{{{{- $groups := dict }}}}
{{{{- range $i, $g := .Values.workerGroups }}}}
{{{{- $_ := set $groups (toString ($g.name | default (printf "group-%d" $i))) (omit $g "name") }}}}
{{{{- end }}}}
{{{{- printf "workerGroups: %s%s%s" {json.dumps(LIST_MESSAGE)} (toJson $groups) {json.dumps(LIST_HINT)} }}}}
{{{{- end }}}}"""


def as_map(groups: list[Any]) -> str:
    """The line that says how to write a list of groups as the map (LIST_TEMPLATE in Go: keys
    sorted, no spaces, as Go's encoding/json writes a map)."""
    by_name = {
        str(g.get("name") or f"group-{i}"): {k: v for k, v in g.items() if k != "name"}
        for i, g in enumerate(groups)
        if isinstance(g, dict)
    }
    return LIST_MESSAGE + json.dumps(by_name, sort_keys=True, separators=(",", ":")) + LIST_HINT


def pool_name(name: str) -> str:
    return GPU_NODE_POOL if name == DEFAULT_GROUP else f"{GPU_NODE_POOL}-{name}"


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


def groups(v: Values) -> list[tuple[str, WorkerGroup]]:
    """The groups by name, in the order the chart ranges over them (sorted)."""
    return sorted(v.worker_groups.items())


def group_views(v: Values) -> list[GroupView]:
    pinned = len(v.worker_groups) > 1
    return [
        GroupView(
            name=name,
            replicas=g.replicas,
            min_replicas=g.min_replicas or g.replicas,
            max_replicas=g.max_replicas or g.replicas,
            pool=pool_name(name),
            pinned=pinned,
            values=v.model_copy(
                update={
                    "cluster": v.cluster.model_copy(update={"capacity": capacity_of(g, v)}),
                    "gpu": v.gpu.model_copy(update={"type": machine_of(g, v)}),
                }
            ),
        )
        for name, g in groups(v)
    ]


def one_capacity(v: Values) -> bool:
    """No group names a capacity other than cluster.capacity (expressions.OneCapacity, in the
    rules' terms)."""
    return all(capacity_of(g, v) == v.cluster.capacity for g in v.worker_groups.values())


def machines(v: Values) -> list[str]:
    """The GPU types of the groups' nodes, each once, in group order."""
    return list(dict.fromkeys(machine_of(g, v) for _, g in groups(v)))


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
    spot = any(capacity_of(g, v) == "spot" for g in v.worker_groups.values())
    return SPOT_RETRIES if spot else OTHER_RETRIES


def total_workers(v: Values) -> int:
    return sum(g.replicas for g in v.worker_groups.values())
