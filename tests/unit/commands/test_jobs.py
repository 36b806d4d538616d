"""commands/jobs.py: the job verbs' entry, and what `submit` sends: the values checked as synth checks
them, refused before any connection when wrong. Ray's client is a fake (no Ray, no socket).
Against a real Ray cluster: tests/jobs/test_commands.py."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest

from verl_grpo.cli import build_parser, main
from verl_grpo.commands.jobs import submit_spec
from verl_grpo.jobs import commands
from verl_grpo.jobs.client import Connection

RAY = "2.49.2"  # the kit's ray.version and client pin (tests/unit/jobs/test_client.py holds them equal)


class FakeClient:
    def __init__(self) -> None:
        self.submitted: list[dict] = []

    def submit_job(self, **job: object) -> str:
        self.submitted.append(job)
        return str(job["submission_id"])


@pytest.fixture
def cluster(monkeypatch: pytest.MonkeyPatch) -> SimpleNamespace:
    seen = SimpleNamespace(client=FakeClient(), connected=[])

    def connect(url: str, token: str | None = None) -> Connection:
        seen.connected.append(url)
        return Connection(seen.client, url, RAY)  # type: ignore[arg-type]

    monkeypatch.setattr(commands, "connect", connect)
    monkeypatch.setattr(commands, "client_version", lambda: RAY)
    return seen


def test_the_submit_spec_is_the_profile_under_the_values_and_release() -> None:
    """submit_spec: the chosen profile with the --set values and release applied."""
    args = build_parser().parse_args(
        [
            "submit",
            "--profile",
            "h200-autopilot-raycluster",
            "--release-name",
            "team",
            "--set",
            "training.rolloutN=4",
        ]
    )
    spec = submit_spec(args)
    assert (spec.values.gpu.type, spec.values.cluster.mode, spec.values.run.kind) == (
        "h200",
        "autopilot",
        "RayCluster",
    )
    assert spec.release.name == "team" and spec.values.training.rollout_n == 4


def test_submit_prints_the_job_id_and_sends_the_clusters_job(
    cluster: SimpleNamespace, capsys: pytest.CaptureFixture[str]
) -> None:
    """stdout is the job id alone; the job names the release's cluster and runs verl's trainer."""
    argv = ["submit", "--profile", "b200-standard-raycluster", "--address", "10.0.0.5:8265"]
    assert main([*argv, "--submission-id", "run-7", "--release-name", "team"]) == 0
    out, err = capsys.readouterr()
    assert out == "run-7\n"  # stdout is the id alone: `JOB=$(verl-grpo submit ...)`
    assert err.endswith("submitted run-7 to http://10.0.0.5:8265 (cluster team-b200)\n")
    (job,) = cluster.client.submitted
    assert job["metadata"]["cluster"] == "team-b200" and job["metadata"]["mode"] == "train"
    assert "verl.trainer.main_ppo" in str(job["entrypoint"]) and "env_vars" in job["runtime_env"]


def test_a_rayjob_profile_is_refused_before_connecting(
    cluster: SimpleNamespace, capsys: pytest.CaptureFixture[str]
) -> None:
    """A RayJob profile submits itself: refused in one line, no connection made."""
    assert main(["submit", "--profile", "b200-standard", "--address", "127.0.0.1:9"]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert err.startswith(
        "verl-grpo submit: run.kind: 'RayJob'; submit needs 'RayCluster' (a RayJob submits itself)"
    )
    assert cluster.connected == []


def test_bad_values_are_refused_like_synth_before_connecting(
    cluster: SimpleNamespace, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Values synth would refuse are refused here too, before any connection."""
    values = tmp_path / "values.yaml"
    values.write_text("workerGroups:\n  gpu-group: {replicas: 0}\n")
    assert main(["submit", "-f", str(values), "--address", "127.0.0.1:9"]) == 1
    out, err = capsys.readouterr()
    assert out == "" and err.startswith("error: b200-standard-raycluster: workerGroups")
    assert cluster.connected == []


def test_without_profile_submit_takes_the_raycluster_profile_the_values_describe(
    cluster: SimpleNamespace, tmp_path: Path
) -> None:
    """README's `submit -f my-raycluster.yaml` (what `init --profile h200-standard-raycluster`
    writes): the H200 RayCluster, not the B200 one; values without a run.kind get a RayCluster's,
    and none at all the chart's GPU's."""
    bare = submit_spec(build_parser().parse_args(["submit"]))
    assert (bare.values.gpu.type, bare.values.run.kind) == ("b200", "RayCluster")
    assert (
        main(
            [
                "init",
                "--profile",
                "h200-standard-raycluster",
                "--bucket",
                "my-bucket",
                "-o",
                str(tmp_path / "rc.yaml"),
            ]
        )
        == 0
    )
    args = build_parser().parse_args(["submit", "-f", str(tmp_path / "rc.yaml")])
    spec = submit_spec(args)
    assert (spec.values.gpu.type, spec.values.run.kind) == ("h200", "RayCluster")
    (tmp_path / "gpu.yaml").write_text("gpu: {type: h200}\n")
    spec = submit_spec(build_parser().parse_args(["submit", "-f", str(tmp_path / "gpu.yaml")]))
    assert (spec.values.gpu.type, spec.values.cluster.mode, spec.values.run.kind) == (
        "h200",
        "standard",
        "RayCluster",
    )


def test_values_of_a_rayjob_are_refused_naming_run_kind(
    cluster: SimpleNamespace, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`init --profile h200-standard`'s my.yaml names run.kind RayJob: submit refuses it, no connection."""
    assert (
        main(["init", "--profile", "h200-standard", "--bucket", "my-bucket", "-o", str(tmp_path / "my.yaml")])
        == 0
    )
    capsys.readouterr()
    assert main(["submit", "-f", str(tmp_path / "my.yaml"), "--address", "127.0.0.1:9"]) == 1
    assert capsys.readouterr().err.startswith(
        "verl-grpo submit: run.kind: 'RayJob'; submit needs 'RayCluster'"
    )
    assert cluster.connected == []
