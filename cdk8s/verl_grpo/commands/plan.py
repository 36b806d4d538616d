"""verl-grpo plan: what a run will use and do (requests, batches, memory, cost) before it runs."""

from __future__ import annotations

import argparse
import json
import math
import sys

from .flags import one_profile, output_flag, profile_flag, spec, values_flags


def price(text: str) -> float:
    """argparse type: a price is a finite number, 0 or more (argparse makes the error exit 2)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not math.isfinite(value) or value < 0:
        raise argparse.ArgumentTypeError(f"{text!r}: a price is a finite number, 0 or more")
    return value


def seconds(text: str) -> float:
    """argparse type: seconds per step, a finite number above 0."""
    value = price(text)
    if value == 0:
        raise argparse.ArgumentTypeError(f"{text!r}: seconds per step are more than 0")
    return value


def add(verbs: argparse._SubParsersAction) -> None:
    p = verbs.add_parser("plan", help="what a run will use and do: requests, batches, memory, cost")
    profile_flag(p)
    values_flags(p)
    p.add_argument(
        "--gpu-hour-price",
        type=price,
        default=None,
        metavar="PRICE",
        help="price of one GPU-hour (0 or more)",
    )
    p.add_argument(
        "--step-seconds",
        type=seconds,
        default=None,
        metavar="S",
        help="seconds per training step, for the run's hours and cost (default: an assumed 360; "
        "measure: verl-grpo metrics JOB --key timing_s/step)",
    )
    output_flag(p)
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from ..plan import make_plan, render_text
    from ..verl_check import training_problems
    from ..working import working

    profile = one_profile(args)
    deploy = spec(args, profile)
    verl = deploy.values.training.verl_version
    with working(f"checking {profile.name} with verl {verl}'s config rules"):
        problems = training_problems(deploy)
    plan = make_plan(
        deploy,
        problems,
        args.gpu_hour_price,
        args.step_seconds,
    )
    sys.stdout.write(
        json.dumps(plan.as_dict(), indent=2) + "\n" if args.output == "json" else render_text(plan)
    )
    return 0
