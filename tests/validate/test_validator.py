"""`verl-grpo validate`: strict schemas, operator rules, KubeRay's samples, a catalogue of defects."""

from __future__ import annotations

import copy
import functools
import json
import re
from collections.abc import Callable
from pathlib import Path

import pytest

from verl_grpo.cli import main
from verl_grpo.validate.documents import Document, read_documents
from verl_grpo.validate.validator import ManifestValidator

from ..conftest import DIST_VALUES, REPO
from ..helpers.module_files import gke_networking_crds, kuberay_crds, kuberay_samples

RAY_KINDS = {"RayCluster", "RayJob", "RayService", "RayCronJob"}


@pytest.fixture(scope="module")
def validator():
    return ManifestValidator(crd_dirs=[kuberay_crds(), gke_networking_crds()])


@functools.cache
def with_networks(profile: str) -> list[dict]:
    """dist/<profile>'s objects plus the Network objects scripts/40-rdma.sh applies beside them, with
    the values that are the user's of one's own (bucket, zone, reservation, multi-arch image):
    dist/'s placeholders are refused (dist-placeholder)."""
    from ..conftest import render_one
    from ..scripts_harness import MY_VALUES, profile_values

    files = [Path(f) for f in (str(MY_VALUES), *profile_values(profile)) if f != "-f"]
    return [
        o.manifest for o in render_one("network.createObjects=true", profile=profile, files=files).objects
    ]


def dist_object(profile: str, kind: str) -> dict:
    return copy.deepcopy(next(d for d in with_networks(profile) if d["kind"] == kind))


def errors(validator, *bodies: dict) -> list:
    docs = [Document(f"doc{i}", b) for i, b in enumerate(bodies)]
    return [f for f in validator.validate(docs) if f.severity == "error"]


def test_dist_is_valid_but_for_its_placeholders_which_validate_refuses(capsys, tmp_path):
    """The shipped dist/ names a placeholder bucket (on Autopilot zone, on A4X image): applied as it
    is, no pod mounts a bucket, so `validate` refuses exactly those; a folder rendered with a bucket is
    clean."""
    assert main(["validate", str(REPO / "dist"), "-o", "json"]) == 1
    findings = json.loads(capsys.readouterr().out)["findings"]
    assert {f["rule"] for f in findings} == {"dist-placeholder"}
    assert {f["key"].rsplit(".", 1)[-1] for f in findings} == {"volumeHandle", "image", "io/zone]"}
    mine, values = tmp_path / "mine", tmp_path / "my.yaml"
    values.write_text("storage: {bucket: my-training-bucket}\n")
    assert main(["synth", "--profile", "h200-standard", "-f", str(values), "-o", str(mine)]) == 0
    capsys.readouterr()
    assert main(["validate", str(mine)]) == 0
    assert "0 errors" in capsys.readouterr().err


def test_every_kuberay_sample_is_accepted(validator):
    docs = [
        d
        for d in read_documents([kuberay_samples()])
        if isinstance(d.body, dict) and d.body.get("kind") in RAY_KINDS
    ]
    assert len(docs) == 75  # the Ray objects of ray-operator@v1.6.2 config/samples/
    assert errors(validator, *[d.body for d in docs]) == []


def test_other_kinds_in_the_samples_are_reported_not_passed(validator):
    docs = read_documents([kuberay_samples()])
    unknown = {f.object.split("/")[0] for f in validator.validate(docs) if f.rule == "unknown-kind"}
    # the samples' other kinds at v1.6.2: Gateway API routes, Volcano's Queue, MetalLB's address pools
    assert unknown == {"Gateway", "GatewayClass", "HTTPRoute", "Queue", "IPAddressPool", "L2Advertisement"}


def _worker(job: dict) -> dict:
    return job["spec"]["rayClusterSpec"]["workerGroupSpecs"][0]


def _worker_pod(job: dict) -> dict:
    return _worker(job)["template"]["spec"]


# (id, base (profile, kind), mutation, rule, path fragment)
DEFECTS: list[tuple[str, tuple[str, str], Callable[[dict], None], str, str]] = [
    (
        "typo-in-ray-field",
        ("h200-standard", "RayJob"),
        lambda o: _worker(o).update(replica=3),
        "crd-schema",
        "workerGroupSpecs[0].replica",
    ),
    (
        "integer-node-selector",
        ("h200-autopilot", "RayJob"),
        lambda o: _worker_pod(o)["nodeSelector"].update({"cloud.google.com/gke-accelerator-count": 8}),
        "crd-schema",
        "nodeSelector[cloud.google.com/gke-accelerator-count]",
    ),
    (
        "int32-overflow",
        ("h200-standard", "RayJob"),
        lambda o: _worker(o).update(maxReplicas=2**31),
        "crd-schema",
        "workerGroupSpecs[0].maxReplicas",
    ),
    (
        "duplicate-container-name",
        ("h200-standard", "RayJob"),
        lambda o: _worker_pod(o)["containers"].append(copy.deepcopy(_worker_pod(o)["containers"][0])),
        "crd-list-map-keys",
        "containers[1]",
    ),
    (
        "duplicate-env-name",
        ("h200-standard", "RayJob"),
        lambda o: _worker_pod(o)["containers"][0].update(
            env=[{"name": "A", "value": "x"}, {"name": "A", "value": "y"}]
        ),
        "crd-list-map-keys",
        "env[1]",
    ),
    (
        "missing-required-head",
        ("h200-standard", "RayJob"),
        lambda o: o["spec"]["rayClusterSpec"].pop("headGroupSpec"),
        "crd-schema",
        "spec.rayClusterSpec",
    ),
    (
        "cel-managed-by",
        ("h200-standard", "RayJob"),
        lambda o: o["spec"].update(managedBy="someone"),
        "crd-cel",
        "spec.managedBy",
    ),
    (
        "cel-deletion-strategy",
        ("h200-standard", "RayJob"),
        lambda o: o["spec"].update(
            deletionStrategy={"onSuccess": {"policy": "DeleteCluster"}, "deletionRules": []}
        ),
        "crd-cel",
        "spec.deletionStrategy",
    ),
    (
        "rayjob-name-too-long",
        ("h200-standard", "RayJob"),
        lambda o: o["metadata"].update(name="r" * 48),
        "kuberay-name-length",
        "metadata.name",
    ),
    (
        "raycluster-name-not-dns1035",
        ("h200-standard-raycluster", "RayCluster"),
        lambda o: o["metadata"].update(name="Verl-H200"),
        "kuberay-name-dns1035",
        "metadata.name",
    ),
    (
        "submission-mode",
        ("h200-standard", "RayJob"),
        lambda o: o["spec"].update(submissionMode="K8sMode"),
        "kuberay-submission-mode",
        "spec.submissionMode",
    ),
    (
        "replicas-above-max",
        ("h200-standard", "RayJob"),
        lambda o: _worker(o).update(replicas=3),
        "kuberay-replica-bounds",
        "workerGroupSpecs[0].replicas",
    ),
    (
        "ttl-without-shutdown",
        ("h200-standard", "RayJob"),
        lambda o: o["spec"].update(shutdownAfterJobFinishes=False),
        "kuberay-ttl-needs-shutdown",
        "spec.ttlSecondsAfterFinished",
    ),
    (
        "runtime-env-not-a-map",
        ("h200-standard", "RayJob"),
        lambda o: o["spec"].update(runtimeEnvYAML="- a\n- b\n"),
        "ray-runtime-env",
        "spec.runtimeEnvYAML",
    ),
    (
        "runtime-env-int-value",
        ("h200-standard", "RayJob"),
        lambda o: o["spec"].update(runtimeEnvYAML="env_vars:\n  NCCL_IB_TC: 52\n"),
        "ray-runtime-env",
        "env_vars.NCCL_IB_TC",
    ),
    (
        "start-param-not-string",
        ("h200-standard-raycluster", "RayCluster"),
        lambda o: o["spec"]["workerGroupSpecs"][0]["rayStartParams"].update({"num-cpus": 24}),
        "crd-schema",
        "rayStartParams.num-cpus",
    ),
    (
        "interfaces-not-json",
        ("h200-standard", "RayJob"),
        lambda o: _worker(o)["template"]["metadata"]["annotations"].update(
            {"networking.gke.io/interfaces": "[{"}
        ),
        "gke-interfaces-json",
        "networking.gke.io/interfaces",
    ),
    (
        "interfaces-unknown-network",
        ("h200-standard", "RayJob"),
        lambda o: _worker(o)["template"]["metadata"]["annotations"].update(
            {"networking.gke.io/interfaces": '[{"interfaceName": "eth1", "network": "rdma-9"}]'}
        ),
        "gke-interfaces-network",
        "networking.gke.io/interfaces",
    ),
    (
        "namespaced-network",
        ("h200-standard", "Network"),
        lambda o: o["metadata"].update(namespace="default"),
        "cluster-scoped-namespace",
        "metadata.namespace",
    ),
    (
        "namespaced-pv",
        ("h200-standard", "PersistentVolume"),
        lambda o: o["metadata"].update(namespace="default"),
        "cluster-scoped-namespace",
        "metadata.namespace",
    ),
    (
        "h200-memory-beyond-machine",
        ("h200-standard", "RayJob"),
        lambda o: _worker_pod(o)["containers"][0]["resources"]["requests"].update(memory="2800Gi"),
        "node-fit",
        "workerGroupSpecs[0].template.spec.containers",
    ),
    (
        "typo-in-builtin",
        ("h200-standard", "PersistentVolumeClaim"),
        lambda o: o["spec"].update(storageclass="x"),
        "k8s-schema",
        "spec.storageclass",
    ),
    (
        "device-mode",
        ("h200-standard", "GKENetworkParamSet"),
        lambda o: o["spec"].update(deviceMode="RoCE"),
        "crd-schema",
        "spec.deviceMode",
    ),
    (
        "network-type",
        ("h200-standard", "Network"),
        lambda o: o["spec"].update(type="Layer2"),
        "crd-schema",
        "spec.type",
    ),
    (
        "placeholder-left",
        ("h200-standard", "PersistentVolume"),
        lambda o: o["spec"]["csi"].update(volumeHandle="${GS_BUCKET}"),
        "placeholder",
        "spec.csi.volumeHandle",
    ),
    (
        "entrypoint-with-two-commands",  # KubeRay's submitter would run the second one itself
        ("h200-standard", "RayJob"),
        lambda o: o["spec"].update(entrypoint="python3 preflight.py && python3 -m verl.trainer.main_ppo"),
        "kuberay-entrypoint-one-command",
        "spec.entrypoint",
    ),
    (
        "spot-and-reservation-selectors",
        ("h200-autopilot", "RayJob"),
        lambda o: _worker_pod(o)["nodeSelector"].update(
            {"cloud.google.com/reservation-name": "r1", "cloud.google.com/reservation-affinity": "specific"}
        ),
        "gke-capacity-selectors",
        "spec.nodeSelector",
    ),
    (
        "unknown-kind",
        ("h200-standard", "ServiceAccount"),
        lambda o: o.update(kind="ServiceAcount"),
        "unknown-kind",
        "",
    ),
    (
        "tensor-parallel-over-the-node",  # values' tp-divides-node, re-derived from the object
        ("h200-standard", "RayJob"),
        lambda o: o["spec"].update(
            entrypoint=o["spec"]["entrypoint"].replace(
                "tensor_model_parallel_size=", "tensor_model_parallel_size=1"
            )
        ),
        "tp-divides-node",
        "spec.entrypoint",
    ),
    (
        "quantity-that-is-a-word",  # kubernetes-validate's schema takes any string
        ("h200-standard", "PersistentVolumeClaim"),
        lambda o: o["spec"]["resources"]["requests"].update(storage="lots"),
        "k8s-schema",
        "resources.requests.storage",
    ),
    (
        "restart-policy-not-an-enum-value",
        ("h200-standard", "Job"),
        lambda o: o["spec"]["template"]["spec"].update(restartPolicy="Sometimes"),
        "k8s-schema",
        "restartPolicy",
    ),
    (
        "pull-policy-not-an-enum-value",
        ("h200-standard", "Job"),
        lambda o: o["spec"]["template"]["spec"]["containers"][0].update(imagePullPolicy="Maybe"),
        "k8s-schema",
        "imagePullPolicy",
    ),
    (
        "name-not-a-subdomain",
        ("h200-standard", "ConfigMap"),
        lambda o: o["metadata"].update(name="Verl_Preflight"),
        "k8s-object-meta",
        "metadata.name",
    ),
]


@pytest.mark.parametrize(("name", "base", "mutate", "rule", "path"), DEFECTS, ids=[d[0] for d in DEFECTS])
def test_planted_defect_is_named(validator, name, base, mutate, rule, path):
    obj = dist_object(*base)
    networks = [d for d in with_networks(base[0]) if d["kind"] == "Network"]
    assert errors(validator, obj, *networks) == []  # the base is clean
    mutate(obj)
    found = errors(validator, obj, *networks)
    assert any(f.rule == rule and path in f.key for f in found), [f.line() for f in found]
    hit = next(f for f in found if f.rule == rule)
    assert hit.object.startswith(obj["kind"]) and hit.message


def test_nulls_on_non_nullable_fields_are_dropped_and_defaults_fill_required(validator):
    job = dist_object("h200-standard", "RayJob")
    job["spec"]["suspend"] = None
    job["spec"].pop("submissionMode")  # defaulted by the CRD
    assert errors(validator, job) == []


def test_missing_ray_version_is_a_warning(validator):
    job = dist_object("h200-standard", "RayJob")
    job["spec"]["rayClusterSpec"].pop("rayVersion")
    findings = validator.validate([Document("x", job)])
    assert [(f.severity, f.rule) for f in findings] == [("warning", "kuberay-ray-version")]


def test_the_tutorials_worker_shows_its_defects(validator):
    """Two defects of the tutorial's RayCluster (GoogleCloudPlatform/kubernetes-engine-samples
    ai-ml/verl-on-gke/ray-cluster-auto.yaml @2b50365, 2026-07-30), stated here: its workers select
    `cloud.google.com/gke-accelerator-count: 8`, a number where a node selector needs a string, and
    request `memory: "2800Gi"`, more than an a3-ultragpu-8g (H200) node can allocate."""
    job = dist_object("h200-standard", "RayJob")
    pod = _worker_pod(job)
    pod["nodeSelector"]["cloud.google.com/gke-accelerator-count"] = 8
    pod["containers"][0]["resources"]["requests"]["memory"] = "2800Gi"
    pod["containers"][0]["resources"]["limits"]["memory"] = "2800Gi"
    rules = {f.rule for f in errors(validator, job)}
    assert {"crd-schema", "node-fit"} <= rules, rules


def test_json_output_and_exit_codes(tmp_path, capsys):
    bad = tmp_path / "bad.yaml"
    job = dist_object("h200-standard", "RayJob")
    _worker(job).update(replica=3)
    bad.write_text(json.dumps(job))
    assert main(["validate", str(bad), "-o", "json"]) == 1
    report = json.loads(capsys.readouterr().out)
    assert report["errors"] == 1 and report["findings"][0]["rule"] == "crd-schema"
    # one Problem shape for every verb's JSON (verl_grpo/problems.py)
    assert set(report["findings"][0]) == {"severity", "stage", "key", "message", "source", "object", "rule"}
    assert report["findings"][0]["stage"] == "validate" and report["findings"][0]["key"].startswith("spec.")
    assert main(["validate", str(tmp_path / "missing.yaml")]) == 2
    assert main(["validate", str(REPO / "dist"), "--kube-version", "1.12"]) == 2


def test_synth_refuses_to_write_invalid_output(tmp_path, monkeypatch, capsys):
    from verl_grpo.constructs import verl_ray_cluster

    monkeypatch.setattr(verl_ray_cluster, "HEAD_PORTS", [("gcs-server", 6379), ("gcs-server", 6379)])
    out = tmp_path / "dist"
    assert main(["synth", "-f", str(DIST_VALUES), "--profile", "h200-standard", "-o", str(out)]) == 1
    err = capsys.readouterr().err
    assert "rendered output is invalid" in err and "crd-list-map-keys" in err
    assert not out.exists()


def test_crd_schemas_are_cached_between_runs(tmp_path, monkeypatch):
    from verl_grpo.validate import crds

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    folders = [kuberay_crds(), gke_networking_crds()]
    first = crds.load_crds(folders)
    assert len(list((tmp_path / "verl-grpo" / "crds").glob("*.json"))) == 1 + 6  # the bundle, each file
    again = crds.load_crds(folders)
    assert {k: v.strict for k, v in first.items()} == {k: v.strict for k, v in again.items()}
    assert ("ray.io/v1", "RayJob") in first and ("networking.gke.io/v1", "Network") in first


def test_set_rules_catch_what_broke_the_first_run(validator):
    """One handle for both PVs and a namespace-only NetworkPolicy: fine alone, broken together."""
    objects = with_networks("h200-standard")
    pvs = [copy.deepcopy(o) for o in objects if o["kind"] == "PersistentVolume"]
    policy, job = (copy.deepcopy(dist_object("h200-standard", k)) for k in ("NetworkPolicy", "RayJob"))
    assert errors(validator, *pvs, policy, job) == []
    for pv in pvs:
        pv["spec"]["csi"]["volumeHandle"] = "verl-grpo-data"
    policy["spec"]["ingress"] = [{"from": [{"podSelector": {}}]}]
    found = {(f.rule, f.object) for f in errors(validator, *pvs, policy, job)}
    # Every PV after the first that holds the handle (model, data, verl, checkpoints).
    first, *repeats = [p["metadata"]["name"] for p in pvs]
    assert len(repeats) == 3 and "-model-" in first
    assert found == {
        *(("csi-volume-handle-unique", f"PersistentVolume/{name}") for name in repeats),
        ("kuberay-operator-blocked", "NetworkPolicy/default/verl-ray"),
    }


def test_a_kustomize_namespace_that_strands_the_claims_is_refused(tmp_path):
    """Kustomize's `namespace:` moves the PVCs but not the PVs' claimRef: refused, with the way out."""
    import os
    import subprocess

    # The user's own overlay, outside the checkout (kustomize wants the base relative, and out of
    # its root only with LoadRestrictionsNone).
    overlay = tmp_path / "mine"
    overlay.mkdir()
    base = os.path.relpath(REPO / "overlays" / "h200-standard", overlay)
    (overlay / "kustomization.yaml").write_text(f"namespace: team-a\nresources:\n- {base}\n")
    done = subprocess.run(
        [
            str(REPO / ".venv" / "bin" / "kubectl"),
            "kustomize",
            "--load-restrictor",
            "LoadRestrictionsNone",
            str(overlay),
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    out = tmp_path / "team-a.yaml"
    out.write_text(done.stdout)
    docs = read_documents([out])
    found = [f for f in ManifestValidator().validate(docs) if f.rule == "pv-claim-ref"]
    assert [re.sub("-[0-9a-f]{8}$", "", f.object) for f in sorted(found, key=lambda f: f.object)] == [
        "PersistentVolumeClaim/team-a/verl-checkpoints",
        "PersistentVolumeClaim/team-a/verl-data",
        "PersistentVolumeClaim/team-a/verl-model",
        "PersistentVolumeClaim/team-a/verl-verl",
    ]
    assert "render for the namespace instead (verl-grpo synth -n, helm -n)" in found[0].message
