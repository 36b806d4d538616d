"""jobs/commands.py: what status, logs, stop and metrics do with the Jobs API's answers, on a fake
client (no Ray, no socket: `connect` and the client's version are replaced).
The verbs against a real Ray cluster: tests/jobs/test_commands.py."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path
from types import SimpleNamespace

import aiohttp
import pytest

from verl_grpo.cli import main
from verl_grpo.jobs import commands
from verl_grpo.jobs.client import Connection

RAY = "2.49.2"
URL = "http://127.0.0.1:8265"
ADDRESS = ["--address", "127.0.0.1:8265"]


def info(
    status: str, message: str = "", entrypoint: str = "python3 -m verl.trainer.main_ppo"
) -> SimpleNamespace:
    return SimpleNamespace(
        status=SimpleNamespace(value=status),
        message=message,
        entrypoint=entrypoint,
        start_time=1_700_000_000_000,
        end_time=None,
        metadata={"cluster": "verl-b200"},
    )


class FakeClient:
    """Ray's JobSubmissionClient as the verbs use it: each get_job_info answers the next status."""

    def __init__(self, statuses: list[SimpleNamespace], log: str = "", chunks: tuple[str, ...] = ()) -> None:
        self.statuses, self.log, self.chunks = statuses, log, chunks
        self.stopped: list[str] = []
        self.break_stream = False

    def get_job_info(self, job_id: str) -> SimpleNamespace:
        if job_id == "missing":
            raise RuntimeError(f"Request failed with status code 404: Job {job_id} does not exist.")
        return self.statuses.pop(0) if len(self.statuses) > 1 else self.statuses[0]

    def get_job_logs(self, job_id: str) -> str:
        return self.log

    def stop_job(self, job_id: str) -> bool:
        self.stopped.append(job_id)
        return self.statuses[0].status.value not in ("SUCCEEDED", "FAILED", "STOPPED")

    async def tail_job_logs(self, job_id: str) -> AsyncIterator[str]:
        for chunk in self.chunks:
            yield chunk
            if self.break_stream:
                raise aiohttp.ServerDisconnectedError()


@pytest.fixture
def cluster(monkeypatch: pytest.MonkeyPatch) -> SimpleNamespace:
    """The fake cluster the verbs reach: set `.client`; `.tokens` records what `connect` was given,
    `.sleeps` the polls' pauses (recorded, not slept)."""
    seen = SimpleNamespace(client=None, tokens=[], server=RAY, sleeps=[])

    def connect(url: str, token: str | None = None) -> Connection:
        seen.tokens.append(token)
        return Connection(seen.client, url, seen.server)  # type: ignore[arg-type]

    monkeypatch.setattr(commands, "connect", connect)
    monkeypatch.setattr(commands, "client_version", lambda: RAY)
    monkeypatch.setattr(commands.time, "sleep", seen.sleeps.append)
    return seen


def test_status_as_json_carries_the_jobs_fields_and_the_token_from_a_file(
    cluster: SimpleNamespace, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """status -o json: Ray's fields of the job; --token-file's token goes to the connection."""
    cluster.client = FakeClient([info("RUNNING", "Job is currently running.")])
    token = tmp_path / "token"
    token.write_text("s3cret\n")
    assert main(["status", "job-1", *ADDRESS, "-o", "json", "--token-file", str(token)]) == 0
    fields = json.loads(capsys.readouterr().out)
    assert fields["job"] == "job-1" and fields["status"] == "RUNNING"
    assert fields["message"] == "Job is currently running." and fields["metadata"] == {"cluster": "verl-b200"}
    assert cluster.tokens == ["s3cret"]  # stripped of its newline; never on a command line


def test_an_unknown_job_and_a_different_ray_are_refused_in_one_line(
    cluster: SimpleNamespace, capsys: pytest.CaptureFixture[str]
) -> None:
    """A job Ray does not know, or a cluster on another Ray: one line, exit 1."""
    cluster.client = FakeClient([info("RUNNING")])
    assert main(["status", "missing", *ADDRESS]) == 1
    err = capsys.readouterr().err
    assert err == f"verl-grpo status: no job 'missing' at {URL}: check the id `verl-grpo submit` printed\n"
    cluster.server = "2.50.0"
    assert main(["status", "job-1", *ADDRESS]) == 1
    err = capsys.readouterr().err
    assert (
        err.count("\n") == 1 and "pip install 'ray[default]==2.50.0' or pass --allow-version-mismatch" in err
    )
    assert main(["status", "job-1", *ADDRESS, "--allow-version-mismatch"]) == 0


def test_stop_polls_until_the_job_ends_and_says_when_it_had_already_ended(
    cluster: SimpleNamespace, capsys: pytest.CaptureFixture[str]
) -> None:
    """stop asks again until the job is terminal, and gives up after --timeout."""
    cluster.client = FakeClient([info("RUNNING"), info("RUNNING"), info("STOPPED")])
    assert main(["stop", "job-1", *ADDRESS]) == 0
    assert capsys.readouterr().out == "job-1 STOPPED\n" and cluster.client.stopped == ["job-1"]
    assert cluster.sleeps == [0.5, 0.5]  # asked again while it was still RUNNING
    cluster.client = FakeClient([info("SUCCEEDED")])
    assert main(["stop", "job-2", *ADDRESS]) == 0
    assert capsys.readouterr().out == "job-2 SUCCEEDED (it had already ended)\n"
    cluster.client = FakeClient([info("RUNNING")])  # it never stops
    assert main(["stop", "job-3", *ADDRESS, "--timeout", "0"]) == 1
    assert capsys.readouterr().err == "verl-grpo stop: job-3 is still RUNNING after 0 s\n"


LOG_LINES = [
    "preflight: model, data, checkpoints and GPUs are ready",
    "(TaskRunner pid=7) step:1 - critic/score/mean:0.25 - timing_s/step:10.0",
    "(TaskRunner pid=7) step:2 - critic/score/mean:0.5 - timing_s/step:10.0",
    "(TaskRunner pid=7) ValueError: the batch does not divide",
    "RuntimeError: can't register atexit after shutdown",
]


def test_following_a_failing_job_streams_whole_lines_then_names_its_exceptions(
    cluster: SimpleNamespace, capsys: pytest.CaptureFixture[str]
) -> None:
    """Chunks cut lines anywhere; stdout gets each line once, whole; stderr the progress, the status
    and every exception line, since Ray's message may hold only shutdown noise."""
    text = "\n".join(LOG_LINES) + "\n"
    chunks = (text[:70], text[70:71], text[71:150], text[150:])
    message = "Job entrypoint command failed with exit code 1\nRuntimeError: can't register atexit"
    cluster.client = FakeClient([info("FAILED", message)], log=text, chunks=chunks)
    assert main(["logs", "job-1", *ADDRESS, "--follow", "--total-steps", "10"]) == 1
    out, err = capsys.readouterr()
    assert out.splitlines()[: len(LOG_LINES)] == LOG_LINES
    assert "job-1: FAILED" in out  # the summary table of the steps seen
    progress = [line for line in err.splitlines() if line.startswith("progress: ")]
    assert [p.split(" · ")[0] for p in progress] == ["progress: step 1/10", "progress: step 2/10"]
    assert "ETA 0:01:20" in progress[-1]  # 8 steps left at verl's 10 s a step
    tail = err[err.index("verl-grpo: job job-1 FAILED") :].splitlines()
    assert tail[1:] == [
        "  Job entrypoint command failed with exit code 1",
        "  exceptions in the log:",
        "    ValueError: the batch does not divide",
        "    RuntimeError: can't register atexit after shutdown",
    ]


def test_a_stream_that_breaks_after_the_job_ended_is_completed_from_the_whole_log(
    cluster: SimpleNamespace, capsys: pytest.CaptureFixture[str]
) -> None:
    """What the broken stream missed comes from the whole log; the status is reported, not the break."""
    text = "\n".join(LOG_LINES[:3]) + "\n"
    cluster.client = FakeClient([info("SUCCEEDED")], log=text, chunks=(LOG_LINES[0] + "\n", "never sent"))
    cluster.client.break_stream = True
    assert main(["logs", "job-1", *ADDRESS, "--follow"]) == 0
    out, err = capsys.readouterr()
    assert out.splitlines()[:3] == LOG_LINES[:3]  # the first from the stream, the rest from the log
    assert "broke" not in err and err.endswith("job job-1 SUCCEEDED\n")


def test_saved_logs_need_no_cluster_and_cannot_be_followed(
    cluster: SimpleNamespace, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A folder (a path has a '/') is read locally; `connect` is never called."""
    head = tmp_path / "logs" / "verl-raycluster-head-0"
    head.mkdir(parents=True)
    (head / "job-driver-job-1.log").write_text("\n".join(LOG_LINES) + "\n")
    assert main(["logs", str(tmp_path / "logs")]) == 0
    assert capsys.readouterr().out.splitlines() == LOG_LINES
    table = tmp_path / "steps.csv"
    assert main(["metrics", str(tmp_path / "logs"), "--csv", str(table)]) == 0
    assert table.read_text().splitlines() == ["step,critic/score/mean", "1,0.25", "2,0.5"]
    assert main(["logs", str(tmp_path / "logs"), "--follow"]) == 1
    assert "--follow needs a running job's id, not the saved logs at" in capsys.readouterr().err
    assert cluster.tokens == []
