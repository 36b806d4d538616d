"""facts/kueue.py: the Kueue and GKE facts the run's scheduling uses."""

from __future__ import annotations

from verl_grpo.facts.kueue import (
    COVERING_QUOTAS,
    FLEX_START_MAX_SECONDS,
    KUEUE_API,
    PROVISIONING_CONTROLLER,
    QUEUE_LABEL,
    QUEUED_TOLERATION,
    TOPOLOGY_ANNOTATIONS,
)
from verl_grpo.facts.machines import gpu_profiles
from verl_grpo.facts.quantity import parse_quantity

from ...conftest import objects_of_kind, pods, render_one


def tolerates(toleration: dict[str, str], taint: dict[str, str]) -> bool:
    """Kubernetes' rule for an Equal toleration: same key, value and effect."""
    return (toleration["key"], toleration["value"], toleration["effect"]) == (
        taint["key"],
        taint["value"],
        taint["effect"],
    ) and toleration["operator"] == "Equal"


def test_a_flex_start_vm_runs_at_most_seven_days() -> None:
    """dws-flex-start-training: a flex-start VM runs at most 7 days."""
    assert FLEX_START_MAX_SECONDS == 604_800


def test_the_queued_toleration_tolerates_gke_s_queued_provisioning_taint_only() -> None:
    """Queued-provisioning nodes carry cloud.google.com/gke-queued=true:NoSchedule."""
    queued = {"key": "cloud.google.com/gke-queued", "value": "true", "effect": "NoSchedule"}
    assert tolerates(QUEUED_TOLERATION, queued)
    assert not tolerates(QUEUED_TOLERATION, {**queued, "effect": "NoExecute"})
    assert not tolerates(
        QUEUED_TOLERATION, {"key": "nvidia.com/gpu", "value": "present", "effect": "NoSchedule"}
    )


def test_every_kueue_name_is_in_kueue_s_api_group_at_v1beta2() -> None:
    """Objects are written in v1beta2 only; labels, annotations and the controller name share the group."""
    assert KUEUE_API == "kueue.x-k8s.io/v1beta2"
    group = KUEUE_API.split("/")[0]
    names = [QUEUE_LABEL, PROVISIONING_CONTROLLER, *TOPOLOGY_ANNOTATIONS.values()]
    assert all(name.startswith(f"{group}/") for name in names)
    assert set(TOPOLOGY_ANNOTATIONS) == {"required", "preferred"}


def test_the_covering_quotas_cover_a_hundred_of_the_largest_gpu_nodes() -> None:
    """Set beyond any pool, so that Kueue's BlockUndeclared check never refuses a run for CPU,
    memory or disk: they are valid quantities above what 100 of the largest machine have."""
    assert set(COVERING_QUOTAS) == {"cpu", "memory", "ephemeral-storage"}
    machines = gpu_profiles().values()
    assert parse_quantity(COVERING_QUOTAS["cpu"]) > 100 * max(m.vcpu for m in machines)
    assert parse_quantity(COVERING_QUOTAS["memory"]) > 100 * max(m.memory_gb for m in machines) * 10**9
    largest_disks = max(m.local_ssds for m in machines) * 375 * 2**30
    assert parse_quantity(COVERING_QUOTAS["ephemeral-storage"]) > 100 * largest_disks


def test_a_queued_rayjob_carries_the_label_shuts_down_and_is_not_suspended() -> None:
    """Kueue's webhook suspends a labelled RayJob itself and refuses one that keeps its cluster
    after the job (rayjob_webhook.go@v0.19.2): the kit renders the label, shutdown and no suspend."""
    (job,) = objects_of_kind(render_one("queue.enabled=true", "queue.localQueue=team-a"), "RayJob")
    assert job["metadata"]["labels"][QUEUE_LABEL] == "team-a"
    assert job["spec"]["shutdownAfterJobFinishes"] is True and "suspend" not in job["spec"]


def test_only_queued_flex_start_workers_tolerate_the_queued_taint() -> None:
    """Nodes of a queued-provisioning pool carry the taint; other workers need no toleration."""
    queued = dict(pods(render_one("queue.enabled=true", "cluster.capacity=flex-start")))["gpu-group"]
    plain = dict(pods(render_one("cluster.capacity=flex-start")))["gpu-group"]
    assert QUEUED_TOLERATION in queued["spec"]["tolerations"]
    assert QUEUED_TOLERATION not in plain["spec"].get("tolerations", [])
