"""The one pipeline every verb goes through: values layers -> checked spec -> objects -> validated.

`load_spec` is the only way to a DeploySpec (synth, check, plan, env, submit, cdk8s's main.py);
`synthesize` adds verl's rules, renders and validates the output.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .problems import VALIDATE, Problem, Problems, errors
from .rules.check import check
from .values.derive import DeploySpec, Release, deploy_spec
from .values.loader import load_values

if TYPE_CHECKING:
    from .constructs.assembly import RenderedObject

DEFAULT_RELEASE = Release("verl", "default")  # the CLI's defaults: --release-name verl -n default


def load_spec(
    profile: dict[str, Any] | None,
    files: Iterable[Path] = (),
    sets: Iterable[str] = (),
    release: Release = DEFAULT_RELEASE,
    deploying: bool = True,
) -> DeploySpec:
    """Defaults, the profile layer, `-f` files, `--set`s (helm's order), checked by the schema and
    the kit's rules (`deploying` False: not the deploy-only ones, for verbs that only judge the
    run); raises Problems with every problem found."""
    spec = deploy_spec(load_values(profile, files, sets), release)
    problems = check(spec, deploying)
    if problems:
        raise Problems(problems)
    return spec


@dataclass(frozen=True)
class Request:
    """One rendering: a name (the output folder) and its values layers."""

    name: str
    profile: dict[str, Any] | None = None
    files: tuple[Path, ...] = ()
    sets: tuple[str, ...] = ()
    release: Release = DEFAULT_RELEASE
    check_verl: bool = True  # False: verl itself judges the overrides (`submit --compose-only`)
    deploying: bool = True  # False: not the deploy-only rules (`submit` to a running RayCluster)


@dataclass(frozen=True)
class Rendering:
    spec: DeploySpec
    objects: list[RenderedObject]
    warnings: list[Problem] = field(default_factory=list)


def synthesize(requests: list[Request]) -> dict[str, Rendering]:
    """Check every request first, then render all of them in one cdk8s app; raise Problems."""
    from .verl_check import training_problems

    specs: dict[str, DeploySpec] = {}
    problems: list[Problem] = []
    warnings: dict[str, list[Problem]] = {}
    for req in requests:
        try:
            specs[req.name] = load_spec(req.profile, req.files, req.sets, req.release, req.deploying)
        except Problems as e:
            problems += e.at(req.name).problems
            continue
        if not problems and req.check_verl:
            found = [p.at(req.name) for p in training_problems(specs[req.name])]
            problems += errors(found)
            warnings[req.name] = [p for p in found if p.severity != "error"]
    if problems:
        raise Problems(problems)
    from .constructs.app import render

    rendered = render(specs)
    problems = _invalid(rendered)
    if problems:  # the rules let through values whose objects the API server would refuse
        bug = Problem("error", VALIDATE, "", "rendered output is invalid (a bug in verl-grpo; please report)")
        raise Problems([bug, *problems])
    return {name: Rendering(specs[name], rendered[name], warnings.get(name, [])) for name in specs}


def _invalid(rendered: dict[str, list[RenderedObject]]) -> list[Problem]:
    """Strict validation of what we are about to write. Without CRDs at hand, custom resources
    are checked by the operator rules only (their unknown-kind finding is not an error here); the
    shipped dist/'s placeholders are written on purpose (output/dist.py), under a banner."""
    from .validate import DEFAULT_KUBE_VERSION, results
    from .validate.documents import Document
    from .validate.operator_rules import DIST_PLACEHOLDER_RULE

    docs = [Document(f"{name}/{o.key}", o.manifest) for name, objects in rendered.items() for o in objects]

    def validate() -> tuple[int, list[Problem]]:
        from .validate.validator import ManifestValidator

        return len(docs), ManifestValidator(unknown_kind_severity="warning").validate(docs)

    texts = [json.dumps([d.source, d.body], sort_keys=True) for d in docs]
    crd_dirs = results.default_crd_dirs()
    found = results.findings(texts, (DEFAULT_KUBE_VERSION, "warning"), crd_dirs, validate)[1]
    return errors([f for f in found if f.rule != DIST_PLACEHOLDER_RULE])
