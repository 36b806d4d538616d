"""verl-grpo init: write the user's commented values file for a profile."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..facts.verl_releases import DEFAULT_VERL_VERSION, verl_release, verl_releases
from ..profiles import shipped_profiles
from .flags import Once

if TYPE_CHECKING:
    from ..profiles import Profile

# The flag for each of a profile's user keys (Profile.user_keys); the image's three come from one.
FLAGS = {
    "storage.bucket": "--bucket",
    "cluster.zone": "--zone",
    "cluster.reservation": "--reservation",
    "image.repository": "--image",
}


def add(verbs: argparse._SubParsersAction) -> None:
    p = verbs.add_parser("init", help="write your commented values file (my.yaml) for a profile")
    p.add_argument(
        "--profile",
        action=Once,
        required=True,
        metavar="NAME",
        help="shipped profile: " + ", ".join(s.name for s in shipped_profiles()),
    )
    p.add_argument("--bucket", action=Once, metavar="NAME", help="your GCS bucket (storage.bucket)")
    p.add_argument(
        "--zone", action=Once, metavar="ZONE", help="Autopilot: the GPU nodes' zone (cluster.zone)"
    )
    p.add_argument(
        "--reservation",
        action=Once,
        metavar="NAME",
        help="reservation capacity: its name (cluster.reservation)",
    )
    p.add_argument(
        "--image",
        action=Once,
        metavar="REPOSITORY:TAG",
        help="arm64 GPU nodes (A4X): your multi-arch build of verl's image (image.repository, image.tag)",
    )
    p.add_argument(
        "--verl-version",
        action=Once,
        choices=list(verl_releases()),
        metavar="VERSION",
        help=f"the verl release the run uses (training.verlVersion, default {DEFAULT_VERL_VERSION}), "
        f"and its image (image.tag, ray.version): {', '.join(verl_releases())}",
    )
    p.add_argument(
        "-o",
        "--output",
        default="my.yaml",
        metavar="FILE",
        help="where to write it (default: my.yaml; '-': stdout)",
    )
    p.add_argument("--force", action="store_true", help="replace FILE if it exists")
    p.set_defaults(run=run)


def given_values(args: argparse.Namespace, profile: Profile) -> dict[str, Any]:
    """The user keys the flags give, by dotted key; a flag the profile has no use for is refused."""
    from ..problems import VALUES, Problems, error

    keys = profile.user_keys()
    flagged = {key: getattr(args, flag[2:]) for key, flag in FLAGS.items()}
    wanted = {FLAGS[k] for k in keys if k in FLAGS}
    unused = [FLAGS[k] for k, value in flagged.items() if value is not None and FLAGS[k] not in wanted]
    if unused:
        raise Problems(
            error(
                VALUES,
                flag,
                f"profile {args.profile} has no use for it (it takes: {', '.join(sorted(wanted))})",
            )
            for flag in unused
        )
    given = {k: value for k, value in flagged.items() if k in keys and value is not None}
    if image := given.pop("image.repository", None):
        repository, _, tag = image.rpartition(":")
        if not repository or "/" in tag:
            raise Problems([error(VALUES, "--image", f"{image!r} is not REPOSITORY:TAG")])
        given |= {
            "image.repository": repository,
            "image.tag": tag,
            "image.platforms": profile.image_platforms,
        }
    if args.verl_version:  # with the release's image, unless --image names the user's own build
        release = verl_release(args.verl_version)
        given["training.verlVersion"] = release.version
        if "image.tag" not in given:
            given["image.tag"] = release.image.tag
            if release.image.ray:
                given["ray.version"] = release.image.ray
    return given


def run(args: argparse.Namespace) -> int:
    from ..output.my_values import my_values
    from ..problems import VALUES, Problems, error
    from ..values.loader import deep_merge, load_values, nested
    from .flags import profiles

    (profile,) = profiles([args.profile])
    given = given_values(args, profile)
    load_values(deep_merge(profile.layer(), nested(given)))  # a bad value: one line naming its key
    out = Path(args.output)
    if args.output != "-" and out.exists() and not args.force:
        raise Problems(
            [error(VALUES, "-o", f"{out} exists: choose another FILE or pass --force to replace it")]
        )
    text = my_values(profile, given, "my.yaml" if args.output == "-" else args.output)
    if args.output == "-":
        sys.stdout.write(text)
        return 0
    staged = out.with_name(f".{out.name}.new")  # whole or not at all
    staged.write_text(text)
    staged.replace(out)
    left = [k for k in profile.user_keys() if k not in given]
    tail = f"; fill in {', '.join(left)} before use" if left else ""
    print(f"wrote {out} for {profile.name}{tail}", file=sys.stderr)
    return 0
