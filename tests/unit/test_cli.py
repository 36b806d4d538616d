"""cli.py: flags and dispatch; whatever a verb raises becomes one line on stderr and exit 1, a usage
error exit 2, never a traceback. A verb's `run` is replaced where a failure is needed."""

from __future__ import annotations

import signal
import sys
import tempfile
import tomllib
from pathlib import Path

import pytest

from verl_grpo import cli
from verl_grpo.commands import schema
from verl_grpo.jobs.errors import JobsError
from verl_grpo.problems import RULES, VALUES, Problem, Problems, error

from ..conftest import REPO


def test_no_verb_is_a_usage_error_and_version_names_kit_and_verl(capsys: pytest.CaptureFixture[str]) -> None:
    """A verb is required (exit 2); --version names the kit's release and the verl it runs."""
    with pytest.raises(SystemExit) as e:
        cli.main([])
    assert e.value.code == 2 and "the following arguments are required: verb" in capsys.readouterr().err
    with pytest.raises(SystemExit) as e:
        cli.main(["--version"])
    version = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["version"]
    assert e.value.code == 0
    assert capsys.readouterr().out.startswith(f"verl-grpo {version} (verl 0.")


def test_every_problem_prints_as_its_own_line_and_exits_1(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Problems: one line each on stderr, control characters escaped; exit 1."""

    def run(args: object) -> int:
        print("half a result")  # what a verb printed before it failed stays where it was
        raise Problems(
            [
                error(VALUES, "gpu.type", "'a100' is not one of\n['b200']").at("h200-standard"),
                Problem("warning", RULES, "training.rolloutN", "learns nothing", rule="r"),
            ]
        )

    monkeypatch.setattr(schema, "run", run)
    assert cli.main(["schema"]) == cli.EXIT_INVALID == 1
    out, err = capsys.readouterr()
    assert out == "half a result\n"
    assert err.splitlines() == [
        "error: h200-standard: gpu.type: 'a100' is not one of\\n['b200']",  # the newline shown escaped
        "warning: training.rolloutN: learns nothing [r]",
    ]


@pytest.mark.parametrize(
    "raised, line",
    [
        (JobsError("no job 'x'\nat http://h:8265"), "verl-grpo schema: no job 'x'\\nat http://h:8265"),
        (
            PermissionError(13, "Permission denied", "/out/dist"),
            "verl-grpo schema: /out/dist: Permission denied",
        ),
        (OSError(28, "No space left on device"), "verl-grpo schema: No space left on device"),
        (KeyError("gpu"), "verl-grpo: internal error: KeyError: 'gpu' (please report)"),
        (ValueError("two\nlines"), "verl-grpo: internal error: ValueError: two\\nlines (please report)"),
    ],
    ids=["jobs-error", "os-error-with-file", "os-error", "anything-else", "anything-else-multi-line"],
)
def test_a_verbs_failure_is_one_line_naming_the_verb(
    raised: Exception, line: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Job, OS and unexpected errors: one line on stderr (never a traceback), exit 1."""

    def run(args: object) -> int:
        raise raised

    monkeypatch.setattr(schema, "run", run)
    assert cli.main(["schema"]) == 1
    assert capsys.readouterr().err == line + "\n"


def test_the_console_scripts_scratch_folder_goes_at_exit(monkeypatch: pytest.MonkeyPatch) -> None:
    """jsii's kernel unpacks into $TMPDIR: the console script points it at a folder it removes."""
    monkeypatch.setenv("TMPDIR", tempfile.gettempdir())
    monkeypatch.setattr(tempfile, "tempdir", None)
    with cli.own_tmpdir():
        folder = Path(tempfile.gettempdir())
        assert folder.name.startswith("verl-grpo-") and folder.is_dir()
        (folder / "jsii-kernel-x").mkdir()
    assert not folder.exists()


def test_an_interrupt_is_remembered_and_the_previous_handler_restored(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The console script notes a Ctrl-C even if swallowed, and puts the old handler back."""
    monkeypatch.setattr(sys, "unraisablehook", sys.unraisablehook)  # the handler silences it
    before = signal.getsignal(signal.SIGINT)
    with cli.watch_interrupts(True) as interrupted:
        assert not interrupted()
        handler = signal.getsignal(signal.SIGINT)
        assert handler is not before
        with pytest.raises(KeyboardInterrupt):
            handler(signal.SIGINT, None)  # type: ignore[operator]
        assert interrupted()
    assert signal.getsignal(signal.SIGINT) is before
    with cli.watch_interrupts(False) as interrupted:  # in-process callers keep their own handler
        assert signal.getsignal(signal.SIGINT) is before and not interrupted()
