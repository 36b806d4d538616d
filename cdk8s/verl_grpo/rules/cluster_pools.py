"""The GPU pools the scripts made, recorded in the cluster, against the pools a release's workers
select (rule pool-matches-workers).

GKE's node pools are not Kubernetes objects, and a pool at 0 nodes (every pool the scripts make
scales from 0) has no Node to look at either. So scripts/40-rdma.sh records each GPU pool made for
the values in one ConfigMap of kube-public, a key per pool: the profile it was made for and the
labels GKE gives its nodes (POOL_RECORDS from `verl-grpo env`), with a Role that lets every
authenticated user read that one ConfigMap. Three paths read it: the chart's guard
(templates/_poolGuard.tpl, from NOTES.txt: `helm install` and `upgrade` against the cluster),
`verl-grpo check --cluster-pools` and doctor.sh (for kubectl apply of dist/ or a GitOps folder).
Each refuses a group whose workers select labels that no recorded pool's nodes carry: installed,
those workers wait Pending until the run's deadline (an overlay of another profile than up.sh's,
another capacity, another group name). Without the ConfigMap (a cluster made otherwise) nothing is
known and nothing is refused.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from ..constructs.scheduling import ARCH_LABEL, NODE_POOL_LABEL, worker_node_selector
from ..facts.capacity import CAPACITIES
from ..facts.machines import gpu_profiles
from ..facts.networks import DRANET_LABEL
from ..problems import RULES, Problem
from ..values.derive import DeploySpec, group_spec
from ..values.worker_groups import GroupView, group_views

RULE = "pool-matches-workers"
# kube-public: by convention readable by all (kubeadm's cluster-info lives there); the Role below
# makes it so for this one ConfigMap. Helm's lookup fails the release on any error but NotFound
# (pkg/engine/lookup_func.go@v4.1.4), so a release's author must be able to read it.
NAMESPACE = "kube-public"
RECORDS = "verl-grpo-pools"
GUARD = "verl-grpo.poolGuard"
# "Each node in the pool has a Kubernetes node label, cloud.google.com/gke-nodepool, which has the
# node pool's name" (https://cloud.google.com/kubernetes-engine/docs/concepts/node-pools); the
# accelerator label: "GKE attaches a unique node selector to GPU nodes"
# (https://cloud.google.com/kubernetes-engine/docs/how-to/gpus); kubernetes.io/arch on every node
# (https://kubernetes.io/docs/reference/labels-annotations-taints/#kubernetes-io-arch); the
# capacity's labels (facts/capacity.py) and DRANET's (facts/networks.py DRANET_POOL_FLAGS) as
# those sources give them.


def pool_labels(view: GroupView, dranet: bool) -> dict[str, str]:
    """The labels GKE gives every node of the pool 30-gpu-pool.sh makes for a group."""
    gpu = gpu_profiles()[view.values.gpu.type]
    capacity = CAPACITIES[view.values.cluster.capacity]
    return dict(
        sorted(
            {
                NODE_POOL_LABEL: view.pool,
                "cloud.google.com/gke-accelerator": gpu.accelerator,
                ARCH_LABEL: gpu.arch,
                **capacity.labels,
                **({DRANET_LABEL: "true"} if dranet else {}),
            }.items()
        )
    )


def _compact(value: object) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"))


def pool_records(spec: DeploySpec, profile: str) -> str:
    """One line per GPU pool (GPU_POOLS' order; none on Autopilot): the ConfigMap holding only that
    pool's key. 40-rdma.sh applies each server-side as a field manager of its own pool's, so a
    later up.sh for other groups adds its keys and rewrites only the pools it made."""
    v = spec.values
    if v.cluster.mode != "standard":
        return ""
    dranet = v.network.rdma == "dranet"
    return "\n".join(
        _compact(
            {
                "apiVersion": "v1",
                "kind": "ConfigMap",
                "metadata": {"name": RECORDS, "namespace": NAMESPACE},
                "data": {view.pool: _compact({"profile": profile, "labels": pool_labels(view, dranet)})},
            }
        )
        for view in group_views(v)
    )


def records_access() -> str:
    """Read access to the records for every authenticated user (the Role names the one ConfigMap:
    RBAC grants get by resourceNames, https://kubernetes.io/docs/reference/access-authn-authz/rbac/
    "Referring to resources"), as one line: a List, which kubectl apply takes as its items."""
    meta = {"name": RECORDS, "namespace": NAMESPACE}
    rbac = "rbac.authorization.k8s.io"
    role = {
        "apiVersion": f"{rbac}/v1",
        "kind": "Role",
        "metadata": meta,
        "rules": [
            {"apiGroups": [""], "resources": ["configmaps"], "resourceNames": [RECORDS], "verbs": ["get"]}
        ],
    }
    binding = {
        "apiVersion": f"{rbac}/v1",
        "kind": "RoleBinding",
        "metadata": meta,
        "roleRef": {"apiGroup": rbac, "kind": "Role", "name": RECORDS},
        "subjects": [{"apiGroup": rbac, "kind": "Group", "name": "system:authenticated"}],
    }
    return _compact({"apiVersion": "v1", "kind": "List", "items": [role, binding]})


def worker_selectors(spec: DeploySpec) -> dict[str, dict[str, str]]:
    """Each group's workers' node selector, as the rendered worker group carries it (its machine's
    and capacity's labels, and its pool's when several groups each select their own)."""
    return {
        view.name: {k: str(v) for k, v in worker_node_selector(group_spec(spec, view.values), view).items()}
        for view in group_views(spec.values)
    }


# The line, in three fixed parts around the selector's labels and the recorded pools: pool_problems
# and the chart's guard (POOL_GUARD) print the same.
SELECTS = "its workers select "
NO_POOL = ", which no GPU pool of this cluster gives (the pools scripts/up.sh made: "
WHAT_TO_DO = (
    "): its workers would stay Pending until the deadline. Install with the overlay of the profile the "
    "cluster was made for (overlays/<profile>/values.yaml), or make this group's pool first: "
    "scripts/30-gpu-pool.sh and scripts/40-rdma.sh with these values"
)
MADE = "{pool} for profile {profile}"


def message(selector: Mapping[str, str], pools: list[tuple[str, str]]) -> str:
    wanted = ", ".join(f"{k}={selector[k]}" for k in sorted(selector))
    made = ", ".join(MADE.format(pool=pool, profile=profile) for pool, profile in pools)
    return f"{SELECTS}{wanted}{NO_POOL}{made}{WHAT_TO_DO}"


def records_of(config_map: Mapping[str, Any]) -> list[tuple[str, str, dict[str, str]]]:
    """(pool, profile, node labels) of each key of the records' ConfigMap, by pool name."""
    entries = {pool: json.loads(text) for pool, text in (config_map.get("data") or {}).items()}
    return [(pool, e["profile"], e["labels"]) for pool, e in sorted(entries.items())]


def pool_problems(spec: DeploySpec, records: list[tuple[str, str, dict[str, str]]]) -> list[Problem]:
    if spec.values.cluster.mode != "standard" or not records:
        return []
    pools = [(pool, profile) for pool, profile, _ in records]
    return [
        Problem("error", RULES, f"workerGroups.{group}", message(selector, pools), rule=RULE)
        for group, selector in worker_selectors(spec).items()
        if not any(all(labels.get(k) == val for k, val in selector.items()) for _, _, labels in records)
    ]


# The chart's twin of pool_problems: the records by lookup (empty under `helm template` and client
# dry-runs, which see no cluster: nothing refused; a map ranges in key order, as records_of
# sorts), each group's selector from the template its workers render with, the same message.
POOL_GUARD = f"""{{{{- /* Rule {RULE} (rules/cluster_pools.py): each worker group's selector matches the
labels of a GPU pool the scripts recorded in {NAMESPACE}/{RECORDS}. */}}}}
{{{{- define "{GUARD}" }}}}
{{{{- if eq .Values.cluster.mode "standard" }}}}
{{{{- $records := dict }}}}
{{{{- range $pool, $text := (lookup "v1" "ConfigMap" "{NAMESPACE}" "{RECORDS}").data }}}}
{{{{- $_ := set $records $pool ($text | fromJson) }}}}
{{{{- end }}}}
{{{{- if $records }}}}
{{{{- $made := list }}}}
{{{{- range $pool, $record := $records }}}}
{{{{- $made = append $made
    (printf {json.dumps(MADE.format(pool="%s", profile="%s"))} $pool $record.profile) }}}}
{{{{- end }}}}
{{{{- range $group := include "verl-grpo.workerGroups" . | fromJsonArray }}}}
{{{{- $selector := include "verl-grpo.gpuNodeSelector"
    (dict "Values" $.Values "Release" $.Release "group" $group) | fromYaml }}}}
{{{{- $found := false }}}}
{{{{- range $records }}}}
{{{{- $labels := .labels }}}}
{{{{- $all := true }}}}
{{{{- range $key, $value := $selector }}}}
{{{{- if ne (toString (get $labels $key)) (toString $value) }}}}{{{{ $all = false }}}}{{{{ end }}}}
{{{{- end }}}}
{{{{- if $all }}}}{{{{ $found = true }}}}{{{{ end }}}}
{{{{- end }}}}
{{{{- if not $found }}}}
{{{{- $wanted := list }}}}
{{{{- range $key := keys $selector | sortAlpha }}}}
{{{{- $wanted = append $wanted (printf "%s=%s" $key (toString (get $selector $key))) }}}}
{{{{- end }}}}
{{{{- fail (printf "workerGroups.%s: %s%s%s%s%s [{RULE}]" $group.name
    {json.dumps(SELECTS)} (join ", " $wanted)
    {json.dumps(NO_POOL)} (join ", " $made)
    {json.dumps(WHAT_TO_DO)}) }}}}
{{{{- end }}}}
{{{{- end }}}}
{{{{- end }}}}
{{{{- end }}}}
{{{{- end }}}}
"""
