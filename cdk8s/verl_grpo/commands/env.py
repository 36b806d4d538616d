"""verl-grpo env: the shell variables scripts/ read, from the same values as the manifests."""

from __future__ import annotations

import argparse
import sys

from .flags import one_profile, profile_flag, spec, values_flags


def add(verbs: argparse._SubParsersAction) -> None:
    p = verbs.add_parser("env", help="print the shell variables the scripts/ read (from the same values)")
    profile_flag(p)
    values_flags(p)
    p.add_argument(
        "--network-base",
        default=None,
        metavar="CIDR",
        help="range the 9 subnets are cut from as /24s (default: 10.100.0.0/16)",
    )
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from ..problems import VALUES, Problems, error
    from ..shell_env import DEFAULT_NETWORK_BASE, render_env, shell_env

    profile = one_profile(args)
    try:
        checked = spec(args, profile, deploying=True)
        env = shell_env(checked, profile, args.network_base or DEFAULT_NETWORK_BASE)
    except Problems:
        raise  # each problem its own line, as every verb prints them
    except ValueError as e:  # shell_env's own refusals
        raise Problems([error(VALUES, "", str(e))]) from e
    sys.stdout.write(render_env(env))
    return 0
