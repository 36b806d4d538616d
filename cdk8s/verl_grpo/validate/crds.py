"""Custom resources against their CRDs, made strict the way the API server really behaves.

A CRD's openAPIV3Schema closes no object, so plain JSON-schema validation accepts typos like
`replica:`. Here every object schema with `properties` and no `additionalProperties` or
`x-kubernetes-preserve-unknown-fields` is closed, nullable becomes a null type, int32/int64
formats become ranges, defaults are applied before `required` is checked, nulls on non-nullable
fields are dropped (the API server prunes them), list-map keys must be unique and CEL rules hold.
"""

from __future__ import annotations

import copy
import gzip
import json
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import jsonschema

from .. import cache as results_cache
from ..yaml_io import load_all
from .findings import dotted

INT_RANGES = {"int32": (-(2**31), 2**31 - 1), "int64": (-(2**63), 2**63 - 1)}
CACHE_KIND = "crds"


@dataclass
class CustomKind:
    group_version: str
    kind: str
    namespaced: bool
    schema: dict[str, Any]  # the original openAPIV3Schema (defaults, list types, CEL)
    strict: dict[str, Any]  # the closed JSON schema
    _validator: jsonschema.protocols.Validator | None = None

    @property
    def validator(self) -> jsonschema.protocols.Validator:
        if self._validator is None:
            self._validator = jsonschema.Draft202012Validator(self.strict)
        return self._validator


def strict_schema(node: Any) -> Any:
    if isinstance(node, list):
        return [strict_schema(n) for n in node]
    if not isinstance(node, dict):
        return node
    out = {
        k: strict_schema(v) for k, v in node.items() if not k.startswith("x-kubernetes-") and k != "nullable"
    }
    if (
        "properties" in node
        and "additionalProperties" not in node
        and not node.get("x-kubernetes-preserve-unknown-fields")
    ):
        out["additionalProperties"] = False
    if node.get("nullable") and "type" in node:
        out["type"] = [node["type"], "null"]
    if node.get("format") in INT_RANGES:
        low, high = INT_RANGES[node["format"]]
        out["minimum"] = max(node.get("minimum", low), low)
        out["maximum"] = min(node.get("maximum", high), high)
    if node.get("x-kubernetes-int-or-string") and "type" not in node and "anyOf" not in node:
        out["type"] = ["integer", "string"]
    if isinstance(node.get("pattern"), str):
        out["pattern"] = python_pattern(node["pattern"])
    return out


# A flag group past the start, `^(?i)[a-z]...` (Kueue's AdmissionCheck, v0.19.2): Go's RE2 applies
# it from there on; Python 3.11 takes global flags only first, and the scoped form `(?i:...)`.
_LATE_FLAGS = re.compile(r"^(\^?)\(\?([a-zA-Z]+)\)(.*)$", re.DOTALL)


def python_pattern(go: str) -> str:
    """A CRD's pattern (Go RE2 syntax) as Python's `re` reads it the same way."""
    m = _LATE_FLAGS.match(go)
    return f"{m[1]}(?{m[2]}:{m[3]})" if m and m[1] else go


def walk(schema: dict[str, Any], value: Any, path: tuple, visit: Callable[[dict, Any, tuple], None]) -> None:
    """Visit every (schema, value) pair the schema describes, parents before children."""
    visit(schema, value, path)
    if isinstance(value, dict):
        props = schema.get("properties", {})
        extra = schema.get("additionalProperties")
        for key, child in value.items():
            sub = props.get(key) if key in props else (extra if isinstance(extra, dict) else None)
            if sub is not None:
                walk(sub, child, (*path, key), visit)
    elif isinstance(value, list) and isinstance(schema.get("items"), dict):
        for i, child in enumerate(value):
            walk(schema["items"], child, (*path, i), visit)


def prepare(schema: dict[str, Any], body: dict[str, Any]) -> dict[str, Any]:
    """What the API server validates: nulls on non-nullable fields dropped, defaults applied."""
    obj = copy.deepcopy(body)

    def visit(node: dict, value: Any, _: tuple) -> None:
        if not isinstance(value, dict):
            return
        props = node.get("properties", {})
        for key in [k for k, v in value.items() if v is None and not props.get(k, {}).get("nullable")]:
            del value[key]
        for key, sub in props.items():
            if key not in value and "default" in sub:
                value[key] = copy.deepcopy(sub["default"])

    walk(schema, obj, (), visit)
    return obj


def list_and_cel_problems(schema: dict[str, Any], obj: dict[str, Any]) -> Iterator[tuple[str, str, str]]:
    """(path, rule, message) for duplicate list-map keys, duplicate set items and failing CEL rules."""
    problems: list[tuple[str, str, str]] = []

    def visit(node: dict, value: Any, path: tuple) -> None:
        if isinstance(value, list) and node.get("x-kubernetes-list-type") == "map":
            keys = node.get("x-kubernetes-list-map-keys", [])
            seen: set[tuple] = set()
            for i, item in enumerate(value):
                if not isinstance(item, dict):
                    continue
                key = tuple(json.dumps(item.get(k), sort_keys=True) for k in keys)
                if key in seen:
                    shown = ", ".join(f"{k}={item.get(k)!r}" for k in keys)
                    problems.append((dotted((*path, i)), "crd-list-map-keys", f"duplicate entry ({shown})"))
                seen.add(key)
        if isinstance(value, list) and node.get("x-kubernetes-list-type") == "set":
            dumped = [json.dumps(v, sort_keys=True) for v in value]
            if len(set(dumped)) != len(dumped):
                problems.append((dotted(path), "crd-list-set", "duplicate items in a set-type list"))
        for rule in node.get("x-kubernetes-validations", []):
            expr = rule.get("rule", "")
            if "oldSelf" in expr:
                continue  # transition rules need the stored object
            if not _cel(expr, value):
                problems.append((dotted(path), "crd-cel", f"{rule.get('message') or expr} (CEL: {expr})"))

    walk(schema, obj, (), visit)
    yield from problems


@cache
def _cel_program(expr: str) -> Any:
    # Building cel-python's parser costs ~0.1 s: only when an object reaches a CEL rule.

    env = _cel_environment()
    return env.program(env.compile(expr))


@cache
def _cel_environment() -> Any:
    import celpy

    return celpy.Environment()


def _cel(expr: str, value: Any) -> bool:
    import celpy

    return bool(_cel_program(expr).evaluate({"self": celpy.json_to_cel(value)}))


# The CRDs `validate` needs by default, inside the package so that it works outside this
# repository: the served versions' schemas of KubeRay's CRDs (ray-operator v1.6.2) and GKE's
# networking CRDs (gke-networking-api v0.2.11), both from their Go modules (tools/module_crds.py), of
# the Kueue kinds the kit writes (sigs.k8s.io/kueue v0.19.2, tools/kueue_crds.py) and NVIDIA's
# ComputeDomain (k8s-dra-driver-gpu v25.12.0, tools/pinned-crds/), descriptions dropped. A build
# product, not a second source: `make crd-bundle` writes it, and tests/validate/test_crds.py
# rebuilds it and requires the same bytes.
BUNDLE = Path(__file__).resolve().parents[1] / "data" / "crds.json.gz"
DROPPED_KEYS = {"description"}
VERBATIM_KEYS = {"default", "enum", "example"}  # values, not schemas


def load_crds(folders: list[Path]) -> dict[tuple[str, str], CustomKind]:
    """(apiVersion, kind) -> CustomKind: the package's bundle, then every served version of every
    CRD under `folders` (a kind there replaces the bundle's: your cluster's KubeRay version)."""
    bundled = BUNDLE.read_bytes()
    kinds = {
        (crd.group_version, crd.kind): crd
        for crd in _strict_rows(bundled, lambda: json.loads(gzip.decompress(bundled)))
    }
    for folder in folders:
        if not folder.is_dir():
            raise ValueError(f"--crds {folder}: no such directory")
        for path in sorted(folder.rglob("*.yaml")):
            raw = path.read_bytes()
            for crd in _strict_rows(raw, lambda raw=raw: served_versions(load_all(raw.decode()))):
                kinds[(crd.group_version, crd.kind)] = crd
    return kinds


def served_versions(docs: list[Any]) -> list[dict[str, Any]]:
    """One row per served version of each CustomResourceDefinition among `docs`."""
    rows = []
    for doc in docs:
        if not isinstance(doc, dict) or doc.get("kind") != "CustomResourceDefinition":
            continue
        spec = doc["spec"]
        for version in spec["versions"]:
            if not version.get("served", True):
                continue
            rows.append(
                {
                    "group_version": f"{spec['group']}/{version['name']}",
                    "kind": spec["names"]["kind"],
                    "namespaced": spec.get("scope", "Namespaced") == "Namespaced",
                    "schema": version.get("schema", {}).get("openAPIV3Schema", {}),
                }
            )
    return rows


def bundle(folders: list[Path]) -> bytes:
    """The package's CRD bundle from CRD folders: gzip of the rows, descriptions dropped, stable bytes."""
    rows = []
    for folder in folders:
        for path in sorted(folder.rglob("*.yaml")):
            rows += served_versions(load_all(path.read_text()))
    text = json.dumps(without_descriptions(rows), sort_keys=True, separators=(",", ":"))
    return gzip.compress(text.encode(), compresslevel=9, mtime=0)


def without_descriptions(node: Any) -> Any:
    if isinstance(node, list):
        return [without_descriptions(n) for n in node]
    if isinstance(node, dict):
        # `properties` maps field names, which may be called "description" themselves.
        return {
            k: {f: without_descriptions(s) for f, s in v.items()}
            if k == "properties"
            else v
            if k in VERBATIM_KEYS
            else without_descriptions(v)
            for k, v in node.items()
            if k not in DROPPED_KEYS
        }
    return node


def _strict_rows(raw: bytes, rows: Callable[[], list[dict[str, Any]]]) -> list[CustomKind]:
    """Parsing a 1 MB CRD costs far more than reading its strict form back: cached by its bytes."""
    out = results_cache.cached(
        CACHE_KIND, [raw], lambda: [{**row, "strict": strict_schema(row["schema"])} for row in rows()]
    )
    return [CustomKind(**row) for row in out]
