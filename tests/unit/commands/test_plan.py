"""commands/plan.py: `verl-grpo plan`, what a run will use and cost, as text or JSON; prices and
step times are checked by argparse (exit 2)."""

from __future__ import annotations

import argparse
import json

import pytest

from verl_grpo.cli import main
from verl_grpo.commands.plan import price, seconds


def test_prices_are_finite_and_not_negative_and_steps_take_time() -> None:
    """The argparse types: no negative, NaN or infinite price; a step takes more than 0 s."""
    assert price("0") == 0.0 and price("2.5") == 2.5 and seconds("0.5") == 0.5
    for text, why in (("-1", "a price is a finite number, 0 or more"), ("nan", "finite"), ("inf", "finite")):
        with pytest.raises(argparse.ArgumentTypeError, match=why):
            price(text)
    with pytest.raises(argparse.ArgumentTypeError, match="'abc' is not a number"):
        price("abc")
    with pytest.raises(argparse.ArgumentTypeError, match="seconds per step are more than 0"):
        seconds("0")


def test_a_bad_price_is_a_usage_error_naming_the_flag(capsys: pytest.CaptureFixture[str]) -> None:
    """A negative price: exit 2, and the last line names the flag and why."""
    with pytest.raises(SystemExit) as e:
        main(["plan", "--gpu-hour-price", "-1"])
    assert e.value.code == 2
    assert capsys.readouterr().err.splitlines()[-1] == (
        "verl-grpo plan: error: argument --gpu-hour-price: '-1': a price is a finite number, 0 or more"
    )


def test_the_text_plan_opens_with_the_gpus_the_values_ask_for(capsys: pytest.CaptureFixture[str]) -> None:
    """No --profile: the shipped profile the values agree with (gpu.type h200: h200-standard)."""
    assert main(["plan", "--set", "gpu.type=h200", "--set", "workerGroups.gpu-group.replicas=4"]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[0] == "h200 on a3-ultragpu-8g: 4 nodes x 8 GPUs (standard, spot)"
    assert "Cost: set --gpu-hour-price" in out


def test_the_json_plans_cost_is_steps_times_seconds_times_gpus_times_price(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Cost = total steps x seconds per step x GPUs x price per GPU-hour."""
    argv = [
        "plan",
        "--profile",
        "b200-standard",
        "-o",
        "json",
        "--gpu-hour-price",
        "2",
        "--step-seconds",
        "100",
    ]
    assert main(argv) == 0
    plan = json.loads(capsys.readouterr().out)
    assert plan["gpu"]["type"] == "b200" and plan["ray"]["gpus"] == 2 * 8
    steps = plan["batches"]["total_steps"]
    assert steps == 7473 // 256 * 2  # GSM8K's train rows in batches of 256, the last dropped, 2 epochs
    assert plan["run"]["cost"] == pytest.approx(steps * 100 / 3600 * 16 * 2, abs=0.01)
    assert plan["run"]["step_seconds_assumed"] is False


def test_bad_values_print_one_line_and_no_plan(capsys: pytest.CaptureFixture[str]) -> None:
    """An unknown GPU type: one error line, and no plan on stdout."""
    assert main(["plan", "--set", "gpu.type=a100"]) == 1
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1 and "gpu.type" in err and "a100" in err
