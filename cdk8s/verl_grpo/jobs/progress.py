"""Training progress from verl's step lines: a live display while the job runs, a table at the end."""

from __future__ import annotations

import statistics
import time
from dataclasses import dataclass, field
from datetime import timedelta

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TaskID, TextColumn
from rich.table import Table

from .step_lines import SCORE, StepRecord, finite

RESPONSE_LENGTH = "response_length/mean"
STEP_SECONDS = "timing_s/step"
SUMMARY_KEYS = (SCORE, RESPONSE_LENGTH, "critic/rewards/mean", "actor/pg_loss", STEP_SECONDS)


def clock(seconds: float | None) -> str:
    return "-" if seconds is None else str(timedelta(seconds=round(max(seconds, 0.0))))


def number(value: float | None) -> str:
    return "-" if value is None else f"{value:.4g}"


@dataclass
class RunProgress:
    """Steps seen so far; elapsed counts from the job's start (Ray's clock), not from `--follow`."""

    total_steps: int | None
    started: float = field(default_factory=time.time)
    records: dict[int, StepRecord] = field(default_factory=dict)

    def add(self, record: StepRecord) -> None:
        self.records[record.step] = record

    @property
    def done(self) -> int:
        return max(self.records, default=0)

    def latest(self, key: str) -> float | None:
        for step in sorted(self.records, reverse=True):
            if key in self.records[step].metrics:
                return self.records[step].metrics[key]
        return None

    def elapsed(self, now: float | None = None) -> float:
        return (now or time.time()) - self.started

    def eta(self, now: float | None = None) -> float | None:
        """Remaining steps times the mean step time (verl's timing_s/step, else elapsed per step)."""
        if self.total_steps is None or not self.done:
            return None
        step_times = finite(
            r.metrics[STEP_SECONDS] for r in self.records.values() if STEP_SECONDS in r.metrics
        )
        per_step = statistics.fmean(step_times) if step_times else self.elapsed(now) / self.done
        return max(self.total_steps - self.done, 0) * per_step

    def status_line(self) -> str:
        of = f"/{self.total_steps}" if self.total_steps else ""
        return (
            f"step {self.done}{of} · elapsed {clock(self.elapsed())} · ETA {clock(self.eta())} · "
            f"{SCORE} {number(self.latest(SCORE))} · {RESPONSE_LENGTH} {number(self.latest(RESPONSE_LENGTH))}"
        )

    def summary(self, job_id: str, status: str) -> Table:
        table = Table(title=f"{job_id}: {status}", title_justify="left")
        for column in ("metric", "first", "last", "min", "max"):
            table.add_column(column, justify="left" if column == "metric" else "right")
        of = f" of {self.total_steps}" if self.total_steps else ""
        table.add_row("steps", "", f"{self.done}{of}", "", "")
        table.add_row("elapsed", "", clock(self.elapsed()), "", "")
        ordered = [self.records[s] for s in sorted(self.records)]
        for key in SUMMARY_KEYS:
            values = finite(r.metrics[key] for r in ordered if key in r.metrics)
            if values:
                table.add_row(key, *(number(v) for v in (values[0], values[-1], min(values), max(values))))
        return table


class ProgressDisplay:
    """A rich progress bar on a terminal; one plain line per step otherwise (logs, CI)."""

    def __init__(self, run: RunProgress, console: Console | None = None) -> None:
        self.run = run
        self.console = console or Console(stderr=True)
        self.live = self.console.is_terminal
        self.progress: Progress | None = None
        self.task: TaskID | None = None

    def __enter__(self) -> ProgressDisplay:
        if self.live:
            self.progress = Progress(
                TextColumn("[bold]GRPO"),
                BarColumn(),
                MofNCompleteColumn(),
                TextColumn("{task.fields[status]}"),
                console=self.console,
                redirect_stdout=True,
            )
            self.task = self.progress.add_task("steps", total=self.run.total_steps, status="")
            self.progress.start()
        return self

    def update(self, record: StepRecord) -> None:
        if self.run.records.get(record.step) == record:
            return  # the same line again (Ray can deliver a worker's line more than once)
        self.run.add(record)
        if self.progress is not None and self.task is not None:
            status = self.run.status_line().split(" · ", 1)[1]
            self.progress.update(self.task, completed=self.run.done, status=status)
        else:
            self.console.print(f"progress: {self.run.status_line()}", highlight=False, soft_wrap=True)

    def __exit__(self, *exc: object) -> None:
        if self.progress is not None:
            self.progress.stop()
