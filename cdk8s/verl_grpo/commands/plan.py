"""verl-grpo plan: what a run will use and do (requests, batches, memory, cost) before it runs."""

from __future__ import annotations

import argparse
import json
import sys

from .flags import output_flag, profile_flag, profiles, spec, values_flags, verl_version_flag


def add(verbs: argparse._SubParsersAction) -> None:
    p = verbs.add_parser("plan", help="what a run will use and do: requests, batches, memory, cost")
    profile_flag(p, "b200-standard")
    values_flags(p)
    verl_version_flag(p)
    p.add_argument(
        "--gpu-hour-price", type=float, default=None, metavar="PRICE", help="price of one GPU-hour"
    )
    output_flag(p)
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from ..plan import make_plan, render_text
    from ..verl_check import training_problems

    (profile,) = profiles([args.profile])
    deploy = spec(args, profile)
    plan = make_plan(
        deploy, training_problems(deploy, args.verl_version), args.gpu_hour_price, args.verl_version
    )
    sys.stdout.write(
        json.dumps(plan.as_dict(), indent=2) + "\n" if args.output == "json" else render_text(plan)
    )
    return 0
