"""validate/operator_rules.py: what the KubeRay operator and GKE refuse or never schedule although
every schema accepts it, on small hand-written objects."""

from __future__ import annotations

import json

import pytest

from verl_grpo.validate import operator_rules as rules


def job(**spec: object) -> dict:
    """A RayJob with one head and one worker group of 8 GPUs on A3 Ultra (H200) nodes."""
    worker = {
        "groupName": "gpu",
        "replicas": 2,
        "minReplicas": 2,
        "maxReplicas": 2,
        "rayStartParams": {},
        "template": {
            "spec": {
                "nodeSelector": {"cloud.google.com/gke-accelerator": "nvidia-h200-141gb"},
                "containers": [
                    {
                        "name": "w",
                        "resources": {"requests": {"cpu": "200"}, "limits": {"nvidia.com/gpu": "8"}},
                    }
                ],
            }
        },
    }
    cluster = {
        "rayVersion": "2.49.2",
        "headGroupSpec": {"rayStartParams": {}, "template": {"spec": {"containers": [{"name": "h"}]}}},
        "workerGroupSpecs": [worker],
    }
    body = {"apiVersion": "ray.io/v1", "kind": "RayJob", "metadata": {"name": "verl"}}
    body["spec"] = {
        "entrypoint": "python3 run.py",
        "shutdownAfterJobFinishes": True,
        "rayClusterSpec": cluster,
    }
    body["spec"].update(spec)
    return body


def worker(body: dict) -> dict:
    return body["spec"]["rayClusterSpec"]["workerGroupSpecs"][0]


def found(body: dict, networks: set[str] | None = None) -> list[tuple[str, str, str]]:
    every = (
        rules.placeholder_rules(body),
        rules.ray_rules(body),
        rules.interface_rules(body, networks),
        rules.fit_rules(body),
        rules.entrypoint_rules(body),
        rules.capacity_rules(body),
    )
    return [(severity, path, rule) for rule_set in every for severity, path, rule, _ in rule_set]


def test_a_sound_job_passes_every_rule() -> None:
    """The base object of these tests breaks no rule: each finding below is the change's."""
    assert found(job()) == []


@pytest.mark.parametrize(
    ("name", "rule"),
    [
        ("a" * 47, None),  # KubeRay's limit for a RayJob (facts/kuberay.py NAME_MAX)
        ("a" * 48, "kuberay-name-length"),
        ("Verl", "kuberay-name-dns1035"),
        ("1verl", "kuberay-name-dns1035"),
        ("verl-", "kuberay-name-dns1035"),
    ],
)
def test_a_ray_jobs_name_is_a_short_dns_1035_label(name: str, rule: str | None) -> None:
    """KubeRay derives its cluster's and submitter's names from a RayJob's: DNS-1035, 47 at most."""
    body = job()
    body["metadata"]["name"] = name
    assert found(body) == ([("error", "metadata.name", rule)] if rule else [])


def test_the_operators_own_rules_on_a_job_and_its_groups() -> None:
    """KubeRay's own refusals: TTL without shutdown, an unknown submission mode, replicas out
    of bounds, non-string rayStartParams; a missing rayVersion is a warning."""
    ttl = job(ttlSecondsAfterFinished=60, shutdownAfterJobFinishes=False)
    assert found(ttl) == [("error", "spec.ttlSecondsAfterFinished", "kuberay-ttl-needs-shutdown")]
    assert found(job(submissionMode="K8sJob")) == [
        ("error", "spec.submissionMode", "kuberay-submission-mode")
    ]
    bounds = job()
    worker(bounds)["replicas"] = 3
    assert found(bounds) == [
        ("error", "spec.rayClusterSpec.workerGroupSpecs[0].replicas", "kuberay-replica-bounds")
    ]
    number = job()
    number["spec"]["rayClusterSpec"]["headGroupSpec"]["rayStartParams"]["num-cpus"] = 0
    assert found(number) == [
        ("error", "spec.rayClusterSpec.headGroupSpec.rayStartParams.num-cpus", "kuberay-start-params-strings")
    ]
    del number["spec"]["rayClusterSpec"]["rayVersion"], number["spec"]["rayClusterSpec"]["headGroupSpec"]
    assert found(number) == [("warning", "spec.rayClusterSpec.rayVersion", "kuberay-ray-version")]


@pytest.mark.parametrize(
    ("entrypoint", "rule"),
    [
        ("python3 -m verl.trainer.main_ppo actor_rollout_ref.rollout.tensor_model_parallel_size=4", None),
        (
            "python3 -m verl.trainer.main_ppo actor_rollout_ref.rollout.tensor_model_parallel_size=3",
            "tp-divides-node",
        ),
        ("python3 prep.py && python3 train.py", "kuberay-entrypoint-one-command"),
        ("python3 train.py > /tmp/log", "kuberay-entrypoint-one-command"),
    ],
)
def test_the_entrypoint_stays_one_command_and_its_tp_divides_a_workers_gpus(
    entrypoint: str, rule: str | None
) -> None:
    """The entrypoint is one command, and its rollout TP size divides a worker's GPUs."""
    assert found(job(entrypoint=entrypoint)) == ([("error", "spec.entrypoint", rule)] if rule else [])
    # Only K8sJobMode pastes the entrypoint into the submitter's bash line.
    assert list(rules.entrypoint_rules(job(entrypoint=entrypoint, submissionMode="HTTPMode"))) == []


def test_requests_must_fit_what_the_machine_can_allocate() -> None:
    """a3-ultragpu-8g has 224 vCPUs; GKE reserves 6% of the first core, 1% of the second, 0.5% of the
    next two and 0.25% of the rest: 0.63 of a core, 223.37 left for pods."""
    fits, over = job(), job()
    worker(fits)["template"]["spec"]["containers"][0]["resources"]["requests"]["cpu"] = "223"
    worker(over)["template"]["spec"]["containers"][0]["resources"]["requests"]["cpu"] = "223500m"
    assert found(fits) == []
    (problem,) = rules.fit_rules(over)
    assert problem[1:3] == ("spec.rayClusterSpec.workerGroupSpecs[0].template.spec.containers", "node-fit")
    assert problem[3] == "cpu requests 223.500 exceed what a3-ultragpu-8g can allocate (223.37)"


def test_gke_interfaces_placeholders_and_capacity_selectors() -> None:
    """GKE's multi-network annotation, unsubstituted placeholders, and capacity selectors."""
    body = job()
    template = worker(body)["template"]
    interfaces = [
        {"interfaceName": "eth0", "network": "default"},
        {"interfaceName": "eth1", "network": "rdma-0"},
    ]
    template["metadata"] = {"annotations": {rules.INTERFACES: json.dumps(interfaces)}}
    assert found(body, {"rdma-0"}) == [] and found(body) == []  # no Network objects given: not checked
    annotation = f"spec.rayClusterSpec.workerGroupSpecs[0].template.metadata.annotations[{rules.INTERFACES}]"
    assert found(body, {"rdma-1"}) == [("error", annotation, "gke-interfaces-network")]
    template["metadata"]["annotations"][rules.INTERFACES] = "[{not json"
    assert found(body) == [("error", annotation, "gke-interfaces-json")]
    # ${VAR} left in a name is a missed substitution; in a command it may be the shell's.
    placeholder = job(entrypoint="echo ${HOME}")
    placeholder["metadata"]["name"] = "${RUN_NAME}"
    assert [f for f in found(placeholder) if f[2] == "placeholder"] == [
        ("error", "metadata.name", "placeholder")
    ]
    # The shipped dist/'s placeholder bucket, applied as it is, mounts no bucket (output/dist.py).
    shipped = {
        "kind": "PersistentVolume",
        "spec": {"csi": {"volumeHandle": "replace-me-with-your-bucket:model"}},
    }
    assert found(shipped) == [("error", "spec.csi.volumeHandle", "dist-placeholder")]
    assert found({"kind": "ConfigMap", "data": {"note": "replace-me-with-your-bucket"}}) == []  # free text
    # Spot and flex-start are two kinds of node: a pod asking both never schedules.
    selector = template["spec"]["nodeSelector"]
    selector.update({"cloud.google.com/gke-spot": "false", "cloud.google.com/gke-flex-start": "true"})
    del template["metadata"]
    assert found(body) == []
    selector["cloud.google.com/gke-spot"] = "true"
    path = "spec.rayClusterSpec.workerGroupSpecs[0].template.spec.nodeSelector"
    assert found(body) == [("error", path, "gke-capacity-selectors")]
