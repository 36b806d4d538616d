"""scripts/ against fakes of gcloud, kubectl and git that record calls, keep state, fail on demand."""

from __future__ import annotations

import subprocess

import pytest

from .conftest import REPO
from .scripts_harness import (
    GOLDEN_PROFILES,
    GOLDENS,
    calls,
    mutating,
    recorded_up,
    run_script,
    script_env,
)


@pytest.mark.parametrize("profile", GOLDEN_PROFILES)
def test_up_issues_the_reviewed_command_sequence(profile, tmp_path):
    golden = (GOLDENS / f"up-{profile}.txt").read_text()
    assert recorded_up(profile, tmp_path) == golden, "run `make goldens` and review the diff"


def test_golden_sequences_carry_the_tutorial_fixes():
    standard = (GOLDENS / "up-h200-standard.txt").read_text()
    assert "--network-profile=us-central1-b-vpc-roce" in standard  # zonal, not the region
    assert "--location=us-central1 --node-locations=us-central1-b --machine-type=a3-ultragpu-8g" in standard
    assert (
        "--workload-pool=my-project.svc.id.goog" in standard and "--machine-type=c2-standard-16" in standard
    )
    assert standard.count("--additional-node-network=") == 9
    assert "--role=roles/storage.objectUser" in standard
    assert "gs://verl-grpo-data/models/Qwen2.5-32B-Instruct" in standard  # not the bucket root
    autopilot = (GOLDENS / "up-h200-autopilot.txt").read_text()
    assert "create-auto" in autopilot and "node-pools create" not in autopilot
    assert "nccl-rdma-installer-autopilot.yaml" in autopilot


def test_a_second_run_creates_nothing(tmp_path):
    env = script_env(tmp_path / "state", tmp_path / "data")
    assert run_script("up.sh", env).returncode == 0
    first = len(calls(tmp_path / "state"))
    assert run_script("up.sh", env).returncode == 0
    again = mutating(calls(tmp_path / "state")[first:])
    # kubectl apply is idempotent by itself; nothing else may change.
    assert [c for c in again if c["tool"] != "kubectl" or c["args"][0] != "apply"] == []


@pytest.mark.parametrize("fail_at", [3, 12, 15, 18])
def test_a_failed_run_resumes_where_it_stopped(tmp_path, fail_at):
    clean = tmp_path / "clean"
    assert run_script("up.sh", script_env(clean / "state", clean / "data")).returncode == 0
    env = script_env(tmp_path / "state", tmp_path / "data", FAKE_FAIL_AT=str(fail_at))
    assert run_script("up.sh", env).returncode != 0
    env.pop("FAKE_FAIL_AT")
    done = run_script("up.sh", env)
    assert done.returncode == 0, done.stderr
    import json

    def resources(state):
        s = json.loads((state / "state.json").read_text())
        return sorted(s["resources"]), s["iam"], sorted(s["objects"])

    ours, theirs = resources(tmp_path / "state"), resources(clean / "state")
    assert ours[:2] == theirs[:2] and len(ours[2]) == len(theirs[2])


def test_dry_run_changes_nothing(tmp_path):
    done = run_script("up.sh", script_env(tmp_path / "state", tmp_path / "data"), "--dry-run")
    assert done.returncode == 0, done.stderr
    assert mutating(calls(tmp_path / "state")) == []
    assert "+ gcloud container node-pools create gpu-pool" in done.stderr


@pytest.mark.parametrize("via_stdin", [False, True])
def test_the_token_never_shows(tmp_path, via_stdin):
    canary = "hf_CANARY_9b1f0c2e"
    token = tmp_path / "token"
    token.write_text(canary)
    env = script_env(tmp_path / "state", tmp_path / "data", HF_TOKEN_FILE="-" if via_stdin else str(token))
    assert run_script("20-cluster.sh", env).returncode == 0
    for flags in ((), ("--dry-run",)):
        done = run_script("50-storage.sh", env, *flags, stdin=canary if via_stdin else "")
        assert done.returncode == 0, done.stderr
        assert canary not in done.stdout + done.stderr
    assert canary not in (tmp_path / "state" / "calls.jsonl").read_text()
    assert canary not in (tmp_path / "state" / "state.json").read_text()
    assert any(c["args"][:3] == ["create", "secret", "generic"] for c in calls(tmp_path / "state"))


def test_down_removes_everything_up_created(tmp_path):
    import json

    for profile in ("h200-standard", "b200-autopilot"):
        env = script_env(tmp_path / profile / "state", tmp_path / profile / "data", PROFILE=profile)
        assert run_script("up.sh", env).returncode == 0
        done = run_script("down.sh", env, "--yes")
        assert done.returncode == 0, done.stderr
        state = json.loads((tmp_path / profile / "state" / "state.json").read_text())
        assert state["resources"] == [] and state["iam"] == []


def test_down_asks_first(tmp_path):
    env = script_env(tmp_path / "state", tmp_path / "data")
    assert run_script("up.sh", env).returncode == 0
    before = len(calls(tmp_path / "state"))
    done = run_script("down.sh", env, stdin="n\n")
    assert done.returncode != 0
    assert mutating(calls(tmp_path / "state")[before:]) == []


@pytest.mark.parametrize(
    ("script", "change", "needle"),
    [
        ("10-networks.sh", {"PROJECT": "", "ZONE": ""}, "set PROJECT ZONE"),
        ("10-networks.sh", {"ZONE": "europe-west4-a"}, "is not in REGION=us-central1"),
        ("10-networks.sh", {"PROJECT": "My_Project"}, "is not a GCP project id"),
        ("20-cluster.sh", {"CLUSTER": "Verl_Cluster"}, "CLUSTER=Verl_Cluster"),
        ("20-cluster.sh", {"GKE_VERSION": "1.30.1-gke.100"}, "is below 1.32.2-gke.1475000"),
        ("30-gpu-pool.sh", {"CAPACITY": "reservation"}, "set RESERVATION"),
        ("30-gpu-pool.sh", {"CAPACITY": "ondemand"}, "allowed: reservation, spot, flex-start"),
        ("60-data.sh", {"GSM8K_DIR": "/nonexistent"}, "has no train.parquet"),
    ],
)
def test_bad_input_stops_before_the_first_call(tmp_path, script, change, needle):
    env = {**script_env(tmp_path / "state", tmp_path / "data"), **change}
    done = run_script(script, env)
    assert done.returncode == 1 and needle in done.stderr, done.stderr
    assert mutating(calls(tmp_path / "state")) == []


def test_missing_reservation_is_found_before_creating(tmp_path):
    env = script_env(tmp_path / "state", tmp_path / "data", CAPACITY="reservation", RESERVATION="r1")
    done = run_script("30-gpu-pool.sh", env)
    assert done.returncode == 1 and "reservation r1 not found in us-central1-b" in done.stderr
    assert mutating(calls(tmp_path / "state")) == []


def test_settings_come_from_the_values(tmp_path):
    values = tmp_path / "v.yaml"
    values.write_text(
        "network: {prefix: lab}\nstorage: {bucket: lab-bucket}\nserviceAccount: {name: lab-sa}\n"
    )
    env = script_env(tmp_path / "state", tmp_path / "data")
    done = run_script("50-storage.sh", env, "-f", str(values), "--dry-run")
    assert "gs://lab-bucket" in done.stderr and "/sa/lab-sa" in done.stderr
    done = run_script("10-networks.sh", env, "-f", str(values), "--dry-run")
    assert "lab-gvnic-net" in done.stderr and "lab-rdma-sub-7" in done.stderr


def test_scripts_are_shellcheck_clean():
    done = subprocess.run(
        [str(REPO / ".venv" / "bin" / "shellcheck"), *map(str, sorted((REPO / "scripts").glob("*.sh")))],
        capture_output=True,
        text=True,
        cwd=REPO,
    )
    assert done.returncode == 0, done.stdout


def test_without_a_local_model_the_cluster_fills_the_bucket(tmp_path):
    env = script_env(tmp_path / "state", tmp_path / "data")
    env.pop("MODEL_SOURCE_DIR")
    done = run_script("up.sh", env)
    assert done.returncode == 0, done.stderr
    assert "in-cluster data-prep Job" in done.stderr
    assert not [c for c in calls(tmp_path / "state") if "rsync" in c["args"]]
