"""Least privilege, no exposure, secret hygiene, and checkov over everything we render."""

from __future__ import annotations

import json
import subprocess

import yaml

from verl_grpo.profiles import shipped_profiles
from verl_grpo.validate.operator_rules import pod_templates
from verl_grpo.values.schema import values_schema

from .conftest import REPO

CHECKOV = REPO / ".venv-checkov" / "bin" / "checkov"


def dist_objects() -> list[tuple[str, dict]]:
    out = []
    for path in sorted((REPO / "dist").glob("*/*.yaml")):
        doc = yaml.safe_load(path.read_text())
        if doc.get("kind") != "Kustomization":
            out.append((f"{path.parent.name}/{path.name}", doc))
    return out


def scan_input(folder) -> None:
    """checkov knows no Ray kinds: each Ray pod template is scanned as the Pod KubeRay makes of it."""
    for name, doc in dist_objects():
        target = folder / name
        target.parent.mkdir(parents=True, exist_ok=True)
        pods = list(pod_templates(doc))
        if not pods:
            target.write_text(yaml.safe_dump(doc))
            continue
        for i, (_, template) in enumerate(pods):
            meta = {k: v for k, v in template.get("metadata", {}).items() if k != "name"}
            pod = {
                "apiVersion": "v1",
                "kind": "Pod",
                "metadata": {
                    "name": f"{doc['metadata']['name']}-{i}",
                    "namespace": doc["metadata"]["namespace"],
                    **meta,
                },
                "spec": template["spec"],
            }
            target.with_name(f"{target.stem}-pod{i}.yaml").write_text(yaml.safe_dump(pod))


def test_checkov_passes_with_every_exception_explained(tmp_path):
    scan_input(tmp_path)
    done = subprocess.run(
        [
            str(CHECKOV),
            "-d",
            str(tmp_path),
            "--framework",
            "kubernetes",
            "--skip-download",
            "-o",
            "json",
        ],
        capture_output=True,
        text=True,
    )
    report = json.loads(done.stdout)
    results = report["results"]
    failed = [(c["check_id"], c["resource"]) for c in results["failed_checks"]]
    assert failed == []
    assert results["passed_checks"], "nothing was scanned"
    skipped = results["skipped_checks"]
    assert skipped and all(c["check_result"].get("suppress_comment", "").strip() for c in skipped)
    pods = {c["file_path"] for c in results["passed_checks"] if c["resource"].startswith("Pod.")}
    # Ray head and workers (2 pod templates) and the data-prep Job of every profile
    assert len(pods) == 3 * len(shipped_profiles())


def test_nothing_is_exposed_outside_the_cluster():
    for name, doc in dist_objects():
        assert not (doc["kind"] == "Service" and doc["spec"].get("type") in ("LoadBalancer", "NodePort")), (
            name
        )
        cluster = doc.get("spec", {}).get("rayClusterSpec") or (
            doc["spec"] if doc["kind"] == "RayCluster" else None
        )
        if cluster:
            assert cluster["headGroupSpec"]["serviceType"] == "ClusterIP", name


def test_pods_are_hardened_and_host_paths_read_only():
    for name, doc in dist_objects():
        for _, template in pod_templates(doc):
            spec = template["spec"]
            assert spec["automountServiceAccountToken"] is False, name
            assert spec["securityContext"]["seccompProfile"]["type"] == "RuntimeDefault"
            for c in spec["containers"]:
                assert c["securityContext"]["allowPrivilegeEscalation"] is False
                assert (
                    "NET_RAW" in c["securityContext"]["capabilities"]["drop"]
                    or "ALL" in c["securityContext"]["capabilities"]["drop"]
                )
            host = {v["name"]: v["hostPath"]["path"] for v in spec["volumes"] if "hostPath" in v}
            assert set(host.values()) <= {"/home/kubernetes/bin/nvidia", "/home/kubernetes/bin/gib"}


def test_no_pod_adds_a_capability_so_the_cluster_allows_none():
    """Autopilot's allow-net-admin workload policy only lets workloads add NET_ADMIN (GKE API
    WorkloadPolicyConfig.allowNetAdmin): no container adds any capability, so no cluster asks for it."""
    for name, doc in dist_objects():
        for _, template in pod_templates(doc):
            spec = template["spec"]
            for c in [*spec["containers"], *spec.get("initContainers", [])]:
                assert not c.get("securityContext", {}).get("capabilities", {}).get("add"), (name, c["name"])
    for golden in (REPO / "tests" / "goldens" / "scripts").glob("up-*.txt"):
        assert "--workload-policies" not in golden.read_text(), golden.name


def test_cloud_side_grants_only_what_is_needed():
    for golden in (REPO / "tests" / "goldens" / "scripts").glob("up-*.txt"):
        text = golden.read_text()
        grants = [
            (
                line.split()[2],
                line.split()[4],
                *(w for w in line.split() if w.startswith(("--member=", "--role="))),
            )
            for line in text.splitlines()
            if "add-iam-policy-binding" in line
        ]
        who = {"sa/verl-ksa": "ray pods", "sa/verl-ksa-data-prep": "data prep"}
        found = sorted(
            (who[member.rsplit("/", 2)[-2] + "/" + member.rsplit("/", 1)[-1]], role.split("=")[1], target)
            for _, target, member, role in grants
        )
        bucket = "gs://my-verl-bucket"
        # Both read the bucket and nothing else; each writes only its own folders (managed folders).
        assert found == sorted(
            [
                ("ray pods", "roles/storage.objectViewer", bucket),
                ("ray pods", "roles/storage.objectUser", f"{bucket}/checkpoints/"),
                ("data prep", "roles/storage.objectViewer", bucket),
                ("data prep", "roles/storage.objectUser", f"{bucket}/models/Qwen2.5-32B-Instruct/"),
                ("data prep", "roles/storage.objectUser", f"{bucket}/data/gsm8k/"),
                ("data prep", "roles/storage.objectUser", f"{bucket}/verl/"),
            ]
        ), golden.name
        ranges = [w for w in text.split() if w.startswith("--source-ranges=")]
        # internal only; under DRANET (a4x) the kit makes no VPC and so no firewall rule
        dranet = "--accelerator-network-profile=auto" in text
        assert ranges == ([] if dranet else ["--source-ranges=10.100.0.0/16"]), golden.name


def property_names(schema: object) -> set[str]:
    if isinstance(schema, dict):
        names = set(schema.get("properties", {}))
        return names.union(*(property_names(v) for v in schema.values()))
    if isinstance(schema, list):
        return set().union(*(property_names(v) for v in schema))
    return set()


def test_no_value_can_hold_a_secret():
    """No key takes a token or password (ray.auth names a mode; the token stays in its Secret)."""
    names = {n.lower() for n in property_names(values_schema())}
    assert {"auth", "hfTokenSecret".lower(), "bucket"} <= names  # the walk sees nested keys
    for word in ("token", "password", "secretkey", "apikey"):
        assert not [n for n in names if n.startswith(word) or n.endswith(word)], word


def test_a_token_in_the_environment_never_reaches_output(tmp_path, monkeypatch):
    from verl_grpo.cli import main

    canary = "hf_CANARY_5d2a"
    monkeypatch.setenv("HF_TOKEN", canary)
    monkeypatch.setenv("HUGGING_FACE_HUB_TOKEN", canary)
    assert main(["generate", "--root", str(tmp_path)]) == 0
    for path in tmp_path.rglob("*"):
        if path.is_file():
            assert canary.encode() not in path.read_bytes(), path
