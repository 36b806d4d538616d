"""Flags several verbs share, and what they mean: profiles, values layers, the release."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..problems import VALUES, Problems, did_you_mean, error
from ..values.helm_sets import SET_FLAGS, tagged

if TYPE_CHECKING:  # imported where used: every verb builds its parser, `validate` needs neither
    from ..pipeline import Request
    from ..profiles import Profile
    from ..values.derive import DeploySpec, Release


SET_FLAG_HELP = dict(
    zip(
        SET_FLAGS,
        (
            "set a value (integers, true/false, null are typed; anything else is a string)",
            "set a value as a string",
            "set a value as JSON (numbers such as 0.00001, lists, maps)",
            "set a value to a file's content",
            "set a value to the literal text after '='",
        ),
        strict=True,
    )
)


def values_flags(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "-f",
        "--values",
        action="append",
        type=Path,
        default=[],
        metavar="FILE",
        help="values file (repeatable; later files win)",
    )
    for flag, meaning in SET_FLAG_HELP.items():
        p.add_argument(
            flag,
            action="append",
            default=[],
            metavar="KEY=VALUE",
            help=f"{meaning}, as helm {flag} (repeatable; Helm's parser and order)",
        )
    p.add_argument("--release-name", default="verl", help="release name used in object names (default: verl)")
    p.add_argument("-n", "--namespace", default="default", help="namespace of namespaced objects")


def profiles_flag(p: argparse.ArgumentParser, help: str) -> None:
    p.add_argument("--profile", action="append", default=[], metavar="NAME", help=help)


class Once(argparse.Action):
    """A flag that takes one value: given twice, a usage error (exit 2), not the last one silently."""

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: Any,
        option_string: str | None = None,
    ) -> None:
        if getattr(namespace, self.dest) not in (None, values):
            parser.error(f"{option_string} given twice ({getattr(namespace, self.dest)}, {values}): give one")
        setattr(namespace, self.dest, values)


# Every verb's profile when none is named, one rule (issue 43: plan, check and the scripts each had
# their own default): the run your values describe, the chart's defaults filling what they leave out.
ONE_PROFILE = (
    "the one whose GPU type, mode and run kind your values describe, the chart's defaults filling "
    "the rest: b200-standard when they set none"
)


def profile_flag(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--profile",
        action=Once,
        default=None,
        metavar="NAME",
        help=f"shipped profile under your values (default: {ONE_PROFILE})",
    )


def matching_profiles(args: argparse.Namespace) -> list[str]:
    """The shipped profiles the user's -f/--set agree with (gpu.type, cluster.mode, run.kind); all of
    them when none agrees, so that the values' own error is reported under each."""
    from ..profiles import shipped_profiles
    from ..values.loader import agrees, merge_layers

    user = merge_layers(None, args.values, sets(args), defaults=False)
    names = [p.name for p in shipped_profiles() if agrees(p.layer(), user)]
    return names or [p.name for p in shipped_profiles()]


def one_profile(args: argparse.Namespace, under: dict[str, Any] | None = None) -> Profile:
    """--profile, or the shipped profile the values agree with once the chart's defaults (and
    `under`, a layer beneath the values: submit's RayCluster) fill what they leave out (gpu.type,
    cluster.mode, run.kind), else the first they agree with."""
    from ..profiles import shipped_profiles
    from ..values.loader import agrees, merge_layers

    name = args.profile
    if not name:
        full = merge_layers(under, args.values, sets(args))
        named = [p.name for p in shipped_profiles() if agrees(p.layer(), full)]
        name = (named or matching_profiles(args))[0]
    (profile,) = profiles([name])
    return profile


def output_flag(p: argparse.ArgumentParser) -> None:
    p.add_argument("-o", "--output", choices=["text", "json"], default="text")


def profiles(names: list[str]) -> list[Profile]:
    """The named shipped profiles (all of them for none); an unknown name is refused."""
    from ..profiles import find_profile, shipped_profiles

    chosen = names or [p.name for p in shipped_profiles()]
    names = [p.name for p in shipped_profiles()]
    allowed = ", ".join(names)
    unknown = [n for n in chosen if find_profile(n) is None]
    if unknown:
        raise Problems(
            error(
                VALUES,
                "--profile",
                f"{n!r} is not a shipped profile{did_you_mean(n, names)}; allowed: {allowed}",
            )
            for n in unknown
        )
    return [p for n in chosen if (p := find_profile(n)) is not None]


def sets(args: argparse.Namespace) -> tuple[str, ...]:
    """The --set family's expressions, tagged with their flag (Helm orders them by flag itself)."""
    return tuple(
        tagged(flag, expression)
        for flag in SET_FLAGS
        for expression in getattr(args, flag.removeprefix("--").replace("-", "_"))
    )


def release(args: argparse.Namespace) -> Release:
    from ..values.derive import Release

    return Release(args.release_name, args.namespace)


def request(
    args: argparse.Namespace, profile: Profile, check_verl: bool = True, deploying: bool = True
) -> Request:
    """One rendering of `profile` under the flags' values (`check_verl`, `deploying`: pipeline.Request)."""
    from ..pipeline import Request

    return Request(
        profile.name,
        profile.layer(),
        tuple(args.values),
        sets(args),
        release(args),
        check_verl=check_verl,
        deploying=deploying,
    )


def spec(args: argparse.Namespace, profile: Profile, deploying: bool = False) -> DeploySpec:
    """The checked spec of one profile under the flags' values; problems name the profile.
    `deploying`: also the deploy-only rules (the scripts' settings; synth goes through Request)."""
    from ..pipeline import load_spec

    try:
        return load_spec(profile.layer(), args.values, sets(args), release(args), deploying)
    except Problems as e:
        raise e.at(profile.name) from None
