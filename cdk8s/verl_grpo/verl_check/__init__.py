"""Check verl training settings with the rules verl applies at start-up and worker init."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from ..problems import Problem

if TYPE_CHECKING:
    from ..values.derive import DeploySpec


def training_problems(spec: DeploySpec) -> list[Problem]:
    """verl's rules at the values' release (training.verlVersion) on the config the run composes."""
    from ..constructs.runtime_env import all_overrides, hydra_settings
    from ..facts.quantity import parse_quantity
    from .config import compose
    from .rules import check

    cfg = compose(spec.values.training.verl_version, all_overrides(spec))
    problems = check(cfg, ray_cpus_per_node=float(parse_quantity(spec.derived.worker_cpu)))
    # A verl key the kit sets from a values key is reported under the values key (what the user
    # edits), the verl key second; one the user's training.extraArgs set stays a verl key.
    user_set = {_override_key(arg) for arg in spec.values.training.extra_args}
    values_key_of = {
        key: values_key for key, _, values_key in hydra_settings(spec) if values_key and key not in user_set
    }
    return [_in_values_terms(p, values_key_of.get(p.key)) for p in problems]


def _in_values_terms(problem: Problem, values_key: str | None) -> Problem:
    if values_key is None:
        return problem
    return replace(problem, key=values_key, message=f"(verl {problem.key}) {problem.message}")


def _override_key(arg: str) -> str:
    """Hydra's `key=value`, `+key=value`, `++key=value` or `~key`: the key."""
    return arg.lstrip("+~").split("=", 1)[0]
