"""Built-in kinds against the Kubernetes OpenAPI schema (kubernetes-validate's strict variant)."""

from __future__ import annotations

import json
import re
from functools import cache
from importlib import resources
from typing import Any

import jsonschema
from referencing import Registry, Resource

from . import DEFAULT_KUBE_VERSION  # noqa: F401 - re-exported: the validator's default


def _schema_dir(version: str) -> Any:
    return resources.files("kubernetes_validate") / "kubernetes-json-schema" / f"v{version}.0-local-strict"


def supported_versions() -> list[str]:
    base = resources.files("kubernetes_validate") / "kubernetes-json-schema"
    found = {m.group(1) for e in base.iterdir() if (m := re.match(r"^v(\d+\.\d+)\.0-local-strict$", e.name))}
    return sorted(found, key=lambda v: tuple(int(x) for x in v.split(".")))


# resource.Quantity as the API server parses it (apimachinery pkg/api/resource/quantity.go); the
# same pattern controller-gen writes for Quantity fields into CRDs (ray-operator config/crd/bases).
# kubernetes-validate's schema takes any string, so `storage: lots` would pass.
NUMBER = r"(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))"
QUANTITY = re.compile(rf"^(\+|-)?{NUMBER}(([KMGTPE]i)|[numkMGTPE]|([eE](\+|-)?{NUMBER}))?$")
QUANTITY_DEF = "io.k8s.apimachinery.pkg.api.resource.Quantity"
FORMATS = jsonschema.FormatChecker(formats=())


@FORMATS.checks("kubernetes-quantity")
def is_quantity(value: object) -> bool:
    return not isinstance(value, str) or bool(QUANTITY.match(value))


@cache
def _registry(version: str) -> Registry:
    defs = json.loads((_schema_dir(version) / "_definitions.json").read_text())
    defs["$defs"][QUANTITY_DEF] = {"type": ["string", "number", "null"], "format": "kubernetes-quantity"}
    for name, fields in enums().items():
        for field, allowed in fields.items():
            node = defs["$defs"].get(name, {}).get("properties", {}).get(field)
            if node is not None:
                node["enum"] = [*allowed, None]  # null: dropped as the API server drops it
    return Resource.from_contents(defs) @ Registry()


@cache
def enums() -> dict[str, dict[str, list[str]]]:
    """Enum fields of the built-in kinds, from Kubernetes' generated OpenAPI (kubernetes-validate's
    schemas leave them out): data/kubernetes-enums.json, written by tools/extract_k8s_enums.py."""
    text = (resources.files("verl_grpo") / "data" / "kubernetes-enums.json").read_text()
    return json.loads(text)["enums"]


@cache
def validator_for(version: str, api_version: str, kind: str) -> jsonschema.protocols.Validator | None:
    """None when the Kubernetes version has no such built-in kind."""
    group_version = re.sub(r"^([^./]*)(?:\.[^/]*)?/", r"\1-", api_version)
    path = _schema_dir(version) / f"{kind.lower()}-{group_version}.json"
    if not path.is_file():
        return None
    schema = json.loads(path.read_text())
    return jsonschema.Draft202012Validator(schema, registry=_registry(version), format_checker=FORMATS)


@cache
def object_meta_validator(version: str) -> jsonschema.protocols.Validator:
    ref = {
        # The base URI that the schemas' "/api/..." references resolve against.
        "$id": "https://kubernetes.io/api/objectmeta",
        "$ref": "/api/_definitions.json#/$defs/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta",
    }
    return jsonschema.Draft202012Validator(ref, registry=_registry(version), format_checker=FORMATS)
