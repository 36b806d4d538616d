"""constructs/assembly.py: the objects of one rendering, in the order they are written, with the
labels every object carries and the keys the chart names them by."""

from __future__ import annotations

import re
from types import SimpleNamespace
from typing import Any

import pytest

from verl_grpo import __version__
from verl_grpo.constructs.assembly import TOP_LABEL_KEYS, objects_of, top_labels

from ...conftest import render_one

# Kubernetes label values: 63 characters at most, alphanumeric at both ends (apimachinery
# validation.IsValidLabelValue).
LABEL_VALUE = re.compile(r"(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?")


@pytest.fixture(scope="module")
def rendering():
    return render_one()


def test_top_labels_are_helms_standard_labels_with_valid_values(rendering) -> None:
    """Helm's recommended labels (helm.sh/docs/chart_best_practices/labels): the release as the
    instance, Helm as the manager, helm.sh/chart as <name>-<version>; every value a legal one."""
    labels = top_labels(rendering.spec)
    assert list(labels) == list(TOP_LABEL_KEYS)
    assert labels["app.kubernetes.io/instance"] == rendering.spec.release.name
    assert labels["app.kubernetes.io/managed-by"] == "Helm"
    assert labels["helm.sh/chart"] == f"{labels['app.kubernetes.io/name']}-{__version__}"
    for key, value in labels.items():
        assert len(value) <= 63 and LABEL_VALUE.fullmatch(value), key


def test_what_a_pod_uses_is_written_before_the_pod(rendering) -> None:
    """`kubectl apply -f` of the folder in its order never makes a pod before its service account,
    claims or ConfigMaps, and a claim's volume comes before the claim it is bound to."""
    order = {(o.manifest["kind"], o.manifest["metadata"]["name"]): i for i, o in enumerate(rendering.objects)}

    def pod_specs(m: dict[str, Any]) -> list[dict[str, Any]]:
        if m["kind"] == "Job":
            return [m["spec"]["template"]["spec"]]
        if m["kind"] == "RayJob":
            cluster = m["spec"]["rayClusterSpec"]
            groups = [cluster["headGroupSpec"], *cluster["workerGroupSpecs"]]
            return [g["template"]["spec"] for g in groups]
        return []

    checked = 0
    for i, obj in enumerate(rendering.objects):
        m = obj.manifest
        if m["kind"] == "PersistentVolumeClaim":
            assert order[("PersistentVolume", m["spec"]["volumeName"])] < i
        for pod in pod_specs(m):
            used = [("ServiceAccount", pod["serviceAccountName"])]
            for v in pod["volumes"]:
                if "persistentVolumeClaim" in v:
                    used.append(("PersistentVolumeClaim", v["persistentVolumeClaim"]["claimName"]))
                if "configMap" in v:
                    used.append(("ConfigMap", v["configMap"]["name"]))
            for ref in used:
                assert order[ref] < i, (m["kind"], ref)
                checked += 1
    assert checked >= 10  # the run's pods and the data-prep Job were all looked at


def test_object_keys_are_unique_and_do_not_follow_the_values(rendering) -> None:
    """The chart names each object's template by its key: a change of values (a new run name, more
    workers) renames the RayJob but keeps every key."""
    keys = [o.key for o in rendering.objects]
    assert len(set(keys)) == len(keys)
    changed = render_one("run.name=exp-2", "workerGroups.gpu-group.replicas=4")
    assert [o.key for o in changed.objects] == keys
    names = {o.key: o.manifest["metadata"]["name"] for o in changed.objects}
    assert names != {o.key: o.manifest["metadata"]["name"] for o in rendering.objects}


def part(keys: list[tuple[str, str]], **recorded: dict[str, Any]) -> SimpleNamespace:
    return SimpleNamespace(
        object_keys=keys,
        includes=recorded.get("includes", {}),
        conditions=recorded.get("conditions", {}),
        ranges=recorded.get("ranges", {}),
    )


def test_objects_of_pairs_manifests_with_what_their_constructs_recorded() -> None:
    """Each manifest gets the key, condition, count and includes its construct recorded for it, across
    parts."""
    parts = [
        part([("a-sa", "ServiceAccount")], conditions={"a-sa": "cond"}),
        part(
            [("b-cm", "ConfigMap"), ("b-job", "Job")],
            includes={"b-job": {"spec": "t.spec"}},
            ranges={"b-cm": "n"},
        ),
    ]
    manifests = [{"kind": "ServiceAccount"}, {"kind": "ConfigMap"}, {"kind": "Job"}]
    sa, cm, job = objects_of(parts, manifests)  # type: ignore[arg-type]
    assert (sa.key, sa.condition, sa.count, sa.includes) == ("a-sa", "cond", None, {})
    assert (cm.key, cm.condition, cm.count) == ("b-cm", None, "n")
    assert (job.key, job.includes, job.manifest) == ("b-job", {"spec": "t.spec"}, {"kind": "Job"})


@pytest.mark.parametrize(
    "kinds", [["ConfigMap", "ServiceAccount"], ["ServiceAccount"], ["ServiceAccount", "ConfigMap", "Job"]]
)
def test_objects_of_refuses_manifests_that_do_not_match_the_recorded_order(kinds: list[str]) -> None:
    """A manifest out of place would carry another object's key, condition and includes."""
    parts = [part([("a-sa", "ServiceAccount"), ("a-cm", "ConfigMap")])]
    with pytest.raises(AssertionError, match="object order changed"):
        objects_of(parts, [{"kind": k} for k in kinds])  # type: ignore[arg-type]
