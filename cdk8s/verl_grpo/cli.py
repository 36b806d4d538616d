"""verl-grpo VERB [flags]: stdout carries results, stderr diagnostics; exit 0 ok, 1 invalid input, 2 usage."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from .jobs.errors import JobsError
from .jobs.verbs import JOB_VERBS, add_job_verbs
from .profiles import find_profile, shipped_profiles
from .values.derive import Release
from .values.loader import ValuesError

EXIT_INVALID = 1


def _values_flags(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "-f",
        "--values",
        action="append",
        type=Path,
        default=[],
        metavar="FILE",
        help="values file (repeatable; later files win)",
    )
    p.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="set a value, as helm --set (repeatable)",
    )
    p.add_argument(
        "--set-string",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="set a value as a string, as helm --set-string (repeatable)",
    )
    p.add_argument("--release-name", default="verl", help="release name used in object names (default: verl)")
    p.add_argument("-n", "--namespace", default="default", help="namespace of namespaced objects")


def _profile_flag(p: argparse.ArgumentParser, help: str) -> None:
    p.add_argument("--profile", action="append", default=[], metavar="NAME", help=help)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="verl-grpo", description=__doc__)
    verbs = parser.add_subparsers(dest="verb", required=True)

    synth = verbs.add_parser("synth", help="render manifests for shipped profiles or your values")
    _profile_flag(
        synth,
        "shipped profile to render (repeatable; default: all): "
        + ", ".join(p.name for p in shipped_profiles()),
    )
    _values_flags(synth)
    synth.add_argument(
        "-o",
        "--output",
        default="dist",
        metavar="DIR",
        help="write DIR/<profile>/ (default: dist); '-' prints one profile to stdout",
    )

    generate = verbs.add_parser(
        "generate",
        help="write everything generated: dist/ (all profiles + chart archive), charts/, overlays/",
    )
    generate.add_argument("--root", default=".", type=Path, help="repository root (default: .)")

    check = verbs.add_parser("check", help="check the training settings with verl's own rules")
    _profile_flag(check, "shipped profile (repeatable; default: all)")
    _values_flags(check)
    check.add_argument("--verl-version", default=None, help="verl version the job runs (default: the kit's)")
    check.add_argument("-o", "--output", choices=["text", "json"], default="text")

    plan = verbs.add_parser("plan", help="what a run will use and do: requests, batches, memory, cost")
    plan.add_argument("--profile", default="b200-standard", metavar="NAME", help="shipped profile")
    _values_flags(plan)
    plan.add_argument("--verl-version", default=None, help="verl version the job runs (default: the kit's)")
    plan.add_argument(
        "--gpu-hour-price", type=float, default=None, metavar="PRICE", help="price of one GPU-hour"
    )
    plan.add_argument("-o", "--output", choices=["text", "json"], default="text")

    env = verbs.add_parser("env", help="print the shell variables the scripts/ read (from the same values)")
    env.add_argument(
        "--profile", default="b200-standard", metavar="NAME", help="shipped profile (default: b200-standard)"
    )
    _values_flags(env)
    env.add_argument(
        "--network-base",
        default=None,
        metavar="CIDR",
        help="range the 9 subnets are cut from as /24s (default: 10.100.0.0/16)",
    )

    validate = verbs.add_parser(
        "validate", help="validate manifests strictly (Kubernetes schema, CRDs, operator rules)"
    )
    validate.add_argument("paths", nargs="+", type=Path, metavar="PATH", help="files or folders of manifests")
    validate.add_argument("-o", "--output", choices=["text", "json"], default="text")
    validate.add_argument(
        "--kube-version", default=None, help="Kubernetes minor of the schema (default: 1.34)"
    )
    validate.add_argument(
        "--crds",
        action="append",
        type=Path,
        default=None,
        metavar="DIR",
        help="folder of CRD YAML (repeatable; default: $VERL_GRPO_CRDS or ../shared/crds)",
    )

    verbs.add_parser("schema", help="print values.schema.json")
    add_job_verbs(verbs, _values_flags)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        if args.verb == "synth":
            return _synth(args)
        if args.verb == "generate":
            return _generate(args.root)
        if args.verb == "validate":
            return _validate(args)
        if args.verb == "check":
            return _check(args)
        if args.verb == "env":
            return _env(args)
        if args.verb == "plan":
            return _plan(args)
        if args.verb in JOB_VERBS:
            from .jobs.commands import run_job_verb

            return run_job_verb(args, _submit_spec)
        if args.verb == "schema":
            from .values.schema import values_schema

            print(json.dumps(values_schema(), indent=2))
            return 0
    except ValuesError as e:
        for line in e.problems:
            print(f"error: {one_line(line)}", file=sys.stderr)
        return EXIT_INVALID
    except JobsError as e:
        print(f"verl-grpo {args.verb}: {one_line(str(e))}", file=sys.stderr)
        return EXIT_INVALID
    except Exception as e:  # noqa: BLE001 - one line, never a traceback; the fuzz tests keep this unused
        print(f"verl-grpo: internal error: {type(e).__name__}: {e} (please report)", file=sys.stderr)
        return EXIT_INVALID
    return 2


def one_line(text: str) -> str:
    """Input can put newlines or control characters into a message: show them escaped."""
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)


def _check(args: argparse.Namespace) -> int:
    from . import VERL_VERSION
    from .values.derive import deploy_spec
    from .values.loader import load_values
    from .values.rules import check
    from .verl_check import training_problems
    from .verl_check.config import supported_versions

    version = args.verl_version or VERL_VERSION
    if version not in supported_versions():
        print(
            f"verl-grpo check: --verl-version {version!r}; allowed: {', '.join(supported_versions())}",
            file=sys.stderr,
        )
        return 2
    release = Release(args.release_name, args.namespace)
    report, failed = {}, False
    for profile in _profiles(args.profile):
        spec = deploy_spec(load_values(profile.layer(), args.values, _sets(args)), release)
        kit = check(spec)
        if kit:
            raise ValuesError([f"{profile.name}: {p}" for p in kit])
        problems = training_problems(spec, version)
        failed |= any(p.severity == "error" for p in problems)
        report[profile.name] = problems
    if args.output == "json":
        print(json.dumps({name: [p.as_dict() for p in ps] for name, ps in report.items()}, indent=2))
    else:
        for name, problems in report.items():
            for p in problems:
                print(one_line(f"{name}: {p.line()}"))
            print(
                f"{name}: verl {version}: {'ok' if not problems else f'{len(problems)} problem(s)'}",
                file=sys.stderr,
            )
    return EXIT_INVALID if failed else 0


def _plan(args: argparse.Namespace) -> int:
    from . import VERL_VERSION
    from .plan import make_plan, render_text
    from .values.derive import deploy_spec
    from .values.loader import load_values
    from .values.rules import check
    from .verl_check import training_problems

    (profile,) = _profiles([args.profile])
    spec = deploy_spec(
        load_values(profile.layer(), args.values, _sets(args)), Release(args.release_name, args.namespace)
    )
    kit = check(spec)
    if kit:
        raise ValuesError([f"{profile.name}: {p}" for p in kit])
    version = args.verl_version or VERL_VERSION
    plan = make_plan(spec, training_problems(spec, version), args.gpu_hour_price, version)
    sys.stdout.write(
        json.dumps(plan.as_dict(), indent=2) + "\n" if args.output == "json" else render_text(plan)
    )
    return 0


def _env(args: argparse.Namespace) -> int:
    from .shell_env import DEFAULT_NETWORK_BASE, render_env, shell_env
    from .values.derive import deploy_spec
    from .values.loader import load_values

    (profile,) = _profiles([args.profile])
    spec = deploy_spec(
        load_values(profile.layer(), args.values, _sets(args)), Release(args.release_name, args.namespace)
    )
    try:
        env = shell_env(spec, profile, args.network_base or DEFAULT_NETWORK_BASE)
    except ValueError as e:
        raise ValuesError([str(e)]) from e
    sys.stdout.write(render_env(env))
    return 0


def _submit_spec(args: argparse.Namespace):  # noqa: ANN202 - DeploySpec
    """The values `submit` sends, checked as synth checks them (a run refused here costs no GPU);
    --compose-only leaves the verl rules to the image's verl itself."""
    from .synth import Request, synthesize

    (profile,) = _profiles([args.profile])
    release = Release(args.release_name, args.namespace)
    request = Request(
        profile.name,
        profile.layer(),
        tuple(args.values),
        _sets(args),
        release,
        check_verl=not args.compose_only,
    )
    (rendering,) = synthesize([request]).values()
    for line in rendering.warnings:
        print(f"warning: {line}", file=sys.stderr)
    return rendering.spec


def _profiles(names: list[str]) -> list:
    chosen = names or [p.name for p in shipped_profiles()]
    unknown = [n for n in chosen if find_profile(n) is None]
    if unknown:
        allowed = ", ".join(p.name for p in shipped_profiles())
        raise ValuesError([f"--profile: {n!r} is not a shipped profile; allowed: {allowed}" for n in unknown])
    return [find_profile(n) for n in chosen]


def _validate(args: argparse.Namespace) -> int:
    from .validate.builtin import DEFAULT_KUBE_VERSION
    from .validate.documents import UnreadableInput, read_documents
    from .validate.validator import ManifestValidator

    try:
        validator = ManifestValidator(args.kube_version or DEFAULT_KUBE_VERSION, args.crds)
        docs = read_documents(args.paths)
    except (ValueError, UnreadableInput) as e:
        print(f"verl-grpo validate: {e}", file=sys.stderr)
        return 2
    findings = validator.validate(docs)
    errors = [f for f in findings if f.severity == "error"]
    if args.output == "json":
        report = {"objects": len(docs), "errors": len(errors), "findings": [f.as_dict() for f in findings]}
        print(json.dumps(report, indent=2))
    else:
        for f in findings:
            print(one_line(f.line()))
        print(
            f"{len(docs)} objects, {len(errors)} errors, {len(findings) - len(errors)} warnings",
            file=sys.stderr,
        )
    return EXIT_INVALID if errors else 0


def _sets(args: argparse.Namespace) -> tuple[str, ...]:
    # Helm applies --set before --set-string; both after -f files.
    from .values.loader import SET_STRING

    return (*args.set, *(SET_STRING + s for s in args.set_string))


def _synth(args: argparse.Namespace) -> int:
    from .render.atomic import write_tree
    from .render.yaml_io import dump_all
    from .synth import Request, synthesize

    profiles = _profiles(args.profile)
    if args.output == "-" and len(profiles) != 1:
        print("verl-grpo synth: -o - needs exactly one --profile", file=sys.stderr)
        return 2
    release = Release(args.release_name, args.namespace)
    requests = [Request(p.name, p.layer(), tuple(args.values), _sets(args), release) for p in profiles]
    renderings = synthesize(requests)
    for r in renderings.values():
        for line in r.warnings:
            print(f"warning: {line}", file=sys.stderr)
    if args.output == "-":
        (only,) = renderings.values()
        sys.stdout.write(dump_all([o.manifest for o in only.objects]))
        return 0
    out = Path(args.output)
    write_tree(out, dist_files(renderings), replace=list(renderings))
    for name, r in renderings.items():
        print(f"wrote {out / name}/ ({len(r.objects)} objects)", file=sys.stderr)
    return 0


def _generate(root: Path) -> int:
    """Everything in one process: render and validate all of it first, then swap each tree in."""
    from . import __version__
    from .render.atomic import write_tree
    from .render.chart import chart_files
    from .render.overlays import overlay_files
    from .render.package import chart_archive
    from .synth import Request, synthesize
    from .values.derive import CHART_NAME

    renderings = synthesize([Request(p.name, p.layer()) for p in shipped_profiles()])
    chart = chart_files()
    archive = f"{CHART_NAME}-{__version__}.tgz"
    dist = {**dist_files(renderings), archive: chart_archive(CHART_NAME, chart.files)}
    old_archives = [p.name for p in (root / "dist").glob(f"{CHART_NAME}-*.tgz")]
    write_tree(root / "dist", dist, replace=[*renderings, *old_archives])
    write_tree(root / "charts" / CHART_NAME, chart.files)
    write_tree(root / "overlays", overlay_files())
    print(
        f"wrote dist/ ({len(renderings)} profiles, {archive}), charts/{CHART_NAME}/ "
        f"({chart.template_count} templates), overlays/",
        file=sys.stderr,
    )
    return 0


def dist_files(renderings: dict) -> dict[str, str | bytes]:
    from .render.dist import profile_files

    return {
        f"{name}/{rel}": content
        for name, r in renderings.items()
        for rel, content in profile_files(r.spec, r.objects).items()
    }


if __name__ == "__main__":
    sys.exit(main())
