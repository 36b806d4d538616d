"""verl-grpo validate: manifests strictly (Kubernetes schema, CRDs, KubeRay's own rules)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..validate import DEFAULT_KUBE_VERSION
from .flags import output_flag


def add(verbs: argparse._SubParsersAction) -> None:
    p = verbs.add_parser(
        "validate", help="validate manifests strictly (Kubernetes schema, CRDs, operator rules)"
    )
    p.add_argument("paths", nargs="+", type=Path, metavar="PATH", help="files or folders of manifests")
    output_flag(p)
    p.add_argument(
        "--kube-version",
        default=None,
        help=f"Kubernetes minor of the schema (default: {DEFAULT_KUBE_VERSION})",
    )
    p.add_argument(
        "--crds",
        action="append",
        type=Path,
        default=None,
        metavar="DIR",
        help=(
            "folder of more CRD YAML; its kinds replace the shipped KubeRay v1.7.0, GKE networking, "
            "NVIDIA DRA driver and Kueue ones (repeatable; also $VERL_GRPO_CRDS)"
        ),
    )
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from ..problems import as_json, errors
    from ..validate import results
    from ..validate.documents import UnreadableInput, parse, read_sources
    from ..working import working

    kube_version = args.kube_version or DEFAULT_KUBE_VERSION
    crd_dirs = results.default_crd_dirs() if args.crds is None else args.crds

    def validate() -> tuple[int, list]:
        from ..validate.validator import ManifestValidator

        validator = ManifestValidator(kube_version, crd_dirs)
        docs = parse(sources)
        with working(f"validating {len(docs)} objects"):
            return len(docs), validator.validate(docs)

    try:
        sources = read_sources(args.paths)
        texts = [f"{root}\0{name}\0{text}" for root, files in sources for name, text in files]
        objects, findings = results.findings(texts, (kube_version, "error"), crd_dirs, validate)
    except (ValueError, UnreadableInput) as e:
        print(f"verl-grpo validate: {e}", file=sys.stderr)
        return 2
    failed = errors(findings)
    if args.output == "json":
        print(as_json({"objects": objects, "errors": len(failed), "findings": findings}))
    else:
        for f in findings:
            print(f.line())
        print(
            f"{objects} objects, {len(failed)} errors, {len(findings) - len(failed)} warnings",
            file=sys.stderr,
        )
    return 1 if failed else 0
