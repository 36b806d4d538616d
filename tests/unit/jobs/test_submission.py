"""jobs/submission.py: what `submit` sends, refused before any connection when wrong.
The verbs against a real Ray cluster: test_commands.py."""

from __future__ import annotations

import subprocess

import pytest

from verl_grpo.jobs.errors import JobsError
from verl_grpo.jobs.submission import validated_runtime_env

from ...conftest import REPO

CLI = str(REPO / ".venv" / "bin" / "verl-grpo")


def cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([CLI, *args], capture_output=True, text=True, check=False, timeout=120)


def test_submit_refuses_a_rayjob_profile_before_connecting() -> None:
    done = cli("submit", "--profile", "b200-standard", "--address", "127.0.0.1:9")
    assert done.returncode == 1
    assert "run.kind: 'RayJob'; submit needs 'RayCluster' (a RayJob submits itself)" in done.stderr


def test_submit_refuses_bad_values_like_synth(tmp_path) -> None:
    values = tmp_path / "values.yaml"
    values.write_text("workerGroups:\n  gpu-group: {replicas: 0}\n")
    done = cli("submit", "-f", str(values), "--address", "127.0.0.1:9")
    assert done.returncode == 1 and "workerGroups" in done.stderr and "cannot reach" not in done.stderr


def test_runtime_env_goes_through_rays_own_checks() -> None:
    assert validated_runtime_env('env_vars:\n  A: "1"\n') == {"env_vars": {"A": "1"}}
    with pytest.raises(
        JobsError, match=r"runtime env refused by Ray: runtime_env\['env_vars'\] must be of type"
    ):
        validated_runtime_env("env_vars:\n  A: 1\n")
    with pytest.raises(JobsError, match="runtime env: not a mapping"):
        validated_runtime_env("- a\n")


def test_rayjob_and_submit_path_run_the_same_entrypoint(shipped) -> None:
    """The RayJob embeds exactly what `submit` sends for the RayCluster kind (one code path)."""
    from ...conftest import objects_of_kind

    for gpu in ("b200", "h200"):
        for mode in ("standard", "autopilot"):
            (job,) = objects_of_kind(shipped[f"{gpu}-{mode}"], "RayJob")
            (cm,) = [
                o
                for o in objects_of_kind(shipped[f"{gpu}-{mode}-raycluster"], "ConfigMap")
                if o["metadata"]["name"] == "verl-submit"
            ]
            assert job["spec"]["entrypoint"] == cm["data"]["entrypoint.sh"]
            assert job["spec"]["runtimeEnvYAML"] == cm["data"]["runtime-env.yaml"]
