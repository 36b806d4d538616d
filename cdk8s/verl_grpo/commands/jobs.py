"""The job verbs (submit, status, logs, stop, metrics): flags in jobs/verbs.py, work in jobs/commands.py."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

from ..jobs.verbs import add_job_verbs
from .flags import one_profile, request, values_flags

if TYPE_CHECKING:
    from ..values.derive import DeploySpec


def add(verbs: argparse._SubParsersAction) -> None:
    add_job_verbs(verbs, values_flags, run)


def run(args: argparse.Namespace) -> int:
    from ..jobs.commands import run_job_verb

    return run_job_verb(args, submit_spec)


def submit_spec(args: argparse.Namespace) -> DeploySpec:
    """The values `submit` sends, checked as synth checks them (a run refused here costs no GPU);
    --compose-only leaves the verl rules to the image's verl itself."""
    from ..pipeline import synthesize

    # Without --profile, the one the values describe, a RayCluster's unless they name run.kind
    # (a RayJob's values are then refused naming run.kind, before any connection).
    profile = one_profile(args, under={"run": {"kind": "RayCluster"}})
    # The job goes to a running RayCluster, whose bucket is mounted already: no deploy-only rules.
    job = request(args, profile, check_verl=not args.compose_only, deploying=False)
    (rendering,) = synthesize([job]).values()
    for w in rendering.warnings:
        print(w.line(), file=sys.stderr)
    return rendering.spec
