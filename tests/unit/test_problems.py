"""problems.py: one type for everything the kit refuses or warns about, and its printers."""

from __future__ import annotations

import json

import pytest

from verl_grpo.problems import (
    RULES,
    VALIDATE,
    VALUES,
    Problem,
    Problems,
    as_json,
    did_you_mean,
    error,
    errors,
)


def test_a_problem_prints_on_one_line_with_only_the_parts_it_has() -> None:
    """`severity: [source: ][object ][key: ]message[ [rule]]`."""
    assert error(VALUES, "gpu.type", "bad").line() == "error: gpu.type: bad"
    full = Problem("warning", VALIDATE, "spec.x", "odd", "b200-standard", "RayJob/default/verl", "rule-1")
    assert full.line() == "warning: b200-standard: RayJob/default/verl spec.x: odd [rule-1]"


def test_newlines_and_control_characters_from_input_are_shown_escaped() -> None:
    """A value can carry a newline into a message: the line stays one line."""
    line = error(VALUES, "run.name", "'a\nb\x1b[31m' is not allowed").line()
    assert "\n" not in line and "\x1b" not in line
    assert "'a\\nb\\x1b[31m'" in line


def test_problems_carries_every_problem_and_names_their_source() -> None:
    """Raised with all problems, not the first; `at` says where they were found."""
    found = [error(VALUES, "a", "one"), Problem("warning", RULES, "b", "two")]
    with pytest.raises(Problems) as raised:
        raise Problems(found)
    assert str(raised.value) == "error: a: one\nwarning: b: two"
    located = raised.value.at("h200-autopilot")
    assert [p.source for p in located.problems] == ["h200-autopilot"] * 2
    assert str(located).splitlines()[1] == "warning: h200-autopilot: b: two"
    assert [p.source for p in found] == ["", ""]  # the originals are left as they were
    assert errors(located.problems) == located.problems[:1]


def test_did_you_mean_suggests_the_closest_choice_or_nothing() -> None:
    choices = ["RayJob", "RayCluster"]
    assert did_you_mean("RayJb", choices) == " (did you mean 'RayJob'?)"
    assert did_you_mean("Deployment", choices) == ""


def test_as_json_turns_problems_anywhere_in_a_report_into_dicts() -> None:
    """Scripts read one shape: every field of every problem, nested in lists and dicts."""
    report = {"b200": [error(RULES, "worker.cpu", "low")], "ok": True}
    assert json.loads(as_json(report)) == {
        "b200": [
            {
                "severity": "error",
                "stage": "rules",
                "key": "worker.cpu",
                "message": "low",
                "source": "",
                "object": "",
                "rule": "",
            }
        ],
        "ok": True,
    }
