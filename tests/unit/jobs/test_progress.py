"""jobs/progress.py: ETA and the live progress display.
The verbs against a real Ray cluster: test_commands.py."""

from __future__ import annotations

import io
import re
import time

import pytest

from verl_grpo.jobs.progress import RunProgress
from verl_grpo.jobs.step_lines import StepRecord, step_records

from ...helpers.verl_log import LOG


def test_eta_uses_verls_step_time_else_the_clock() -> None:
    run = RunProgress(total_steps=58, started=time.time() - 100)
    for r in step_records(LOG.splitlines()):
        run.add(r)
    # 55 steps left at the mean timing_s/step of the two steps that report it (10.5, 9.5).
    assert run.eta() == pytest.approx(55 * 10.0)
    bare = RunProgress(total_steps=10, started=1000.0)
    bare.add(StepRecord(2, {}))
    assert bare.eta(now=1100.0) == pytest.approx(8 * 50.0)
    assert RunProgress(total_steps=None).eta() is None


def test_on_a_terminal_progress_is_a_live_bar() -> None:
    from rich.console import Console

    from verl_grpo.jobs.progress import ProgressDisplay

    out = io.StringIO()
    terminal = Console(file=out, force_terminal=True, width=160, color_system=None)
    run = RunProgress(total_steps=58, started=time.time())
    with ProgressDisplay(run, terminal) as display:
        for record in step_records(LOG.splitlines()):
            display.update(record)
    screen = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", out.getvalue()).replace("\r", "\n")
    final = [line for line in screen.splitlines() if line.strip()][-1]
    assert re.search(r"GRPO .* 3/58 elapsed 0:00:0\d · ETA 0:09:10 · critic/score/mean 0.125", final), final
    assert "progress:" not in out.getvalue()  # the plain per-step lines are for logs and CI
