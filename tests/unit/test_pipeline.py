"""pipeline.py: values layers -> checked spec -> objects -> validated, for every verb."""

from __future__ import annotations

from pathlib import Path

import pytest

from verl_grpo.output.dist import dist_layer
from verl_grpo.pipeline import DEFAULT_RELEASE, Request, load_spec, synthesize
from verl_grpo.problems import RULES, VALUES, Problems
from verl_grpo.profiles import find_profile
from verl_grpo.values.derive import Release


def b200() -> dict:
    profile = find_profile("b200-standard")
    assert profile is not None
    return dist_layer(profile)


def test_layers_apply_in_helm_s_order(tmp_path: Path) -> None:
    """Defaults, then the profile, then -f files in order, then --set: the last one wins."""
    first, second = tmp_path / "first.yaml", tmp_path / "second.yaml"
    first.write_text("kuberay:\n  version: 1.5.1\nrun:\n  name: from-file\n")
    second.write_text("kuberay:\n  version: 1.7.0\n")
    assert load_spec(b200()).values.kuberay.version == "1.6.1"
    spec = load_spec(b200(), [first, second])
    assert (spec.values.kuberay.version, spec.values.run.name) == ("1.7.0", "from-file")
    spec = load_spec(b200(), [first, second], ["kuberay.version=1.4.2"])
    assert (spec.values.kuberay.version, spec.release) == ("1.4.2", DEFAULT_RELEASE)


def test_every_problem_is_raised_at_once() -> None:
    """Two wrong values, two problems: the user fixes them in one go."""
    with pytest.raises(Problems) as refused:
        load_spec(b200(), sets=["gpu.type=nope", "image.digest=latest"])
    assert {(p.stage, p.key) for p in refused.value.problems} == {
        (VALUES, "gpu.type"),
        (VALUES, "image.digest"),
    }


def test_deploy_only_rules_apply_only_when_deploying() -> None:
    """The bucket has no default and a deploy needs one; verbs that only judge the run do not."""
    layer = find_profile("b200-standard").layer()  # no storage.bucket
    with pytest.raises(Problems) as refused:
        load_spec(layer)
    assert [(p.stage, p.key, p.rule) for p in refused.value.problems] == [
        (RULES, "storage.bucket", "bucket-named")
    ]
    assert load_spec(layer, deploying=False).values.storage.bucket == ""


def test_synthesize_checks_every_request_and_names_each_problem_s_request() -> None:
    """Nothing renders while any request is wrong, and each problem says which one it is from."""
    requests = [
        Request("ok", b200()),
        Request("bad-gpu", b200(), sets=("gpu.type=nope",)),
        Request("bad-capacity", b200(), sets=("cluster.capacity=reservation",)),
    ]
    with pytest.raises(Problems) as refused:
        synthesize(requests)
    assert [(p.source, p.key) for p in refused.value.problems] == [
        ("bad-gpu", "gpu.type"),
        ("bad-capacity", "cluster.reservation"),
    ]


def test_synthesize_renders_each_request_under_its_own_release() -> None:
    """One app renders all requests; each keeps its spec, its release and its namespace. (They are
    validated together, as one cluster's objects: the second one takes its own bucket so that no
    two PersistentVolumes share a volume handle.)"""
    team_layer = {**b200(), "storage": {"bucket": "team-a-bucket"}}
    rendered = synthesize(
        [Request("default", b200()), Request("team", team_layer, release=Release("myrun", "team-a"))]
    )
    assert set(rendered) == {"default", "team"}
    team = rendered["team"]
    assert (
        team.spec.release == Release("myrun", "team-a")
        and rendered["default"].spec.release == DEFAULT_RELEASE
    )
    namespaced = [o.manifest["metadata"] for o in team.objects if "namespace" in o.manifest["metadata"]]
    assert namespaced and {m["namespace"] for m in namespaced} == {"team-a"}
    kinds = {o.manifest["kind"] for o in team.objects}
    assert {"RayJob", "NetworkPolicy", "ServiceAccount"} <= kinds
    (job,) = [o.manifest for o in team.objects if o.manifest["kind"] == "RayJob"]
    assert job["metadata"]["name"].startswith("myrun-")
