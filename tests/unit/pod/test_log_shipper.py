"""The log shipper on a folder shaped like Ray's (session_latest/logs), copying into another."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from verl_grpo.pod import log_shipper
from verl_grpo.pod.log_shipper import Shipper

from ...test_preflight import layout  # noqa: F401 - the fixture


def ray_folder(root: Path) -> Path:
    """Ray's folder as the Ray container made it: the link holds that container's absolute path
    (/tmp/ray/session_...), which this side may see mounted elsewhere."""
    session = root / "session_2026-12-05_07-00-00_000000_1"
    (session / "logs").mkdir(parents=True)
    (root / "session_latest").symlink_to(Path("/tmp/ray-in-the-ray-container") / session.name)
    return session / "logs"


def test_new_and_changed_files_are_copied_unchanged_ones_not(tmp_path):
    logs, target = ray_folder(tmp_path / "ray"), tmp_path / "bucket" / "pod-a"
    (logs / "raylet.out").write_text("started\n")
    (logs / "events").mkdir()
    (logs / "events" / "event_GCS.log").write_text("{}\n")
    shipper = Shipper(str(tmp_path / "ray"), str(target), interval=0)
    assert shipper.sync() == ["events/event_GCS.log", "raylet.out"]
    assert (target / "raylet.out").read_text() == "started\n"
    assert shipper.sync() == []  # nothing changed
    with (logs / "raylet.out").open("a") as f:
        f.write("more\n")
    assert shipper.sync() == ["raylet.out"]
    assert (target / "raylet.out").read_text() == "started\nmore\n"


def test_a_big_file_is_copied_less_often_but_always_at_the_end(tmp_path, monkeypatch):
    logs, target = ray_folder(tmp_path / "ray"), tmp_path / "bucket"
    monkeypatch.setattr(log_shipper, "BIG", 10)
    big = logs / "worker-1.out"
    big.write_text("x" * 40)  # 4 x BIG: at most every 4 intervals
    shipper = Shipper(str(tmp_path / "ray"), str(target), interval=60)
    assert shipper.sync() == ["worker-1.out"]
    big.write_text("y" * 41)
    assert shipper.sync() == []  # changed, but copied less than 4 intervals ago
    assert shipper.sync(final=True) == ["worker-1.out"]
    assert (target / "worker-1.out").read_text() == "y" * 41


def test_sigterm_copies_once_more_then_exits(tmp_path):
    """What a pod deletion or a spot preemption does to the sidecar: its last lines still land."""
    logs, target = ray_folder(tmp_path / "ray"), tmp_path / "bucket"
    (logs / "job-driver-raysubmit_1.log").write_text("step:1\n")
    proc = subprocess.Popen(
        [
            sys.executable,
            log_shipper.__file__,
            "--source",
            str(tmp_path / "ray"),
            "--target",
            str(target),
            "--interval",
            "3600",
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert "every 3600 s" in proc.stdout.readline()
    deadline = time.monotonic() + 30
    while not (target / "job-driver-raysubmit_1.log").exists():  # the first copy, at start
        assert time.monotonic() < deadline
        time.sleep(0.1)
    with (logs / "job-driver-raysubmit_1.log").open("a") as f:
        f.write("step:2\n")
    os.utime(logs / "job-driver-raysubmit_1.log", (time.time() + 5, time.time() + 5))
    proc.send_signal(signal.SIGTERM)
    assert proc.wait(timeout=30) == 0
    assert "last copy: 1 files" in proc.stdout.read()
    assert (target / "job-driver-raysubmit_1.log").read_text() == "step:1\nstep:2\n"


def test_each_run_of_a_cluster_gets_its_own_logs_folder(tmp_path, monkeypatch, layout):  # noqa: F811
    """A RayCluster outlives its runs: each run's pre-flight names its logs folder for the cluster
    (log_shipper.RUNS), and the shippers copy into it from then on, every file again; before any
    run they use the folder rendered into the sidecar."""
    from verl_grpo.pod import preflight

    from ...test_preflight import args

    logs, mount = ray_folder(tmp_path / "ray"), tmp_path / "checkpoints"
    (logs / "raylet.out").write_text("started\n")
    rendered = mount / "verl-grpo" / "first" / "logs" / "pod-a"
    pointer = log_shipper.run_pointer(str(mount), "verl-h200")
    shipper = Shipper(str(tmp_path / "ray"), str(rendered), interval=0, pointer=pointer, pod="pod-a")
    assert shipper.sync() == ["raylet.out"] and (rendered / "raylet.out").exists()
    # The next run, submitted to the same cluster with another experiment.
    second = mount / "verl-grpo" / "second"
    monkeypatch.setenv("RAY_CLUSTER_NAME", "verl-h200")
    flags = ["--checkpoint-mount", str(mount)]
    assert preflight.main([*args(layout), "--checkpoints", str(second), *flags], nodes=lambda: None) == 0
    assert Path(pointer).read_text() == f"{second}/logs"
    assert shipper.sync() == ["raylet.out"]
    assert (second / "logs" / "pod-a" / "raylet.out").read_text() == "started\n"
    assert shipper.sync() == []
