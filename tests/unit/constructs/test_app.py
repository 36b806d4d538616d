"""constructs/app.py: one cdk8s app renders every chart, each chart only its own run."""

from __future__ import annotations

from verl_grpo.constructs.app import render
from verl_grpo.constructs.assembly import top_labels
from verl_grpo.output.dist import dist_layer
from verl_grpo.pipeline import load_spec
from verl_grpo.profiles import find_profile
from verl_grpo.values.derive import DeploySpec, Release


def spec(release: Release, profile: str = "b200-standard") -> DeploySpec:
    return load_spec(dist_layer(find_profile(profile)), release=release)


def test_each_chart_of_one_app_carries_only_its_own_release() -> None:
    """Two releases rendered in one app (one jsii start-up): each chart's objects carry its own
    release's labels and namespace, and nothing of the other chart's."""
    alpha, beta = Release("alpha", "team-a"), Release("beta", "team-b")
    rendered = render({"a": spec(alpha), "b": spec(beta, "h200-standard-raycluster")})
    assert set(rendered) == {"a", "b"}
    for chart, release, other in (("a", alpha, beta), ("b", beta, alpha)):
        assert rendered[chart], chart
        for obj in rendered[chart]:
            m = obj.manifest
            assert m["metadata"]["labels"]["app.kubernetes.io/instance"] == release.name, obj.key
            assert m["metadata"].get("namespace") in (None, release.namespace), obj.key
            assert other.namespace not in str(m), obj.key


def test_every_object_carries_the_charts_labels() -> None:
    """The chart's labels reach every object, beside the object's own (a RayJob's queue label)."""
    s = spec(Release("verl", "default"))
    (objects,) = render({"only": s}).values()
    for obj in objects:
        assert top_labels(s).items() <= obj.manifest["metadata"]["labels"].items(), obj.key


def test_the_chart_id_leaves_no_trace_in_the_objects() -> None:
    """Resource name hashes are off and the chart has no namespace: the same spec under two chart
    ids gives the same manifests, so dist/<profile> names never depend on the folder name."""
    s = spec(Release("verl", "default"))
    rendered = render({"first": s, "second-name": s})
    first = [o.manifest for o in rendered["first"]]
    assert first == [o.manifest for o in rendered["second-name"]]


def test_an_empty_request_renders_nothing() -> None:
    """No specs: no charts, and no error from an app with nothing in it."""
    assert render({}) == {}
