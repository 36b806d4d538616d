"""rules/cross_rules.py: the cross-field rules the CLI evaluates and the chart compiles into `fail`s.
Here the Python side alone: which rule fires on which values, and with what message (the tier test
tests/values/test_cross_rules.py holds helm to the same verdicts)."""

from __future__ import annotations

import re
from typing import Any

import pytest

from verl_grpo.rules.cross_rules import RULES, VALIDATE_VALUES, rule_templates, rules_template, violations
from verl_grpo.values.loader import deep_merge
from verl_grpo.values.model import Values


def values(changes: dict[str, Any] | None = None) -> dict[str, Any]:
    """The defaults with a bucket (which has none by design), then `changes`, as Helm merges maps."""
    base = Values().model_dump(by_alias=True, mode="json")
    merged = deep_merge(base, {"storage": {"bucket": "b-1"}, **(changes or {})})
    return Values.model_validate(merged).model_dump(by_alias=True, mode="json")  # a valid shape


def fired(changes: dict[str, Any] | None = None, release: str = "verl") -> list[tuple[str, str, str]]:
    return [(r.id, r.key, message) for r, message in violations(values(changes), release)]


def test_the_defaults_break_only_the_deploy_only_bucket_rule() -> None:
    """Bucket names are global, so there is no default bucket: deploying without one is refused,
    while `check` and `plan` (deploying=False) judge the run without it."""
    defaults = Values().model_dump(by_alias=True, mode="json")
    assert [(r.id, r.key, r.deploy_only) for r, _ in violations(defaults, "verl")] == [
        ("bucket-named", "storage.bucket", True)
    ]
    assert violations(defaults, "verl", deploying=False) == []
    assert fired() == []


@pytest.mark.parametrize(
    ("changes", "expected"),
    [
        (
            {"cluster": {"mode": "autopilot"}},
            ("zone-on-autopilot", "cluster.zone", "required on Autopilot"),
        ),
        (
            {"image": {"tag": "vllm011.latest"}},
            ("image-tag-pinned", "image.tag", "'vllm011.latest' is a floating tag"),
        ),
        (
            {"training": {"tensorParallelSize": 3}},
            ("tp-divides-node", "training.tensorParallelSize", "3 must divide the 8 GPUs of a node"),
        ),
        (
            {"storage": {"mountPath": "/tmp/data"}},
            ("mounts-disjoint", "storage.mountPath", "'/tmp/data' overlaps /tmp ('/tmp')"),
        ),
        (  # GSM8K's train split has 7473 rows: a larger batch trains 0 steps
            {"training": {"trainBatchSize": 7474, "ppoMiniBatchSize": 256}},
            ("batch-within-dataset", "training.trainBatchSize", "7474 exceeds the 7473 GSM8K training rows"),
        ),
        (
            {"job": {"shutdownAfterJobFinishes": False}},
            ("ttl-needs-shutdown", "job.ttlSecondsAfterFinished", "> 0 needs job.shutdownAfterJobFinishes"),
        ),
        (  # 5 x 100 = 500 prompts' responses over 2 nodes x 8 GPUs
            {"training": {"rolloutN": 5, "trainBatchSize": 100, "ppoMiniBatchSize": 64}},
            ("verl-batch-divisible", "training.trainBatchSize", "= 500 is not divisible by the 16 GPUs"),
        ),
        (  # a per-group rule names the group
            {"workerGroups": {"b": {"replicas": 2, "minReplicas": 3}}},
            ("group-replicas-in-bounds", "workerGroups.replicas", "group 'b': replicas 2 must lie within"),
        ),
        (
            {"ray": {"auth": "token"}},
            ("ray-auth-needs-ray", "ray.auth", "'token' needs Ray 2.52.0 or newer; ray.version is '2.49.2'"),
        ),
    ],
)
def test_a_rule_fires_on_values_that_break_it(changes, expected) -> None:
    """Each rule fires on the values that break it, under its id and key, with a message that names the
    values."""
    rule_id, key, text = expected
    found = [(i, k, m) for i, k, m in fired(changes) if i == rule_id]
    assert found and found[0][1] == key and text in found[0][2], fired(changes)


def test_a_b200_worker_may_request_up_to_what_gke_leaves_after_the_sidecars() -> None:
    """A4's 224 vCPUs less GKE's reservation (0.63) is 223.37; less DaemonSets and sidecars (4.40)
    the worker may have 218.97 CPUs: 218.5 fits, 219 does not, and the message says so. Each group
    is judged on its machine."""
    assert fired({"worker": {"cpu": "218.5"}}) == []
    ((rule_id, key, message),) = fired({"worker": {"cpu": "219"}})
    assert (rule_id, key) == ("worker-fits-node", "worker.cpu")
    assert "a4-highgpu-8g can allocate (223.37 CPUs); at most 218.97 CPUs" in message
    # A per-group rule: three groups on the one machine say it once.
    groups = {"gpu-group": {"replicas": 2}, "b": {"replicas": 1}, "c": {"replicas": 1}}  # 32 GPUs
    assert [i for i, _, _ in fired({"worker": {"cpu": "219"}, "workerGroups": groups})] == [
        "worker-fits-node"
    ]


def test_names_must_fit_kuberays_limits() -> None:
    """KubeRay takes RayJob names of at most 47 characters; the kit names it
    <release>-<run.name>-<8 hex digits>, so with release 'verl' run.name may have 33."""
    assert fired({"run": {"name": "a" * 33}}) == []  # 4 + 1 + 33 + 9 = 47
    ((rule_id, _, message),) = fired({"run": {"name": "a" * 34}})
    assert rule_id == "rayjob-name-length" and "is 48 characters; KubeRay allows 47" in message
    assert fired({"run": {"kind": "RayCluster", "name": "a" * 36}}) == []  # no RayJob, no limit
    # The release name: DNS-1035, at most 30 characters (a RayCluster's name adds '-<gpu type>').
    short_run = {"run": {"name": "r"}}
    assert fired(short_run, release="r" * 30) == []
    for bad in ("r" * 31, "Verl", "1verl", "verl-"):
        assert "release-name" in [i for i, _, _ in fired(short_run, release=bad)], bad


def test_verls_batch_rules_step_aside_when_extra_args_set_what_they_read() -> None:
    """An extra Hydra override of a key the rules read leaves the judgement to the CLI's verl check."""
    broken = {"training": {"rolloutN": 5, "trainBatchSize": 100, "ppoMiniBatchSize": 64}}
    assert "verl-batch-divisible" in [i for i, _, _ in fired(broken)]
    overridden = deep_merge(broken, {"training": {"extraArgs": ["+trainer.nnodes=3"]}})
    assert not [i for i, _, _ in fired(overridden) if i.startswith("verl-")]
    unrelated = deep_merge(broken, {"training": {"extraArgs": ["trainer.total_epochs=3"]}})
    assert "verl-batch-divisible" in [i for i, _, _ in fired(unrelated)]


def test_every_rule_becomes_a_uniquely_named_template_that_validate_values_includes() -> None:
    """The chart has a named template per rule (numbered where one id has several) and validateValues includes
    each."""
    names = rule_templates()
    assert len(names) == len(RULES) == len(set(names))
    assert "verl-grpo.rule.mounts-disjoint" in names and "verl-grpo.rule.mounts-disjoint.2" in names
    text = rules_template()
    assert f'{{{{- define "{VALIDATE_VALUES}" }}}}' in text
    for name in names:
        assert f'{{{{- define "{name}" }}}}' in text and f'include "{name}" .' in text
    # A message is the key, the text and the rule id, as the CLI prints it.
    zone = next(r for r in RULES if r.id == "zone-on-autopilot")
    assert re.fullmatch(r'\(print "cluster\.zone: " ("[^"]*" )+" \[zone-on-autopilot\]"\)', zone.go_message())
