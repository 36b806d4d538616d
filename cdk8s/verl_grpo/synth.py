"""Values layers in, validated manifests out: the pipeline behind `verl-grpo synth`."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .app import RenderedObject, render
from .values.derive import DeploySpec, Release, deploy_spec
from .values.loader import ValuesError, load_values
from .values.rules import check


@dataclass(frozen=True)
class Request:
    """One rendering: a name (the output folder) and its values layers."""

    name: str
    profile: dict[str, Any] | None = None
    files: tuple[Path, ...] = ()
    sets: tuple[str, ...] = ()
    release: Release = field(default_factory=lambda: Release("verl", "default"))


@dataclass(frozen=True)
class Rendering:
    spec: DeploySpec
    objects: list[RenderedObject]


def synthesize(requests: list[Request]) -> dict[str, Rendering]:
    """Validate every request first, then render all of them in one cdk8s app; raise ValuesError."""
    specs: dict[str, DeploySpec] = {}
    problems: list[str] = []
    for req in requests:
        try:
            spec = deploy_spec(load_values(req.profile, req.files, req.sets), req.release)
        except ValuesError as e:
            problems += [f"{req.name}: {p}" for p in e.problems]
            continue
        problems += [f"{req.name}: {p}" for p in check(spec)]
        specs[req.name] = spec
    if problems:
        raise ValuesError(problems)
    rendered = render(specs)
    return {name: Rendering(specs[name], rendered[name]) for name in specs}
