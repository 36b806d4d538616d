"""verl-grpo check: the training settings against verl's own rules, per shipped profile."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from ..problems import Problem
from .flags import (
    ONE_PROFILE,
    one_profile,
    output_flag,
    profiles,
    profiles_flag,
    spec,
    values_flags,
)


def add(verbs: argparse._SubParsersAction) -> None:
    p = verbs.add_parser("check", help="check the training settings with verl's own rules")
    profiles_flag(p, f"shipped profile (repeatable; default: {ONE_PROFILE})")
    values_flags(p)
    p.add_argument(
        "--cluster-crds",
        type=argparse.FileType("r"),
        default=None,
        metavar="FILE",
        help="the cluster's KubeRay CRDs ('-': stdin), as `kubectl get crd rayclusters.ray.io "
        "rayjobs.ray.io -o yaml` prints them: refuse a kuberay.version they do not belong to",
    )
    p.add_argument(
        "--cluster-pools",
        type=argparse.FileType("r"),
        default=None,
        metavar="FILE",
        help="the GPU pools scripts/40-rdma.sh recorded ('-': stdin), as `kubectl get configmap "
        "verl-grpo-pools -n kube-public -o json` prints them: refuse worker groups whose nodes no "
        "recorded pool makes",
    )
    output_flag(p)
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from ..plan import memory_estimate, memory_problems
    from ..problems import Problems, as_json, errors
    from ..rules.cluster_pools import pool_problems
    from ..verl_check import training_problems

    cluster_crds = None if args.cluster_crds is None else _crd_docs(args.cluster_crds.read())
    pool_records = None if args.cluster_pools is None else _pool_records(args.cluster_pools.read())
    report: dict[str, list[Problem]] = {}
    verls: dict[str, str] = {}  # each profile's training.verlVersion, for its verdict
    for profile in profiles(args.profile or [one_profile(args).name]):
        try:
            deploy = spec(args, profile)
        except Problems as e:  # the values' own problems: in the JSON report, or on stderr as any verb's
            if args.output != "json":
                raise
            report[profile.name] = e.problems
            continue
        verls[profile.name] = f"verl {deploy.values.training.verl_version}: "
        # plan's memory warning too: a run that will not fit its GPUs is a problem of its settings.
        memory = memory_problems(deploy, memory_estimate(deploy))
        problems = [*training_problems(deploy), *memory]
        if cluster_crds is not None:
            problems += _kuberay_problems(deploy.values.kuberay.version, cluster_crds)
        if pool_records is not None:
            problems += pool_problems(deploy, pool_records)
        report[profile.name] = [p.at(profile.name) for p in problems]
    if args.output == "json":
        print(as_json(report))
    else:
        for name, problems in report.items():
            for p in problems:
                print(p.line())
            verdict = "ok" if not problems else f"{len(problems)} problem(s)"
            print(f"{name}: {verls.get(name, '')}{verdict}", file=sys.stderr)
    return 1 if any(errors(ps) for ps in report.values()) else 0


def _yaml(flag: str, text: str) -> list[dict[str, Any]]:
    """The documents of a flag's file; one line naming the flag and where, if not YAML."""
    import yaml

    from ..problems import VALUES, Problems, error
    from ..values.loader import yaml_error

    try:
        docs = [d for d in yaml.safe_load_all(text) if d]
    except yaml.YAMLError as e:
        raise Problems([error(VALUES, flag, f"not valid YAML: {yaml_error(e)}")]) from e
    if not all(isinstance(d, dict) for d in docs):
        raise Problems([error(VALUES, flag, "not a YAML mapping (what kubectl -o yaml or -o json prints)")])
    return docs


def _crd_docs(text: str) -> list[object]:
    """`kubectl get crd A B -o yaml` prints a List of the CRDs; a file of plain CRDs works too."""
    docs = _yaml("--cluster-crds", text)
    return [i for d in docs for i in (d.get("items", []) if d.get("kind") == "List" else [d])]


def _kuberay_problems(version: str, docs: list[object]) -> list[Problem]:
    from ..facts.kuberay_crds import mismatch
    from ..problems import RULES

    why = mismatch(docs, version)
    return (
        []
        if why is None
        else [Problem("error", RULES, "kuberay.version", why, rule="kuberay-matches-cluster")]
    )


def _pool_records(text: str) -> list[tuple[str, str, dict[str, str]]]:
    from ..rules.cluster_pools import records_of

    docs = _yaml("--cluster-pools", text)
    return records_of(docs[0] if docs else {})
