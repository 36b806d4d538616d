"""verl-grpo synth: manifests for shipped profiles or your values, one file per object."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from ..profiles import shipped_profiles
from .flags import ONE_PROFILE, one_profile, profiles, profiles_flag, request, values_flags


def add(verbs: argparse._SubParsersAction) -> None:
    p = verbs.add_parser("synth", help="render manifests for shipped profiles or your values")
    profiles_flag(
        p,
        f"shipped profile to render (repeatable; default: {ONE_PROFILE}): "
        + ", ".join(s.name for s in shipped_profiles()),
    )
    values_flags(p)
    # Required: the repository's dist/ is the generator's (`verl-grpo generate`), with a placeholder
    # bucket; a default there would overwrite it with the user's values.
    p.add_argument(
        "-o",
        "--output",
        required=True,
        metavar="DIR",
        help="write DIR/<profile>/ (your folder, e.g. deploy/ for GitOps); '-' prints one profile to stdout",
    )
    p.set_defaults(run=run)


def unwritable_folder(path: Path) -> str | None:
    """Why `path` cannot become a folder of profiles (checked before rendering), or None."""
    if path.exists() and not path.is_dir():
        return "is a file; -o takes a folder (DIR/<profile>/ is written) or '-' for stdout"
    parent = path
    while not parent.exists():
        parent = parent.parent
    if not parent.is_dir():
        return f"{parent} is a file, not a folder"
    if not os.access(parent, os.W_OK | os.X_OK):
        return f"{parent} is not writable"
    return None


def run(args: argparse.Namespace) -> int:
    from ..output.atomic import write_tree
    from ..output.dist import dist_files
    from ..pipeline import synthesize
    from ..yaml_io import dump_all

    chosen = profiles(args.profile or [one_profile(args).name])
    if args.output == "-" and len(chosen) != 1:
        print("verl-grpo synth: -o - needs exactly one --profile", file=sys.stderr)
        return 2
    if args.output != "-" and (why := unwritable_folder(Path(args.output))):
        print(f"verl-grpo synth: -o {args.output}: {why}", file=sys.stderr)
        return 2
    renderings = synthesize([request(args, p) for p in chosen])
    for r in renderings.values():
        for w in r.warnings:
            print(w.line(), file=sys.stderr)
    if args.output == "-":
        (only,) = renderings.values()
        sys.stdout.write(dump_all([o.manifest for o in only.objects]))
        return 0
    out = Path(args.output)
    try:
        write_tree(out, dist_files(renderings), replace=list(renderings))
    except (
        OSError
    ) as e:  # what the folder refused (a full disk, a filesystem without files): not our temp names
        print(f"verl-grpo synth: -o {args.output}: cannot write there ({e.strerror or e})", file=sys.stderr)
        return 1
    for name, r in renderings.items():
        print(f"wrote {out / name}/ ({len(r.objects)} objects)", file=sys.stderr)
    return 0
