"""Values layers in, validated manifests out: the pipeline behind `verl-grpo synth`."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from . import VERL_VERSION
from .app import RenderedObject, render
from .validate.documents import Document
from .validate.findings import Finding
from .validate.validator import ManifestValidator
from .values.derive import DeploySpec, Release, deploy_spec
from .values.loader import ValuesError, load_values
from .values.rules import check
from .verl_check import training_problems


@dataclass(frozen=True)
class Request:
    """One rendering: a name (the output folder) and its values layers."""

    name: str
    profile: dict[str, Any] | None = None
    files: tuple[Path, ...] = ()
    sets: tuple[str, ...] = ()
    release: Release = field(default_factory=lambda: Release("verl", "default"))
    verl_version: str = VERL_VERSION
    check_verl: bool = True  # False: verl itself judges the overrides (`submit --compose-only`)


@dataclass(frozen=True)
class Rendering:
    spec: DeploySpec
    objects: list[RenderedObject]
    warnings: list[str] = field(default_factory=list)


def synthesize(requests: list[Request]) -> dict[str, Rendering]:
    """Validate every request first, then render all of them in one cdk8s app; raise ValuesError."""
    specs: dict[str, DeploySpec] = {}
    problems: list[str] = []
    warnings: dict[str, list[str]] = {}
    for req in requests:
        try:
            spec = deploy_spec(load_values(req.profile, req.files, req.sets), req.release)
        except ValuesError as e:
            problems += [f"{req.name}: {p}" for p in e.problems]
            continue
        problems += [f"{req.name}: {p}" for p in check(spec)]
        specs[req.name] = spec
        if not problems and req.check_verl:
            for p in training_problems(spec, req.verl_version):
                (problems if p.severity == "error" else warnings.setdefault(req.name, [])).append(
                    f"{req.name}: {p.line().split(': ', 1)[1]}"
                )
    if problems:
        raise ValuesError(problems)
    rendered = render(specs)
    problems = [f"{name}: {f.object} {f.path}: {f.message} [{f.rule}]" for name, f in _invalid(rendered)]
    if problems:
        raise ValuesError(["rendered output is invalid (a bug in verl-grpo; please report):", *problems])
    return {name: Rendering(specs[name], rendered[name], warnings.get(name, [])) for name in specs}


def _invalid(rendered: dict[str, list[RenderedObject]]) -> list[tuple[str, Finding]]:
    """Strict validation of what we are about to write. Without CRDs at hand, custom resources
    are checked by the operator rules only (their unknown-kind finding is not an error here)."""
    validator = ManifestValidator(unknown_kind_severity="warning")
    out = []
    for name, objects in rendered.items():
        docs = [Document(f"{name}/{o.key}", o.manifest) for o in objects]
        out += [(name, f) for f in validator.validate(docs) if f.severity == "error"]
    return out
