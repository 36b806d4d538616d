"""jobs/step_lines.py: verl's console step lines read as data.
The verbs against a real Ray cluster: test_commands.py."""

from __future__ import annotations

import math

from verl_grpo.jobs.step_lines import StepRecord, parse_step_line, step_records

from ...helpers.verl_log import LOG


def test_step_lines_read_as_verl_prints_them() -> None:
    records = step_records(LOG.splitlines())
    assert [r.step for r in records] == [1, 2, 3]
    assert records[0].metrics == {
        "critic/score/mean": 0.05,
        "response_length/mean": 203.0,
        "timing_s/step": 10.5,
    }
    third = records[2].metrics
    assert third["critic/score/mean"] == 0.125 and third["response_length/mean"] == 211.5
    assert third["training/epoch"] == 0 and third["val/done"] == 1.0 and math.isnan(third["actor/entropy"])
    assert parse_step_line("Training Progress:   5%| 3/58") is None
    assert parse_step_line("global step:3 - x:1") is None
    assert parse_step_line("step:7") == StepRecord(7, {})
    assert parse_step_line("step:8 - key:not-a-number - other:2") == StepRecord(8, {"other": 2.0})
