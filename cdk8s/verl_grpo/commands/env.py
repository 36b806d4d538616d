"""verl-grpo env: the shell variables scripts/ read, from the same values as the manifests."""

from __future__ import annotations

import argparse
import sys

from .flags import one_profile, profile_flag, sets, spec, values_flags


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


def _require_own_bucket(args: argparse.Namespace) -> None:
    """The scripts create, bind and delete the bucket: never the model's default name, only one the
    user's -f/--set give (bucket names are global: the default may be somebody else's)."""
    from ..problems import VALUES, Problems, error
    from ..values.expressions import V
    from ..values.loader import merge_layers

    if V("storage.bucket").py(merge_layers(None, args.values, sets(args), defaults=False)) is None:
        raise Problems(
            [
                error(
                    VALUES,
                    "storage.bucket",
                    "not set in your values: the scripts create, bind and delete this bucket, so they "
                    "take only a name you chose (-f my.yaml with storage: {bucket: NAME}, or --set "
                    "storage.bucket=NAME; README.md, section 'Script settings')",
                )
            ]
        )


def run(args: argparse.Namespace) -> int:
    from ..problems import VALUES, Problems, error
    from ..shell_env import DEFAULT_NETWORK_BASE, render_env, shell_env

    profile = one_profile(args)
    _require_own_bucket(args)
    try:
        env = shell_env(spec(args, profile), profile, args.network_base or DEFAULT_NETWORK_BASE)
    except ValueError as e:
        raise Problems([error(VALUES, "", str(e))]) from e
    sys.stdout.write(render_env(env))
    return 0
