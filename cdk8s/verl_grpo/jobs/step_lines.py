"""verl's console metrics as data.

With `trainer.logger=console` verl prints one line per step (verl/utils/logger/aggregate_logger.py):
`step:N - key:value - key:value ...`, each value `pprint.pformat` of a number. The trainer runs in
a Ray actor, so in the job's log the line carries Ray's `(TaskRunner pid=...)` prefix.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable
from dataclasses import dataclass

SCORE = "critic/score/mean"  # the number the tutorial tells users to watch
ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")
RAY_PREFIX = re.compile(r"^\([^)]*\)\s*")
STEP = re.compile(r"^step:(\d+)(?: - (.*))?$")
# numpy 2 formats its scalars as np.float64(0.5); plain numbers, nan, inf and bools otherwise.
NUMPY_SCALAR = re.compile(r"^np\.\w+\((.*)\)$")


@dataclass(frozen=True)
class StepRecord:
    step: int
    metrics: dict[str, float]


def parse_value(text: str) -> float | None:
    match = NUMPY_SCALAR.match(text)
    if match:
        text = match.group(1)
    if text in ("True", "False"):
        return 1.0 if text == "True" else 0.0
    try:
        return float(text)
    except ValueError:
        return None


def parse_step_line(line: str) -> StepRecord | None:
    """The record a verl console line carries, or None for any other line."""
    line = RAY_PREFIX.sub("", ANSI.sub("", line).strip())
    match = STEP.match(line)
    if not match:
        return None
    metrics: dict[str, float] = {}
    for part in (match.group(2) or "").split(" - "):
        key, sep, raw = part.rpartition(":")
        value = parse_value(raw.strip()) if sep else None
        if key and value is not None:
            metrics[key.strip()] = value
    return StepRecord(int(match.group(1)), metrics)


def step_records(lines: Iterable[str]) -> list[StepRecord]:
    """One record per step, in step order; a step logged again (a resumed run) keeps its last line."""
    by_step: dict[int, StepRecord] = {}
    for line in lines:
        record = parse_step_line(line)
        if record is not None:
            by_step[record.step] = record
    return [by_step[s] for s in sorted(by_step)]


def metric_keys(records: list[StepRecord]) -> list[str]:
    return sorted({k for r in records for k in r.metrics})


def finite(values: Iterable[float]) -> list[float]:
    return [v for v in values if math.isfinite(v)]
