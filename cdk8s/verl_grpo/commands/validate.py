"""verl-grpo validate: manifests strictly (Kubernetes schema, CRDs, KubeRay's own rules)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from .flags import output_flag


def add(verbs: argparse._SubParsersAction) -> None:
    p = verbs.add_parser(
        "validate", help="validate manifests strictly (Kubernetes schema, CRDs, operator rules)"
    )
    p.add_argument("paths", nargs="+", type=Path, metavar="PATH", help="files or folders of manifests")
    output_flag(p)
    p.add_argument("--kube-version", default=None, help="Kubernetes minor of the schema (default: 1.34)")
    p.add_argument(
        "--crds",
        action="append",
        type=Path,
        default=None,
        metavar="DIR",
        help=(
            "folder of more CRD YAML; its kinds replace the shipped KubeRay v1.7.0 and GKE networking"
            " ones (repeatable; also $VERL_GRPO_CRDS)"
        ),
    )
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from ..problems import as_json, errors
    from ..validate.builtin import DEFAULT_KUBE_VERSION
    from ..validate.documents import UnreadableInput, read_documents
    from ..validate.validator import ManifestValidator
    from ..working import working

    try:
        validator = ManifestValidator(args.kube_version or DEFAULT_KUBE_VERSION, args.crds)
        docs = read_documents(args.paths)
    except (ValueError, UnreadableInput) as e:
        print(f"verl-grpo validate: {e}", file=sys.stderr)
        return 2
    with working(f"validating {len(docs)} objects"):
        findings = validator.validate(docs)
    failed = errors(findings)
    if args.output == "json":
        print(as_json({"objects": len(docs), "errors": len(failed), "findings": findings}))
    else:
        for f in findings:
            print(f.line())
        print(
            f"{len(docs)} objects, {len(failed)} errors, {len(findings) - len(failed)} warnings",
            file=sys.stderr,
        )
    return 1 if failed else 0
