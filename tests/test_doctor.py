"""scripts/doctor.sh on the recording fakes: what a run needs, one line per check, nothing changed."""

from __future__ import annotations

from pathlib import Path

import pytest

from .scripts_harness import calls, mutating, run_script, script_env

# The fake cloud's quota for the default run (b200-standard: spot, 2 nodes x 8 GPUs), as
# `gcloud compute regions describe --format=json` lists it (FAKE_QUOTAS: METRIC=limit/usage).
ENOUGH = "PREEMPTIBLE_NVIDIA_B200_GPUS=64/0 CPUS=96/0"


def environment(tmp_path: Path, **extra: str) -> dict[str, str]:
    """script_env with the GKE auth plugin on PATH (a stand-in: the doctor only looks for it)."""
    plugin = tmp_path / "plugin"
    plugin.mkdir(exist_ok=True)
    (plugin / "gke-gcloud-auth-plugin").write_text("#!/bin/sh\nexit 0\n")
    (plugin / "gke-gcloud-auth-plugin").chmod(0o755)
    env = script_env(tmp_path / "state", tmp_path / "data", **extra)
    return {**env, "PATH": f"{env['PATH']}:{plugin}"}


def doctor(env: dict[str, str], *args: str) -> tuple[int, dict[str, str]]:
    done = run_script("doctor.sh", env, *args)
    status = {}
    for line in done.stdout.splitlines():
        level, rest = line.split(None, 1)
        what = rest.split(": ", 1)[0]
        status[what if what != "grant" else rest] = level
    return done.returncode, status


def test_after_up_every_check_is_ok_and_nothing_changes(tmp_path: Path) -> None:
    env = environment(tmp_path, FAKE_QUOTAS=ENOUGH)
    assert run_script("up.sh", env).returncode == 0
    made = len(calls(tmp_path / "state"))
    code, status = doctor(env)
    assert code == 0 and set(status.values()) == {"ok"}, status
    checked = {"gcloud", "kubectl", "helm", "gke-gcloud-auth-plugin", "values", "credentials"}
    assert checked | {"GKE version", "GPU quota", "bucket", "kuberay", "namespace", "pools"} <= set(status)
    assert len([k for k in status if "roles/storage" in k]) == 6  # lib.sh bucket_grants
    assert mutating(calls(tmp_path / "state")[made:]) == []


def test_before_up_what_up_makes_is_a_warning_and_the_rest_is_checked(tmp_path: Path) -> None:
    """README's quick start runs doctor before up.sh: the bucket and the cluster are not there
    yet (a warning each, nothing asked of them), the machine and the project are checked."""
    code, status = doctor(environment(tmp_path, FAKE_QUOTAS=ENOUGH))
    assert code == 0 and status["bucket"] == "warn" and status["cluster"] == "warn"
    assert status["GPU quota"] == status["GKE version"] == status["credentials"] == "ok"
    assert not any(k.startswith("grant") for k in status)
    assert mutating(calls(tmp_path / "state")) == []


@pytest.mark.parametrize(
    ("quotas", "level", "says"),
    [
        ("PREEMPTIBLE_NVIDIA_B200_GPUS=24/16", "FAIL", "8 of 24 free, the run needs 16"),
        ("NVIDIA_B200_GPUS=64/0", "warn", "lists no PREEMPTIBLE_NVIDIA_B200_GPUS"),
    ],
    ids=["too-little", "not-listed"],
)
def test_gpu_quota_is_the_capacity_s_and_absent_is_unknown(
    tmp_path: Path, quotas: str, level: str, says: str
) -> None:
    done = run_script("doctor.sh", environment(tmp_path, FAKE_QUOTAS=quotas))
    (line,) = [x for x in done.stdout.splitlines() if x.split(None, 1)[1].startswith("GPU quota:")]
    assert line.startswith(level) and says in line


def test_grants_made_for_another_namespace_are_named(tmp_path: Path) -> None:
    env = environment(tmp_path, FAKE_QUOTAS=ENOUGH)
    assert run_script("up.sh", env, "-n", "ml").returncode == 0
    code, status = doctor(env)  # the release would go to default
    failed = [k for k, v in status.items() if v == "FAIL"]
    assert (
        code == 1 and failed and all("ns/default/" in k and "50-storage.sh -n default" in k for k in failed)
    )


def test_a_release_for_nodes_no_pool_makes_is_named(tmp_path: Path) -> None:
    """up.sh made and recorded B200 pools; values for H200 (or a group of their own) would leave
    the workers Pending (rule pool-matches-workers, read from kube-public/verl-grpo-pools)."""
    env = environment(tmp_path, FAKE_QUOTAS=ENOUGH)
    assert run_script("up.sh", env).returncode == 0
    done = run_script("doctor.sh", env, "--set", "gpu.type=h200")
    (line,) = [x for x in done.stdout.splitlines() if x.split(None, 1)[1].startswith("pools:")]
    assert done.returncode == 1 and line.startswith(
        "FAIL pools: workerGroups.gpu-group: its workers select "
        "cloud.google.com/gke-accelerator=nvidia-h200-141gb, cloud.google.com/gke-spot=true, which no GPU "
        "pool of this cluster gives (the pools scripts/up.sh made: gpu-pool for profile b200-standard)"
    ), line


def test_a_missing_tool_and_missing_credentials_are_one_line_each(tmp_path: Path) -> None:
    env = environment(tmp_path, FAKE_NO_CREDENTIALS="1")
    without_helm = ":".join(d for d in env["PATH"].split(":") if not (Path(d) / "helm").exists())
    code, status = doctor({**env, "PATH": without_helm})
    assert code == 1 and status["helm"] == "FAIL" and status["credentials"] == "FAIL"
    assert "bucket" not in status  # nothing asked without an account


def test_the_verb_runs_the_script(tmp_path: Path) -> None:
    """`verl-grpo doctor` is scripts/doctor.sh with the same flags (commands/doctor.py)."""
    import subprocess

    from .scripts_harness import MY_VALUES, REPO

    env = environment(tmp_path, FAKE_QUOTAS=ENOUGH)
    verb = [str(REPO / ".venv" / "bin" / "verl-grpo"), "doctor", "-f", str(MY_VALUES)]
    by_verb = subprocess.run(verb, env=env, capture_output=True, text=True, check=False)
    by_script = run_script("doctor.sh", env)
    assert (by_verb.returncode, by_verb.stdout) == (by_script.returncode, by_script.stdout)
    assert "warn bucket" in by_verb.stdout
