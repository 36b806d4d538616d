"""Check verl training settings with the rules verl applies at start-up and worker init."""

from __future__ import annotations

from ..constructs.runtime_env import all_overrides
from ..problems import Problem
from ..values.derive import DeploySpec
from ..values.quantity import parse_quantity
from .config import compose
from .rules import check


def training_problems(spec: DeploySpec, verl_version: str) -> list[Problem]:
    cfg = compose(verl_version, all_overrides(spec))
    return check(cfg, ray_cpus_per_node=float(parse_quantity(spec.derived.worker_cpu)))
