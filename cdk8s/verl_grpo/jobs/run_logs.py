"""A run's logs after its cluster is gone: the folder the log shipper fills in the bucket.

The log shipper (log_shipper.py, a sidecar of every Ray pod) copies each pod's Ray logs to
`<checkpoint folder of the run>/logs/<pod>/`, i.e. gs://BUCKET/<storage.checkpointDir>/<project>/
<experiment>/logs/. The job verbs take that folder as a gs:// URL (fetched with `gcloud storage
cp --recursive`) or as a local folder (a copy, or the bucket mounted), wherever a job id goes.
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from .errors import JobsError, run_tool

DRIVER_LOG = "job-driver-*.log"  # Ray writes the job's driver output there on the head


def is_location(source: str) -> bool:
    """A run's logs (a gs:// URL or a folder) rather than a job id: it has a '/'."""
    return source.startswith("gs://") or "/" in source


@contextmanager
def local_folder(location: str) -> Iterator[Path]:
    """The logs as a local folder: a gs:// URL is fetched into a temporary one."""
    if not location.startswith("gs://"):
        path = Path(location)
        if not path.is_dir():
            raise JobsError(
                f"{location}: no such log file or folder (a job id has no '/'; a run's logs: "
                "gs://BUCKET/... or a local copy)"
            )
        yield path
        return
    scratch = Path(tempfile.mkdtemp(prefix="verl-grpo-logs-"))
    try:
        cmd = ["gcloud", "storage", "cp", "--recursive", location.rstrip("/") + "/*", str(scratch)]
        run_tool(cmd, "it fetches the run's logs from the bucket (or pass a local copy)")
        yield scratch
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def driver_logs(folder: Path, job_id: str | None = None) -> list[Path]:
    """The job's driver logs, oldest first (a retried RayJob leaves one per head pod)."""
    pattern = f"job-driver-{job_id}.log" if job_id else DRIVER_LOG
    found = sorted(folder.rglob(pattern), key=lambda p: (p.stat().st_mtime, str(p)))
    if not found:
        raise JobsError(f"{folder}: no {pattern} under it (the head pod's logs are not there yet)")
    return found


def driver_text(folder: Path, job_id: str | None = None) -> str:
    """The driver logs joined, each after a `==> pod/file <==` line when there are several."""
    logs = driver_logs(folder, job_id)
    if len(logs) == 1:
        return logs[0].read_text(errors="replace")
    return "".join(f"==> {p.relative_to(folder)} <==\n{p.read_text(errors='replace')}" for p in logs)
