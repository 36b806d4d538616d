"""constructs/grpo_ray_job.py: the run as a RayJob, or for a long-lived RayCluster the ConfigMap
`ray job submit` reads; the same entrypoint either way, a hardened submitter, a spec-named RayJob."""

from __future__ import annotations

import hashlib
import json
from typing import Any

import pytest

from verl_grpo.constructs.grpo_ray_job import SUBMITTER_CONTAINER
from verl_grpo.facts.quantity import parse_quantity

from ...conftest import objects_of_kind, pods, render_one


@pytest.fixture(scope="module")
def ray_job():
    return render_one(profile="b200-standard")


@pytest.fixture(scope="module")
def ray_cluster():
    return render_one(profile="b200-standard-raycluster")


def submit_config(rendering) -> list[dict[str, Any]]:
    return [c for c in objects_of_kind(rendering, "ConfigMap") if c["metadata"]["name"].endswith("-submit")]


def test_each_run_kind_writes_one_way_to_run(ray_job, ray_cluster) -> None:
    """A RayJob profile writes the RayJob and no submit ConfigMap; a RayCluster profile the
    ConfigMap `<release>-submit` and no RayJob."""
    assert len(objects_of_kind(ray_job, "RayJob")) == 1 and submit_config(ray_job) == []
    assert objects_of_kind(ray_cluster, "RayJob") == []
    (config,) = submit_config(ray_cluster)
    assert config["metadata"]["name"] == f"{ray_cluster.spec.release.name}-submit"
    assert set(config["data"]) == {"entrypoint.sh", "runtime-env.yaml"}


def test_both_run_paths_run_the_same_command_with_the_same_environment(ray_job, ray_cluster) -> None:
    """The RayCluster path's `ray job submit` files hold exactly what the RayJob of the same profile runs."""
    (job,) = objects_of_kind(ray_job, "RayJob")
    (config,) = submit_config(ray_cluster)
    assert config["data"]["entrypoint.sh"] == job["spec"]["entrypoint"]
    assert config["data"]["runtime-env.yaml"] == job["spec"]["runtimeEnvYAML"]


def test_the_ray_job_name_ends_with_the_digest_helm_computes_of_its_spec(ray_job) -> None:
    """KubeRay never re-reads a RayJob's spec: the name is `<release>-<run.name>-` and the first 8
    hex digits of sha256 over the spec as Helm's toJson writes it (sorted keys, no spaces), so a
    changed spec is a new RayJob and Helm's chart names it the same way."""
    (job,) = objects_of_kind(ray_job, "RayJob")
    as_helm_json = json.dumps(job["spec"], sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    digest = hashlib.sha256(as_helm_json.encode()).hexdigest()[:8]
    v, release = ray_job.spec.values, ray_job.spec.release
    assert job["metadata"]["name"] == f"{release.name}-{v.run.name}-{digest}"


def test_the_submitter_is_hardened_and_let_through_only_by_the_release_policy(ray_job) -> None:
    """KubeRay's default submitter resources, the head's image, no API token nor account of ours,
    and the release's labels so that the NetworkPolicy admits it to the head's dashboard."""
    (job,) = objects_of_kind(ray_job, "RayJob")
    template = job["spec"]["submitterPodTemplate"]
    (policy,) = objects_of_kind(ray_job, "NetworkPolicy")
    assert policy["spec"]["podSelector"]["matchLabels"].items() <= template["metadata"]["labels"].items()
    spec = template["spec"]
    assert spec["automountServiceAccountToken"] is False and "serviceAccountName" not in spec
    assert spec["restartPolicy"] == "Never"
    (container,) = spec["containers"]
    assert container["name"] == SUBMITTER_CONTAINER
    head = dict(pods(ray_job))["head"]["spec"]["containers"][0]
    assert container["image"] == head["image"]
    assert container["securityContext"]["capabilities"] == {"drop": ["ALL"]}
    resources = container["resources"]
    for amount in ("cpu", "memory"):
        assert parse_quantity(resources["requests"][amount]) <= parse_quantity(resources["limits"][amount])


@pytest.mark.parametrize(("mode", "has_template"), [("K8sJobMode", True), ("HTTPMode", False)])
def test_only_the_k8s_job_mode_gets_a_submitter_pod(mode: str, has_template: bool) -> None:
    """HTTPMode submits from the operator itself: no pod, so no template (and SidecarMode's
    validation refuses one: KubeRay ValidateRayJobSpec)."""
    (job,) = objects_of_kind(render_one(f"job.submissionMode={mode}"), "RayJob")
    assert job["spec"]["submissionMode"] == mode
    assert ("submitterPodTemplate" in job["spec"]) is has_template


def test_every_subtree_the_chart_shares_exists_where_it_is_recorded(ray_job, ray_cluster) -> None:
    """The chart keeps the entrypoint, the runtime env and the cluster spec once, in named templates:
    each recorded path leads to a field of the object, and both run paths name the same templates."""
    shared: dict[str, set[str]] = {}
    for rendering in (ray_job, ray_cluster):
        for obj in rendering.objects:
            if not obj.key.startswith("job-"):
                continue
            for path, define in obj.includes.items():
                node: Any = obj.manifest
                for step in path.split("/"):
                    node = node[step]
                assert node, (obj.key, path)
                shared.setdefault(define, set()).add(obj.key)
    assert {"job-ray-job", "job-submit-config"} <= set().union(*shared.values())
    both = {define for define, keys in shared.items() if keys == {"job-ray-job", "job-submit-config"}}
    assert len(both) == 2  # the entrypoint and the runtime env
