"""dist/: equals a fresh synth, is deterministic, and is never half-written."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from verl_grpo.cli import main
from verl_grpo.output import atomic
from verl_grpo.yaml_io import dump

from ..conftest import DIST_VALUES, REPO, tree


def synth_as_dist(out: Path) -> None:
    """`synth --profile P` of every shipped profile with dist/'s values (output/dist.py
    placeholder_layer: a placeholder for each value that is the user's) into out/P."""
    from verl_grpo.output.dist import placeholder_layer
    from verl_grpo.profiles import shipped_profiles

    for profile in shipped_profiles():
        mine = out.parent / f"{profile.name}-mine.yaml"
        mine.write_text(dump(placeholder_layer(profile)))
        args = ["synth", "--profile", profile.name, "-f", str(mine)]
        assert main([*args, "-o", str(out)]) == 0


@pytest.fixture(scope="module")
def fresh(tmp_path_factory):
    out = tmp_path_factory.mktemp("fresh") / "dist"
    synth_as_dist(out)
    return out


@pytest.mark.parametrize("folder", ["dist", "charts/verl-grpo", "overlays"])
def test_committed_output_equals_a_fresh_generate(tmp_path_factory, folder):
    """Invariant 2: generated files are only ever what the generator makes (`make goldens`)."""
    root = tmp_path_factory.getbasetemp() / "generated"
    if not root.exists():
        assert main(["generate", "--root", str(root)]) == 0
    committed, generated = tree(REPO / folder), tree(root / folder)
    assert sorted(committed) == sorted(generated), "run `make goldens` and review the diff"
    changed = [k for k in generated if committed[k] != generated[k]]
    assert changed == [], "run `make goldens` and review the diff"


def test_output_is_byte_identical_across_runs(fresh, tmp_path):
    again = tmp_path / "dist"
    synth_as_dist(again)
    assert tree(again) == tree(fresh)


def test_every_profile_dir_is_a_kustomization_of_its_files(fresh):
    from verl_grpo.yaml_io import load

    for profile in fresh.iterdir():
        k = load((profile / "kustomization.yaml").read_text())
        on_disk = sorted(p.name for p in profile.glob("*.yaml") if p.name != "kustomization.yaml")
        assert sorted(k["resources"]) == on_disk


@pytest.mark.parametrize(
    "args",
    [
        ["--set", "worker.cpus=3"],
        ["--set", "workerGroups.gpu-group.replicas=-1"],
        ["--set", "gpu.type=gb300"],
        ["--set", "storage.bucket=gs://bucket"],
        ["--set", "run.name=Not_DNS"],
        ["--set", "workerGroups.gpu-group.replicas=two"],
        ["--profile", "b300-standard"],
        ["--release-name", "Verl"],
    ],
)
def test_bad_input_exits_1_with_one_line_and_writes_nothing(fresh, tmp_path, capsys, args):
    out = tmp_path / "dist"
    shutil.copytree(fresh, out)
    before = tree(out)
    # the one profile the values describe (b200-standard): each refusal is the bad input's own
    assert main(["synth", "-f", str(DIST_VALUES), "-o", str(out), *args]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert err and all(line.startswith("error: ") for line in err)
    assert tree(out) == before
    assert sorted(os.listdir(tmp_path)) == ["dist"]  # no staging leftovers


def test_usage_errors_exit_2(capsys):
    with pytest.raises(SystemExit) as e:
        main(["synth", "-f", str(DIST_VALUES), "--no-such-flag"])
    assert e.value.code == 2
    two = ["--profile", "b200-standard", "--profile", "h200-standard"]
    assert main(["synth", "-f", str(DIST_VALUES), *two, "-o", "-"]) == 2


def test_without_renameat2_the_fallback_still_replaces(fresh, tmp_path, monkeypatch):
    out = tmp_path / "dist"
    monkeypatch.setattr(atomic, "_exchange", lambda a, b: False)
    assert main(["synth", "-f", str(DIST_VALUES), "-o", str(out), "--profile", "h200-standard"]) == 0
    assert (
        main(
            [
                "synth",
                "-f",
                str(DIST_VALUES),
                "-o",
                str(out),
                "--profile",
                "h200-standard",
                "--set",
                "workerGroups.gpu-group.replicas=4",
            ]
        )
        == 0
    )
    (job,) = (out / "h200-standard").glob("rayjob-verl-grpo-001-*.yaml")
    assert "replicas: 4" in job.read_text()
    assert sorted(os.listdir(out)) == ["h200-standard"]


def test_stdout_output_is_the_same_objects(fresh, capsys):
    from verl_grpo.yaml_io import load, load_all

    as_dist = fresh.parent / "h200-autopilot-mine.yaml"  # synth_as_dist's placeholders
    assert main(["synth", "-f", str(as_dist), "--profile", "h200-autopilot", "-o", "-"]) == 0
    docs = load_all(capsys.readouterr().out)
    on_disk = [load(p.read_text()) for p in sorted((fresh / "h200-autopilot").glob("*.yaml"))]
    key = lambda m: (m["kind"], m["metadata"]["name"])  # noqa: E731
    assert sorted(docs, key=key) == sorted([m for m in on_disk if m["kind"] != "Kustomization"], key=key)


def test_cdk8s_cli_app_synthesizes_the_same_objects(fresh, tmp_path):
    """cdk8s.yaml's app, run as the cdk8s CLI would (it sets CDK8S_OUTDIR)."""
    from verl_grpo.yaml_io import load, load_all

    env = {**os.environ, "CDK8S_OUTDIR": str(tmp_path)}
    subprocess.run([sys.executable, str(REPO / "cdk8s" / "main.py")], check=True, env=env, cwd=REPO)
    docs = load_all((tmp_path / "h200-standard.k8s.yaml").read_text())
    on_disk = [load(p.read_text()) for p in sorted((fresh / "h200-standard").glob("*.yaml"))]
    key = lambda m: (m["kind"], m["metadata"]["name"])  # noqa: E731
    assert sorted(docs, key=key) == sorted([m for m in on_disk if m["kind"] != "Kustomization"], key=key)
