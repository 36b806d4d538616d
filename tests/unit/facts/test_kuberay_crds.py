"""facts/kuberay_crds.py: which KubeRay release a cluster's ray.io CRDs belong to."""

from __future__ import annotations

import re
from typing import Any

from verl_grpo.facts.kuberay import VERSION_PATTERN
from verl_grpo.facts.kuberay_crds import fields_of, mismatch, own_fields, release_fields

KINDS = {"rayclusters": "RayCluster", "rayjobs": "RayJob"}


def crds(
    fields: frozenset[str] | set[str], group: str = "ray.io", version: str = "v1"
) -> list[dict[str, Any]]:
    """CustomResourceDefinitions whose `spec` schemas hold exactly `fields` (plural.spec.a[.b])."""
    docs = []
    for plural, kind in KINDS.items():
        spec: dict[str, Any] = {"type": "object", "properties": {}}
        for path in sorted(f for f in fields if f.startswith(f"{plural}.spec.")):
            node = spec
            for key in path.split(".")[2:]:
                node = node.setdefault("properties", {}).setdefault(key, {"type": "object"})
        schema = {"openAPIV3Schema": {"type": "object", "properties": {"spec": spec}}}
        docs.append(
            {
                "apiVersion": "apiextensions.k8s.io/v1",
                "kind": "CustomResourceDefinition",
                "metadata": {"name": f"{plural}.{group}"},
                "spec": {
                    "group": group,
                    "names": {"kind": kind},
                    "versions": [{"name": version, "schema": schema}],
                },
            }
        )
    return docs


def test_own_fields_reads_back_each_release_s_fields() -> None:
    """Round trip: CRDs made from a release's fields are read as exactly those fields."""
    for version in ("1.4.0", "1.5.1", "1.7.0"):
        assert own_fields(crds(fields_of(version))) == fields_of(version)


def test_own_fields_stops_two_levels_below_spec_and_skips_other_crds() -> None:
    """Deeper levels are Kubernetes' own types; other groups, other versions and other documents
    say nothing about KubeRay."""
    deep = crds({"rayjobs.spec.a.b.c.d"})
    assert own_fields(deep) == {"rayjobs.spec.a", "rayjobs.spec.a.b"}
    assert own_fields(crds({"rayjobs.spec.a"}, group="example.com")) == frozenset()
    assert own_fields(crds({"rayjobs.spec.a"}, version="v1alpha1")) == frozenset()
    assert own_fields([None, "text", {"kind": "ConfigMap"}]) == frozenset()


def test_the_data_covers_every_supported_minor_and_newer_releases_add_fields() -> None:
    """data/kuberay-crd-fields.json: every release it names is one kuberay.version accepts, each
    minor from 1.4 to 1.7 is there, and authOptions arrived in 1.5.1 (the module's docstring)."""
    known = release_fields()
    assert all(re.match(VERSION_PATTERN, v) for v in known)
    assert {v.rsplit(".", 1)[0] for v in known} == {"1.4", "1.5", "1.6", "1.7"}
    assert "rayclusters.spec.authOptions" in known["1.5.1"]
    assert "rayclusters.spec.authOptions" not in known["1.5.0"]
    assert {"rayclusters.spec.networkPolicy", "rayclusters.spec.tlsOptions"} <= known["1.7.0"] - known[
        "1.6.0"
    ]


def test_a_patch_the_data_lacks_takes_the_newest_known_one_before_it() -> None:
    """1.5.9 is read as the newest 1.5 release the data knows (1.5.2, with 1.5.1's fields), not as
    1.5.0 nor as another minor."""
    assert "1.5.9" not in release_fields()
    assert fields_of("1.5.9") == release_fields()["1.5.2"] == release_fields()["1.5.1"]
    assert fields_of("1.5.9") != fields_of("1.5.0")


def test_crds_that_fit_the_version_or_its_minor_are_accepted() -> None:
    """Exactly the version's CRDs, or those of another patch of the same minor, fit."""
    assert mismatch(crds(fields_of("1.6.1")), "1.6.1") is None
    assert mismatch(crds(fields_of("1.6.0")), "1.6.2") is None


def test_missing_crds_older_crds_and_another_minor_s_crds_are_refused() -> None:
    """No CRDs: the Ray add-on is off. Older CRDs lack fields the chart renders. Newer ones that are
    exactly another minor's name that minor."""
    assert "no ray.io RayCluster/RayJob CRDs" in str(mismatch([], "1.6.1"))
    older = str(mismatch(crds(fields_of("1.5.1")), "1.6.1"))
    assert older.startswith("'1.6.1' but the cluster's KubeRay CRDs lack ") and "and more" in older
    assert "KubeRay 1.5.1, 1.5.2's" in older
    newer = str(mismatch(crds(fields_of("1.7.0")), "1.6.1"))
    assert newer == (
        "'1.6.1' but the cluster's KubeRay CRDs are 1.7.0's: set kuberay.version to the cluster's operator"
    )
