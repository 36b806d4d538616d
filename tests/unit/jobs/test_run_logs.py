"""jobs/run_logs.py: a run's logs after its cluster is gone, from a local folder or the bucket
(gcloud is replaced: nothing runs, nothing is fetched).
Through the fake gcloud and a real Ray: tests/jobs/test_run_logs.py."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from verl_grpo.jobs import run_logs
from verl_grpo.jobs.errors import JobsError


def test_a_location_has_a_slash_and_a_job_id_has_none() -> None:
    """A gs:// URL or a path is a run's logs; anything without '/' is a job id."""
    assert run_logs.is_location("gs://bucket/checkpoints/p/e/logs")
    assert run_logs.is_location("./logs") and run_logs.is_location("/var/tmp/logs")
    assert not run_logs.is_location("verl-grpo-001-20260101-120000-ab12")
    assert not run_logs.is_location("raysubmit_XYZ")


def test_a_local_folder_is_used_as_it_is_and_a_missing_one_is_refused(tmp_path: Path) -> None:
    """A local folder is used in place; a missing path or a file is refused in words."""
    with run_logs.local_folder(str(tmp_path)) as folder:
        assert folder == tmp_path
    (tmp_path / "job.log").write_text("x")
    for missing in (tmp_path / "nope", tmp_path / "job.log"):  # a file is not a run's folder
        with pytest.raises(JobsError, match=r"no such log file or folder \(a job id has no '/'"):
            with run_logs.local_folder(str(missing)):
                pass


def test_a_bucket_url_is_fetched_into_a_scratch_folder_removed_afterwards(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """gs://: `gcloud storage cp --recursive URL/* SCRATCH`, and the scratch folder goes afterwards."""
    asked: list[list[str]] = []

    def gcloud(cmd: list[str], why: str) -> str:
        asked.append(cmd)
        (Path(cmd[-1]) / "head-0").mkdir()
        (Path(cmd[-1]) / "head-0" / "job-driver-j.log").write_text("step:1 - a:1\n")
        return ""

    monkeypatch.setattr(run_logs, "run_tool", gcloud)
    with run_logs.local_folder("gs://b/checkpoints/p/e/logs/") as folder:
        assert run_logs.driver_text(folder) == "step:1 - a:1\n"
    assert asked == [["gcloud", "storage", "cp", "--recursive", "gs://b/checkpoints/p/e/logs/*", str(folder)]]
    assert not folder.exists()


def test_several_driver_logs_are_joined_oldest_first_under_their_names(tmp_path: Path) -> None:
    """A retried RayJob leaves one driver log per head pod: the older pod's comes first."""
    for pod, when in (("head-b", 1000), ("head-a", 2000)):
        (tmp_path / pod).mkdir()
        log = tmp_path / pod / "job-driver-j.log"
        log.write_text(f"from {pod}\n")
        os.utime(log, (when, when))
    (tmp_path / "head-a" / "job-driver-other.log").write_text("another job\n")
    os.utime(tmp_path / "head-a" / "job-driver-other.log", (3000, 3000))
    assert run_logs.driver_text(tmp_path, "j") == (
        "==> head-b/job-driver-j.log <==\nfrom head-b\n==> head-a/job-driver-j.log <==\nfrom head-a\n"
    )
    assert len(run_logs.driver_logs(tmp_path)) == 3  # no job id: every driver log


def test_a_folder_without_driver_logs_says_what_it_looked_for(tmp_path: Path) -> None:
    """No driver log: the folder and the file name looked for, in one line."""
    (tmp_path / "head-0").mkdir()
    (tmp_path / "head-0" / "raylet.out").write_text("")
    with pytest.raises(JobsError) as e:
        run_logs.driver_logs(tmp_path, "j")
    assert str(e.value) == f"{tmp_path}: no job-driver-j.log under it (the head pod's logs are not there yet)"
