"""values/model.py: one typed tree whose YAML shape is Helm's values shape: camelCase keys, strict
types, unknown keys refused, and each field's bounds (Kubernetes', KubeRay's, verl's)."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import ValidationError

from verl_grpo.values.model import DEFAULT_GROUP, INT32_MAX, Sidecar, Values


def refused(values: dict[str, Any]) -> tuple[tuple[Any, ...], str]:
    """Where and why the model refuses `values` (its first error)."""
    with pytest.raises(ValidationError) as caught:
        Values.model_validate(values)
    first = caught.value.errors()[0]
    return first["loc"], first["type"]


def test_the_defaults_dump_in_helms_camel_case_and_load_back_equal() -> None:
    """The Python names are snake_case; the values, as Helm sees them, camelCase; dump and load round-trip."""
    dumped = Values().model_dump(by_alias=True, mode="json")
    assert {"serviceAccount", "workerGroups", "dataPrep", "networkPolicy"} <= set(dumped)
    assert "checkpointsToKeep" in dumped["training"] and "checkpoints_to_keep" not in dumped["training"]
    assert Values.model_validate(dumped) == Values()
    # One worker group, named as the chart's values.yaml names it, with two nodes.
    assert dumped["workerGroups"] == {
        DEFAULT_GROUP: {"replicas": 2, "minReplicas": 0, "maxReplicas": 0, "capacity": "", "machine": ""}
    }


def test_unknown_keys_loose_types_and_changes_after_loading_are_refused() -> None:
    """extra='forbid' catches a misspelt key, strict typing a quoted number, frozen a change after loading."""
    assert refused({"storage": {"buckett": "b-1"}}) == (("storage", "buckett"), "extra_forbidden")
    assert refused({"training": {"trainBatchSize": "256"}}) == (("training", "trainBatchSize"), "int_type")
    values = Values()
    with pytest.raises(ValidationError, match="frozen"):
        values.gpu.type = "h200"


@pytest.mark.parametrize(
    ("values", "key"),
    [
        ({"storage": {"bucket": "gs://my-bucket"}}, ("storage", "bucket")),  # a name, not a URL
        ({"storage": {"modelDir": "/models/x"}}, ("storage", "modelDir")),  # relative to the bucket
        ({"storage": {"dataDir": "data/.hidden"}}, ("storage", "dataDir")),
        ({"storage": {"mountPath": "data"}}, ("storage", "mountPath")),  # absolute
        ({"image": {"repository": "VerlAI/verl"}}, ("image", "repository")),  # lowercase only
        ({"worker": {"cpu": "1e3"}}, ("worker", "cpu")),  # not a Kubernetes quantity
        ({"worker": {"memory": "100GB"}}, ("worker", "memory")),
        ({"training": {"extraArgs": ["a=1\nb=2"]}}, ("training", "extraArgs", 0)),  # one line each
        ({"kuberay": {"version": "1.3.0"}}, ("kuberay", "version")),  # 1.4 to 1.7
    ],
)
def test_text_fields_refuse_what_kubernetes_gcs_or_the_shell_would_not_take(values, key) -> None:
    """Each pattern refuses a value that would fail later, in GCS, Kubernetes or the shell."""
    assert refused(values)[0] == key


def test_numeric_bounds_follow_kubernetes_int32_and_verls_checkpoint_retention() -> None:
    """Deadlines are int32 in Kubernetes; keeping 1 checkpoint lets a preemption during a save leave
    none complete, so at least 2 are kept."""
    Values.model_validate({"job": {"activeDeadlineSeconds": INT32_MAX}})
    assert refused({"job": {"activeDeadlineSeconds": 2**31}})[1] == "less_than_equal"
    assert refused({"training": {"checkpointsToKeep": 1}})[1] == "greater_than_equal"
    assert refused({"training": {"learningRate": 1.0}})[1] == "less_than"


def test_worker_group_names_are_dns_labels_short_enough_for_their_node_pool() -> None:
    """A group's pool is gpu-pool-<name> (GKE: 40 characters), so a name has at most 31."""
    Values.model_validate({"workerGroups": {"a" * 31: {"replicas": 1}}})
    assert refused({"workerGroups": {"a" * 32: {"replicas": 1}}})[1] == "string_too_long"
    assert refused({"workerGroups": {"Spot": {"replicas": 1}}})[1] == "string_pattern_mismatch"
    assert refused({"workerGroups": {"g": {}}}) == (("workerGroups", "g", "replicas"), "missing")
    assert refused({"workerGroups": {}})[1] == "too_short"


def test_the_sidecar_limits_describe_the_defaults_they_take_when_empty() -> None:
    """Unlimited ('0') on Standard; on Autopilot at most 2 CPUs and 14Gi (GCS FUSE CSI driver docs)."""
    cpu = Sidecar.model_fields["cpu_limit"].description
    memory = Sidecar.model_fields["memory_limit"].description
    assert "'0' (unlimited) on standard" in cpu and "2 on autopilot" in cpu
    assert "14Gi on autopilot" in memory
    assert "storage.fileCacheCapacity plus 5Gi" in Sidecar.model_fields["ephemeral_storage_limit"].description
