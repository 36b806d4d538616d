"""verl-grpo generate: everything generated (dist/, the chart, the overlays), from one process."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path


def add(verbs: argparse._SubParsersAction) -> None:
    p = verbs.add_parser(
        "generate",
        help="write everything generated: dist/ (all profiles + chart archive), charts/, overlays/",
    )
    p.add_argument(
        "--root",
        default=None,
        type=Path,
        help="where to write (default: the current folder, a verl-grpo checkout)",
    )
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Render and validate all of it first, then swap the three trees in together."""
    from .. import __version__
    from ..chart.files import chart_files
    from ..output.atomic import TreeWrite, write_trees
    from ..output.dist import dist_files, dist_layer
    from ..output.overlays import overlay_files
    from ..output.package import chart_archive
    from ..pipeline import Request, synthesize
    from ..profiles import shipped_profiles
    from ..values.derive import CHART_NAME
    from ..working import working

    root: Path = args.root or Path(".")
    if args.root is None and not ((root / "cdk8s.yaml").is_file() and (root / "charts").is_dir()):
        print(
            f"verl-grpo generate: {root.resolve()} is not a verl-grpo checkout (no cdk8s.yaml and charts/); "
            "run it at the repository root, or pass --root DIR to write elsewhere",
            file=sys.stderr,
        )
        return 2
    profiles = shipped_profiles()
    with working(f"rendering and validating {len(profiles)} profiles"):
        requests = [Request(p.name, dist_layer(p)) for p in profiles]
        renderings = synthesize(requests)
    with working("writing the chart, dist/ and overlays/"):
        chart = chart_files()
        archive = f"{CHART_NAME}-{__version__}.tgz"
        dist = {**dist_files(renderings), archive: chart_archive(CHART_NAME, chart.files)}
        old_archives = [p.name for p in (root / "dist").glob(f"{CHART_NAME}-*.tgz")]
        trees = {
            "dist": TreeWrite(dist, replace=[*renderings, *old_archives]),
            f"charts/{CHART_NAME}": TreeWrite(chart.files),
            "overlays": TreeWrite(overlay_files()),
        }
        written = write_trees(root, trees)
    described = {
        "dist": f"dist/ ({len(renderings)} profiles, {archive})",
        f"charts/{CHART_NAME}": f"charts/{CHART_NAME}/ ({chart.template_count} templates)",
        "overlays": "overlays/",
    }
    if written:
        print("wrote " + ", ".join(described[t] for t in written), file=sys.stderr)
    if current := [described[t] for t in trees if t not in written]:
        print(", ".join(current) + " already current: left as they were", file=sys.stderr)
    return 0
