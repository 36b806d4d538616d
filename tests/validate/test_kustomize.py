"""`verl-grpo validate` over what a user builds with Kustomize from the shipped overlays: the
rules re-derived from the objects still hold after a patch the CLI never saw."""

from __future__ import annotations

import json
import os
import subprocess

import yaml

from verl_grpo.cli import main

from ..conftest import REPO
from ..helm_tools import tool

WORKER = "/spec/rayClusterSpec/workerGroupSpecs/0/template/spec/containers/0/resources/requests/memory"


def test_a_patched_overlay_is_refused_by_the_rules_re_derived_from_objects(tmp_path, capsys) -> None:
    (job,) = (REPO / "dist" / "h200-standard").glob("rayjob-*.yaml")
    entrypoint = yaml.safe_load(job.read_text())["spec"]["entrypoint"]
    decide = [
        {"op": "replace", "path": WORKER, "value": "2800Gi"},  # more than an a3-ultragpu-8g holds
        {
            "op": "replace",
            "path": "/spec/entrypoint",
            "value": entrypoint.replace("parallel_size=8", "parallel_size=16"),
        },
    ]
    overlay = tmp_path / "mine"
    overlay.mkdir()
    (overlay / "patch.json").write_text(json.dumps(decide))
    kustomization = {
        "apiVersion": "kustomize.config.k8s.io/v1beta1",
        "kind": "Kustomization",
        "resources": [
            os.path.relpath(REPO / "overlays" / "h200-standard", overlay)
        ],  # kustomize wants it relative
        "patches": [{"target": {"kind": "RayJob"}, "path": "patch.json"}],
    }
    (overlay / "kustomization.yaml").write_text(yaml.safe_dump(kustomization))
    command = [tool("kubectl"), "kustomize", "--load-restrictor", "LoadRestrictionsNone", str(overlay)]
    built = subprocess.run(command, capture_output=True, text=True, check=True).stdout
    manifests = tmp_path / "built.yaml"
    manifests.write_text(built)
    assert main(["validate", str(manifests), "-o", "json"]) == 1
    report = json.loads(capsys.readouterr().out)
    rules = {f["rule"] for f in report["findings"] if f["severity"] == "error"}
    # and the overlay stands on dist/'s placeholder bucket, which validate refuses as well
    assert rules == {"node-fit", "tp-divides-node", "dist-placeholder"}, report["findings"]
