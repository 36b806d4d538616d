"""working.py: a spinner line on a terminal's stderr, nothing when stderr is not a terminal."""

from __future__ import annotations

import io
import sys
from contextlib import nullcontext

import pytest

from verl_grpo.working import working


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_piped_stderr_gets_no_spinner_and_no_output(capsys: pytest.CaptureFixture[str]) -> None:
    """CI, scripts and `2>log` stay free of redraws: the block runs under a no-op context."""
    context = working("rendering 8 profiles")
    assert isinstance(context, nullcontext)
    with context:
        pass
    assert capsys.readouterr() == ("", "")


def test_a_terminal_gets_a_spinner_with_the_message_on_stderr(monkeypatch: pytest.MonkeyPatch) -> None:
    """On a terminal the message is shown by rich's status spinner, written to stderr."""
    from rich.status import Status

    terminal = Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    context = working("validating 12 objects")
    assert isinstance(context, Status)
    assert context.status == "validating 12 objects"
    assert context.console.file is terminal


def test_an_error_in_the_block_goes_through(capsys: pytest.CaptureFixture[str]) -> None:
    """The context never swallows the verb's exception."""
    with pytest.raises(KeyError), working("planning"):
        raise KeyError("x")
