"""jobs/errors.py: kubectl and gcloud run for the job verbs, their failures said in one line
(subprocess.run is replaced: nothing runs)."""

from __future__ import annotations

import subprocess

import pytest

from verl_grpo.jobs.errors import JobsError, run_tool


def fake_run(
    monkeypatch: pytest.MonkeyPatch, returncode: int = 0, stdout: str = "", stderr: str = ""
) -> list:
    calls: list[list[str]] = []

    def run(cmd: list[str], **kwargs: object) -> subprocess.CompletedProcess:
        calls.append(cmd)
        return subprocess.CompletedProcess(cmd, returncode, stdout, stderr)

    monkeypatch.setattr(subprocess, "run", run)
    return calls


def test_a_tool_that_succeeds_gives_its_stdout(monkeypatch: pytest.MonkeyPatch) -> None:
    """Success: the tool's stdout, whatever it wrote on stderr."""
    calls = fake_run(monkeypatch, stdout="c2VjcmV0\n", stderr="a warning nobody reads\n")
    assert run_tool(["kubectl", "get", "secret", "x"], "why") == "c2VjcmV0\n"
    assert calls == [["kubectl", "get", "secret", "x"]]


def test_a_missing_tool_says_which_and_why_it_is_needed(monkeypatch: pytest.MonkeyPatch) -> None:
    """A tool not on PATH: its name and what the verb needed it for."""

    def missing(cmd: list[str], **kwargs: object) -> None:
        raise FileNotFoundError(2, "No such file or directory", cmd[0])

    monkeypatch.setattr(subprocess, "run", missing)
    with pytest.raises(JobsError) as e:
        run_tool(["gcloud", "storage", "cp"], "it fetches the run's logs")
    assert str(e.value) == "gcloud is not installed: it fetches the run's logs"


def test_a_failure_names_the_command_and_each_error_line_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """kubectl repeats its retries: the same line three times is said once, blank lines dropped."""
    retry = "E0101 memcache.go:265] couldn't get current server API group list: connection refused"
    fake_run(monkeypatch, returncode=1, stderr=f"{retry}\n\n{retry}\n  {retry}\nThe connection was refused\n")
    with pytest.raises(JobsError) as e:
        run_tool(["kubectl", "get", "secret", "tok", "-n", "team-a"], "why")
    assert str(e.value) == f"kubectl get secret failed: {retry} The connection was refused"
    assert "\n" not in str(e.value)


def test_a_silent_failure_gives_its_exit_status(monkeypatch: pytest.MonkeyPatch) -> None:
    """A failure with nothing on stderr still says something: its exit status."""
    fake_run(monkeypatch, returncode=3, stderr="  \n")
    with pytest.raises(JobsError, match=r"^gcloud storage cp failed: exit 3$"):
        run_tool(["gcloud", "storage", "cp", "--recursive", "gs://b/x/*", "/tmp/y"], "why")
