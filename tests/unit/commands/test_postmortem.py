"""`verl-grpo postmortem` as a user runs it: a log file, pasted events, kubectl (the recording fake)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from ...conftest import REPO
from ...scripts_harness import FAKES, calls
from ..postmortem.test_corpus import CORPUS, excerpt

CLI = REPO / ".venv" / "bin" / "verl-grpo"


def postmortem(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [str(CLI), "postmortem", *args], capture_output=True, text=True, env=env, check=False
    )


def body(name: str, tmp_path: Path) -> Path:
    path = tmp_path / name
    path.write_text(excerpt(next(CORPUS.glob(f"{name}*")))[1])
    return path


def test_a_log_file_names_the_cause_and_the_setting(tmp_path):
    done = postmortem(str(body("cuda-oom--verl-2828", tmp_path)))
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("cause: cuda-oom: a GPU ran out of memory\nevidence:\n")
    assert "fix: the log-prob pass: lower training.logProbMicroBatchSizePerGpu" in done.stdout
    as_json = json.loads(postmortem(str(body("cuda-oom--verl-2828", tmp_path)), "-o", "json").stdout)
    assert as_json["cause"] == "cuda-oom" and as_json["findings"][0]["evidence"]


def test_pasted_events_name_what_kept_the_pods_from_starting(tmp_path):
    quiet = tmp_path / "driver.log"
    quiet.write_text("preflight: model, data, checkpoints and GPUs are ready\n")
    events = body("unschedulable--k8s-device-plugin-119", tmp_path)
    done = postmortem(str(quiet), "--events", str(events))
    assert done.stdout.startswith("cause: unschedulable: pods could not be scheduled")
    assert "fix: not enough GPUs" in done.stdout
    missing = postmortem(str(quiet), "--events", str(tmp_path / "nope.txt"))
    assert missing.returncode == 1 and f"--events {tmp_path / 'nope.txt'}: no such file" in missing.stderr


def test_kubectl_reads_the_namespaces_events_and_rayjobs(tmp_path):
    state = tmp_path / "cloud"
    state.mkdir()
    rayjobs = {
        "items": [
            {
                "metadata": {"name": "verl-grpo-001-ab12cd34"},
                "status": {"jobDeploymentStatus": "Initializing", "jobStatus": "", "message": "waiting"},
            }
        ]
    }
    outputs = {
        "get events": excerpt(next(CORPUS.glob("image-pull--monolith-59*")))[1],
        "get rayjobs": json.dumps(rayjobs),
    }
    (state / "state.json").write_text(
        json.dumps({"resources": [], "iam": [], "objects": [], "mutations": 0, "outputs": outputs})
    )
    env = {"PATH": f"{FAKES}:/usr/bin:/bin", "FAKE_STATE": str(state)}
    quiet = tmp_path / "driver.log"
    quiet.write_text("")
    done = postmortem(str(quiet), "--kubectl", "-n", "team-a", env=env)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("cause: image-pull: a pod could not pull its image")
    assert "roles/artifactregistry.reader" in done.stdout  # the 403 the events show
    assert [c["args"][:2] for c in calls(state)] == [["get", "events"], ["get", "rayjobs"]]
    assert all("team-a" in c["args"] for c in calls(state))


def test_a_run_name_without_a_bucket_says_so_before_any_gcloud(tmp_path, capsys, monkeypatch) -> None:
    """A run's name finds its logs in the values' bucket: with none given, one line that says how to
    give it, not gcloud's complaint about gs:///... (nothing is run)."""
    from verl_grpo.cli import main

    monkeypatch.setenv("PATH", str(tmp_path))  # no gcloud: the refusal must come first
    assert main(["postmortem", "grpo-001"]) == 1
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "storage.bucket: not set" in err and "gs:///" not in err, err
