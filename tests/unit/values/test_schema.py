"""values/schema.py: values.schema.json, the strict schema `verl-grpo synth` and `helm` share."""

from __future__ import annotations

import copy
import json
from typing import Any

import jsonschema

from verl_grpo.values.model import Values
from verl_grpo.values.schema import values_schema


def errors(values: dict[str, Any]) -> list[str]:
    validator = jsonschema.Draft7Validator(values_schema())
    return sorted(
        f"{'.'.join(map(str, e.absolute_path))}: {e.validator}" for e in validator.iter_errors(values)
    )


def defaults() -> dict[str, Any]:
    return copy.deepcopy(Values().model_dump(by_alias=True, mode="json"))


def test_the_schema_is_self_contained_draft_7_without_pydantics_extras() -> None:
    """Helm reads draft-07; no `$ref` into pydantic's `$defs`, no titles, no defaults (values.yaml
    holds those)."""
    schema = values_schema()
    assert schema["$schema"] == "http://json-schema.org/draft-07/schema#"
    jsonschema.Draft7Validator.check_schema(schema)
    text = json.dumps(schema)
    assert "$defs" not in text and "$ref" not in text and '"title"' not in text and '"default"' not in text


def test_the_defaults_pass_and_a_key_deleted_with_null_fails() -> None:
    """The chart's values.yaml has every key, so a key a user sets to null (Helm deletes it) must
    fail the schema rather than render "null"."""
    assert errors(defaults()) == []
    values = defaults()
    del values["storage"]["mountPath"]
    assert errors(values) == ["storage: required"]
    values = defaults()
    values["training"]["unknownKey"] = 1
    assert errors(values) == ["training: additionalProperties"]


def test_a_worker_group_needs_only_its_replicas() -> None:
    """Helm fills no defaults into a map entry the chart's values lack: the templates default
    minReplicas and the rest, so only replicas is required of a new group."""
    values = defaults()
    values["workerGroups"]["extra"] = {"replicas": 1}
    assert errors(values) == []
    values["workerGroups"]["extra"] = {"machine": "h200"}
    assert errors(values) == ["workerGroups.extra: required"]


def test_every_worker_group_name_is_checked_against_the_pattern() -> None:
    """pydantic writes the keys' pattern as patternProperties, which would leave a key that misses
    it unchecked: the schema says it of every key (propertyNames)."""
    values = defaults()
    values["workerGroups"]["Not_A_Label"] = {"replicas": 1}
    assert errors(values) == ["workerGroups: pattern"]  # the key's, under propertyNames


def test_umbrella_globals_and_the_old_list_of_groups_get_past_the_schema() -> None:
    """Helm copies an umbrella chart's `global` into a subchart's values; a list of worker groups is
    let through so that the chart's validateValues can say how to write it as a map."""
    values = defaults()
    values["global"] = {"anything": {"at": "all"}}
    values["workerGroups"] = [{"name": "a", "replicas": 2}]
    assert errors(values) == []


def test_pass_through_kubernetes_structs_keep_their_own_optional_fields() -> None:
    """Tolerations and NetworkPolicy peers are Kubernetes' own structs: their fields stay optional, unknown
    ones are refused."""
    values = defaults()
    values["worker"]["tolerations"] = [{"operator": "Exists"}]
    values["networkPolicy"]["dashboardSources"] = [{"ipBlock": {"cidr": "10.1.0.0/16"}}]
    assert errors(values) == []
    values["worker"]["tolerations"] = [{"operator": "Exists", "colour": "red"}]
    assert errors(values) == ["worker.tolerations.0: additionalProperties"]
