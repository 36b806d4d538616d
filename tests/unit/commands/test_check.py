"""commands/check.py: `verl-grpo check`, the training settings against verl's rules per profile:
findings on stdout, a verdict per profile on stderr, exit 1 only for errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from verl_grpo.cli import main


def test_a_shipped_profile_passes_with_a_verdict_on_stderr(capsys: pytest.CaptureFixture[str]) -> None:
    """Nothing on stdout when nothing is wrong; the verdict names profile and verl version."""
    sets = ["--set", "training.verlVersion=0.9.1", "--set", "image.tag=vllm024.dev2"]
    assert main(["check", "--profile", "b200-standard", *sets]) == 0
    assert capsys.readouterr() == ("", "b200-standard: verl 0.9.1: ok\n")


def test_without_profile_it_checks_the_one_the_values_describe(capsys: pytest.CaptureFixture[str]) -> None:
    """No --profile: the run the values describe, as plan does (issue 43: a b200 user's `check`
    reported A4X's image refusal, from a profile they never chose)."""
    assert main(["check", "--set", "gpu.type=h200", "--set", "cluster.mode=autopilot"]) == 0
    assert capsys.readouterr().err.splitlines() == ["h200-autopilot: verl 0.6.1: ok"]
    assert main(["check"]) == 0
    assert capsys.readouterr().err.splitlines() == ["b200-standard: verl 0.6.1: ok"]


def test_a_warning_is_a_finding_but_not_a_failure(capsys: pytest.CaptureFixture[str]) -> None:
    """rollout.n = 1 gives GRPO no group to compare: said, yet the run is allowed."""
    assert main(["check", "--profile", "h200-standard", "--set", "training.rolloutN=1"]) == 0
    out, err = capsys.readouterr()
    (line,) = out.splitlines()
    assert line.startswith("warning: h200-standard: training.rolloutN: ")
    assert err == "h200-standard: verl 0.6.1: 1 problem(s)\n"


def test_bad_values_are_one_line_in_text_and_a_report_in_json(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The values' own error: one stderr line in text; in JSON, listed under its profile."""
    values = tmp_path / "values.yaml"
    values.write_text("training:\n  bogus: 1\n")
    assert main(["check", "--profile", "b200-standard", "-f", str(values)]) == 1
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1
    assert err.startswith("error: b200-standard: training.bogus: unknown key; allowed: verlVersion, module, ")
    assert main(["check", "--profile", "b200-standard", "-f", str(values), "-o", "json"]) == 1
    ((problem,),) = json.loads(capsys.readouterr().out).values()
    assert (problem["severity"], problem["key"], problem["source"]) == (
        "error",
        "training.bogus",
        "b200-standard",
    )


def crds(fields: list[str]) -> str:
    """`kubectl get crd rayclusters.ray.io rayjobs.ray.io -o yaml`: a List of CRDs whose v1 schemas
    have exactly `fields` (plural.spec.a.b) under spec."""
    items = []
    for kind, plural in (("RayCluster", "rayclusters"), ("RayJob", "rayjobs")):
        spec: dict = {}
        for path in fields:
            head, _, rest = path.partition(".spec.")
            if head == plural:
                node = spec
                for part in rest.split("."):
                    node = node.setdefault("properties", {}).setdefault(part, {})
        schema = {"openAPIV3Schema": {"properties": {"spec": spec}}}
        items.append(
            {
                "kind": "CustomResourceDefinition",
                "spec": {
                    "group": "ray.io",
                    "names": {"kind": kind},
                    "versions": [{"name": "v1", "schema": schema}],
                },
            }
        )
    return yaml.safe_dump({"apiVersion": "v1", "kind": "List", "items": items})


def test_the_clusters_crds_must_belong_to_kuberay_version(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """--cluster-crds: CRDs of another KubeRay than kuberay.version (or none) are an error."""
    from importlib import resources

    data = json.loads((resources.files("verl_grpo") / "data" / "kuberay-crd-fields.json").read_text())
    old = tmp_path / "crds.yaml"
    old.write_text(crds(data["fields"]["v1.4.0"]))  # a cluster running KubeRay 1.4
    args = ["check", "--profile", "h200-standard", "--cluster-crds", str(old)]
    assert main(args) == 1
    (line,) = capsys.readouterr().out.splitlines()
    assert line.startswith("error: h200-standard: kuberay.version: ")
    assert "they are KubeRay 1.4.0, 1.4.1, 1.4.2's" in line and line.endswith("[kuberay-matches-cluster]")
    assert main([*args, "--set", "kuberay.version=1.4.2"]) == 0
    none = tmp_path / "none.yaml"
    none.write_text("apiVersion: v1\nkind: List\nitems: []\n")
    assert main(["check", "--profile", "h200-standard", "--cluster-crds", str(none)]) == 1
    assert "the cluster has no ray.io RayCluster/RayJob CRDs" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("flag", "text", "says"),
    [
        ("--cluster-crds", "a: [\n  b\n", "not valid YAML: line 3, column 1: expected ',' or ']'"),
        ("--cluster-pools", "- x\n", "not a YAML mapping"),
    ],
)
def test_a_cluster_file_that_is_not_kubectl_s_output_is_one_line(
    flag: str, text: str, says: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "cluster.yaml"
    path.write_text(text)
    assert main(["check", flag, str(path)]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith(f"error: {flag}: {says}"), err
