"""Logs that outlive the cluster: the log shipper copies the head's Ray logs into the bucket while a
run goes on; the cluster is then stopped, and `verl-grpo logs`, `metrics` and `postmortem` read the
run from the bucket (gs://, through gcloud: the fake serves a folder) or from a local copy."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from verl_grpo.pod import log_shipper

from ..local_ray import LocalRay, stop_cluster
from ..scripts_harness import FAKES, calls

pytestmark = pytest.mark.slow

BUCKET = "local-test-bucket"
# The run's folder in the bucket: storage.checkpointDir / training.projectName / the experiment
# (training.experimentName, by default run.name) / logs, as `verl-grpo postmortem RUN` finds it.
RUN_LOGS = "checkpoints/verl-grpo/grpo-001/logs"


def fake_gcloud(tmp_path: Path, buckets: Path) -> dict[str, str]:
    state = tmp_path / "cloud"
    state.mkdir()
    (state / "state.json").write_text(json.dumps({"resources": [], "iam": [], "objects": [], "mutations": 0}))
    return {"PATH": f"{FAKES}:/usr/bin:/bin", "FAKE_STATE": str(state), "FAKE_BUCKETS": str(buckets)}


def test_a_runs_logs_outlive_its_cluster(local_ray: LocalRay, tmp_path: Path) -> None:
    buckets = tmp_path / "gcs"
    head = buckets / BUCKET / RUN_LOGS / "verl-raycluster-head-0"
    shipper = subprocess.Popen(
        [
            sys.executable,
            log_shipper.__file__,
            "--source",
            str(local_ray.temp),
            "--target",
            str(head),
            "--interval",
            "1",
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        done = local_ray.submit_step_probe("+probe.steps=4", "+probe.fail_at=3")
        assert done.returncode == 1, done.stderr
        job_id = done.stdout.splitlines()[0]
        driver = head / f"job-driver-{job_id}.log"
        deadline = time.monotonic() + 60
        while "step:2 " not in (driver.read_text() if driver.exists() else ""):
            assert time.monotonic() < deadline, "the driver log never reached the bucket"
            time.sleep(0.5)
    finally:
        stop_cluster()  # the cluster is gone (its pods, their /tmp/ray) ...
        shipper.send_signal(signal.SIGTERM)  # ... and the sidecar copies once more as it stops
        assert shipper.wait(timeout=30) == 0

    env = fake_gcloud(tmp_path, buckets)
    url = f"gs://{BUCKET}/{RUN_LOGS}"
    logs = local_ray.cli("logs", url, env=env)
    assert logs.returncode == 0, logs.stderr
    assert "step:1 " in logs.stdout and "step:2 " in logs.stdout
    assert [c["args"][:3] for c in calls(tmp_path / "cloud")] == [["storage", "cp", "--recursive"]]

    table = tmp_path / "metrics.csv"
    metrics = local_ray.cli("metrics", url, "--csv", str(table), env=env)
    assert metrics.returncode == 0, metrics.stderr
    steps = [row.split(",")[0] for row in table.read_text().splitlines()[1:]]
    assert steps == ["1", "2", "3"]  # the last one logged before the failure

    copy = local_ray.cli("logs", str(buckets / BUCKET / RUN_LOGS), env=env)  # a local copy of the folder
    assert copy.stdout == logs.stdout

    # By the run's name: the folder comes from the same values as the manifests.
    post = local_ray.cli("postmortem", "grpo-001", "-f", str(local_ray.values), env=env)
    assert post.returncode == 0, post.stderr
    assert post.stdout.startswith("cause: unknown")
    assert "probe: failing on purpose at step 3" in post.stdout

    gone = local_ray.cli("logs", f"gs://{BUCKET}/no-such-run/logs", env=env)
    assert gone.returncode != 0 and "matched no objects" in gone.stderr
