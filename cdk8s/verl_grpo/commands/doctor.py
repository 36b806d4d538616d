"""verl-grpo doctor: runs scripts/doctor.sh, whose checks are the scripts' own facts (lib.sh: the
bucket's grants, the Workload Identity member, the values through `verl-grpo env`), not a copy."""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

from .flags import profile_flag, values_flags

# The kit's clone: the package is installed from it in place (`pip install -e`, make venv).
SCRIPT = Path(__file__).resolve().parents[3] / "scripts" / "doctor.sh"


def add(verbs: argparse._SubParsersAction) -> None:
    p = verbs.add_parser(
        "doctor",
        help="check in seconds what a run needs from this machine and the project (scripts/doctor.sh)",
        description="Variables: PROJECT, REGION, ZONE (ZONE may come from cluster.zone), CLUSTER, "
        "RELEASE_CHANNEL: as the scripts read them (scripts/doctor.sh --help).",
    )
    profile_flag(p)
    values_flags(p)
    p.set_defaults(run=run)


def script_args(args: argparse.Namespace) -> list[str]:
    """The same request in the scripts' flags (lib.sh parse_flags)."""
    from ..values.helm_sets import untagged
    from .flags import sets

    out = [a for f in args.values for a in ("-f", str(f))]
    out += [a for item in sets(args) for a in untagged(item)]
    out += ["--profile", args.profile] if args.profile else []
    # The scripts' own default is NAMESPACE, else default: pass only a namespace that is not.
    return out + (["-n", args.namespace] if args.namespace != "default" else [])


def run(args: argparse.Namespace) -> int:
    if not SCRIPT.is_file():
        print(f"verl-grpo doctor: {SCRIPT} not found: run it from the kit's clone", file=sys.stderr)
        return 2
    return subprocess.run([str(SCRIPT), *script_args(args)], check=False).returncode
