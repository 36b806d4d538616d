"""validate/crds.py: a CRD's schema made as strict as the API server is, and the CRDs the package
ships (data/crds.json.gz), replaced kind by kind by a cluster's own CRD folder."""

from __future__ import annotations

import gzip
import json
import re
from pathlib import Path

import jsonschema
import pytest

from verl_grpo.validate import crds


@pytest.fixture(autouse=True)
def empty_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))


SCHEMA = {
    "type": "object",
    "properties": {
        "spec": {
            "type": "object",
            "required": ["size"],
            "properties": {
                "size": {"type": "integer", "format": "int32", "default": 1},
                "note": {"type": "string", "nullable": True},
                "port": {"x-kubernetes-int-or-string": True},
                "labels": {"type": "object", "additionalProperties": {"type": "string"}},
                "raw": {"type": "object", "properties": {}, "x-kubernetes-preserve-unknown-fields": True},
                "mode": {"type": "string"},
            },
        }
    },
}


def check(body: dict) -> list[str]:
    validator = jsonschema.Draft202012Validator(crds.strict_schema(SCHEMA))
    return sorted(e.message for e in validator.iter_errors(crds.prepare(SCHEMA, body)))


def test_objects_are_closed_and_formats_become_what_the_api_server_checks() -> None:
    """A plain JSON-schema check would take `sise:` and 2**31; the API server refuses both."""
    assert (
        check({"spec": {"size": 2, "note": None, "port": "http", "labels": {"a": "b"}, "raw": {"x": 1}}})
        == []
    )
    assert check({"spec": {"port": 8080}}) == []  # int-or-string, and size defaulted before `required`
    assert check({"spec": {"sise": 2}}) == ["Additional properties are not allowed ('sise' was unexpected)"]
    assert check({"spec": {"size": 2**31}}) == ["2147483648 is greater than the maximum of 2147483647"]
    assert check({"spec": {"port": 1.5}}) != []


def test_prepare_drops_nulls_the_server_prunes_and_fills_defaults_without_touching_its_input() -> None:
    """The API server prunes nulls on non-nullable fields and defaults before it validates."""
    body = {"spec": {"mode": None, "note": None}}
    assert crds.prepare(SCHEMA, body) == {"spec": {"note": None, "size": 1}}
    assert body == {"spec": {"mode": None, "note": None}}


def test_a_go_pattern_with_a_late_flag_group_reads_the_same_in_python() -> None:
    """RE2 applies `^(?i)` from where it stands; Python 3.11 refuses a global flag past the start
    (Kueue v0.19.2's AdmissionCheck pattern is one)."""
    go = "^(?i)[a-z]+$"
    with pytest.raises(re.error):
        re.compile(go)
    assert re.match(crds.python_pattern(go), "AbC") and not re.match(crds.python_pattern(go), "a1")
    assert crds.python_pattern("^[a-z]+$") == "^[a-z]+$"
    assert crds.python_pattern("(?i)abc") == "(?i)abc"  # at the very start Python takes it as is


def test_duplicate_list_map_keys_set_items_and_failing_cel_rules_are_found() -> None:
    """What no JSON schema says: list-map keys and set items unique, CEL rules true."""
    schema = {
        "type": "object",
        "properties": {
            "env": {
                "type": "array",
                "x-kubernetes-list-type": "map",
                "x-kubernetes-list-map-keys": ["name"],
                "items": {"type": "object"},
            },
            "tags": {"type": "array", "x-kubernetes-list-type": "set", "items": {"type": "string"}},
            "replicas": {
                "type": "integer",
                "x-kubernetes-validations": [
                    {"rule": "self <= 10", "message": "at most 10"},
                    {"rule": "self >= oldSelf"},  # a transition rule: needs the stored object
                ],
            },
        },
    }
    body = {"env": [{"name": "A"}, {"name": "B"}, {"name": "A"}], "tags": ["x", "y", "x"], "replicas": 11}
    assert list(crds.list_and_cel_problems(schema, body)) == [
        ("env[2]", "crd-list-map-keys", "duplicate entry (name='A')"),
        ("tags", "crd-list-set", "duplicate items in a set-type list"),
        ("replicas", "crd-cel", "at most 10 (CEL: self <= 10)"),
    ]
    fine = {"env": [{"name": "A"}, {"name": "B"}], "tags": ["x"], "replicas": 10}
    assert list(crds.list_and_cel_problems(schema, fine)) == []


CRD = """apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: rayjobs.ray.io}
spec:
  group: ray.io
  scope: Namespaced
  names: {kind: RayJob}
  versions:
  - name: v1
    served: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec: {type: object, properties: {entrypoint: {type: string}}}
  - name: v0
    served: false
    schema: {openAPIV3Schema: {type: object}}
"""


def test_the_bundle_holds_the_kits_kinds_and_a_crd_folder_replaces_them(tmp_path: Path) -> None:
    """The package's CRDs; a folder's CRD replaces the bundle's kind, the others stay."""
    shipped = crds.load_crds([])
    assert {("ray.io/v1", "RayJob"), ("ray.io/v1", "RayCluster"), ("networking.gke.io/v1", "Network")} <= set(
        shipped
    )
    assert (
        shipped[("ray.io/v1", "RayJob")].namespaced
        and not shipped[("networking.gke.io/v1", "Network")].namespaced
    )
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / "rayjob.yaml").write_text(CRD)
    mine = crds.load_crds([tmp_path / "mine"])
    assert mine[("ray.io/v1", "RayJob")].strict["properties"]["spec"]["properties"] == {
        "entrypoint": {"type": "string"}
    }
    assert ("ray.io/v0", "RayJob") not in mine  # not served
    assert mine[("ray.io/v1", "RayCluster")].schema == shipped[("ray.io/v1", "RayCluster")].schema
    with pytest.raises(ValueError, match="no such directory"):
        crds.load_crds([tmp_path / "absent"])


def test_the_bundle_drops_descriptions_but_not_a_field_called_description(tmp_path: Path) -> None:
    """The bundle leaves out descriptions, never a property that is called description."""
    crd = CRD.replace("entrypoint: {type: string}", "description: {type: string, description: a text}")
    (tmp_path / "a.yaml").write_text(crd)
    made = crds.bundle([tmp_path])
    assert made == crds.bundle([tmp_path])  # stable bytes: no timestamp in the gzip header
    (row,) = json.loads(gzip.decompress(made))
    assert row["schema"]["properties"]["spec"]["properties"] == {"description": {"type": "string"}}
