"""Which KubeRay release a cluster's ray.io CRDs belong to, against `kuberay.version`.

GKE's Ray add-on installs the operator and its CRDs and says nowhere which KubeRay it runs; the
CRDs carry no version either. Their fields do: each release's RayCluster and RayJob schemas
(ray-operator/config/crd/bases at each tag) differ in KubeRay's own fields, `spec` and two levels
below it (1.5.1 adds authOptions, 1.6.0 preRunningDeadlineSeconds and authOptions.secretName,
1.7.0 networkPolicy and tlsOptions, ...). data/kuberay-crd-fields.json holds those fields per
release, written by tools/kuberay_crd_fields.py; the control-plane tier checks them against the
CRDs of the operators it builds.
"""

from __future__ import annotations

import json
from functools import cache
from importlib import resources
from typing import Any

KINDS = {"RayCluster": "rayclusters", "RayJob": "rayjobs"}
DEPTH = 2  # levels below `spec`: deeper ones are Kubernetes' own types (pod templates, env, ...)


def _paths(schema: dict[str, Any], prefix: str, depth: int) -> set[str]:
    if depth == 0:
        return set()
    out = set()
    for key, sub in (schema.get("properties") or {}).items():
        out |= {f"{prefix}.{key}", *_paths(sub, f"{prefix}.{key}", depth - 1)}
    return out


def own_fields(docs: list[Any]) -> frozenset[str]:
    """The RayCluster and RayJob fields (v1) of the CustomResourceDefinitions among `docs`."""
    found: set[str] = set()
    for doc in docs:
        if not isinstance(doc, dict) or doc.get("kind") != "CustomResourceDefinition":
            continue
        spec = doc.get("spec", {})
        plural = KINDS.get(spec.get("names", {}).get("kind", ""))
        if spec.get("group") != "ray.io" or plural is None:
            continue
        for version in spec.get("versions", []):
            if version.get("name") == "v1":
                schema = version.get("schema", {}).get("openAPIV3Schema", {})
                found |= _paths(schema.get("properties", {}).get("spec", {}), f"{plural}.spec", DEPTH)
    return frozenset(found)


@cache
def release_fields() -> dict[str, frozenset[str]]:
    """KubeRay version -> its own CRD fields (data/kuberay-crd-fields.json)."""
    data = json.loads((resources.files("verl_grpo") / "data" / "kuberay-crd-fields.json").read_text())
    return {version: frozenset(data["fields"][key]) for version, key in data["versions"].items()}


def _key(version: str) -> tuple[int, ...]:
    return tuple(int(p) for p in version.split("."))


def fields_of(version: str) -> frozenset[str]:
    """A release's fields; for a patch the data lacks, the newest known one before it in its minor."""
    known = release_fields()
    if version in known:
        return known[version]
    same_minor = [v for v in known if _key(v)[:2] == _key(version)[:2] and _key(v) <= _key(version)]
    return known[max(same_minor or known, key=_key)]


def mismatch(docs: list[Any], version: str) -> str | None:
    """Why the cluster's CRDs do not fit `kuberay.version`, or None.

    Refused: CRDs that lack fields the version has (the chart renders them for it and the API
    server would prune them), and CRDs that are exactly another minor's."""
    installed = own_fields(docs)
    if not installed:
        return "the cluster has no ray.io RayCluster/RayJob CRDs: enable GKE's Ray add-on (20-cluster.sh)"
    missing = sorted(fields_of(version) - installed)
    matches = sorted((v for v, f in release_fields().items() if f == installed), key=_key)
    if missing:
        which = f" (they are KubeRay {', '.join(matches)}'s)" if matches else ""
        return (
            f"'{version}' but the cluster's KubeRay CRDs lack {', '.join(missing[:3])}"
            f"{' and more' if len(missing) > 3 else ''}{which}: set kuberay.version to the cluster's operator"
        )
    minor = _key(version)[:2]
    if matches and all(_key(v)[:2] != minor for v in matches):
        return (
            f"'{version}' but the cluster's KubeRay CRDs are {', '.join(matches)}'s: "
            "set kuberay.version to the cluster's operator"
        )
    return None
