"""What `verl-grpo submit` sends: the RayJob's own entrypoint and runtime env, checked by Ray first."""

from __future__ import annotations

import secrets
import time
from dataclasses import dataclass

import yaml

from .. import __version__
from ..constructs.runtime_env import compose_entrypoint, entrypoint, runtime_env_yaml
from ..constructs.verl_ray_cluster import ray_cluster_name
from ..validate.ray_runtime_env import unknown_field_problems
from ..values.derive import DeploySpec
from .errors import JobsError


@dataclass(frozen=True)
class Submission:
    submission_id: str
    entrypoint: str
    runtime_env: dict[str, object]
    metadata: dict[str, str]
    cluster: str


def validated_runtime_env(text: str) -> dict[str, object]:
    """The runtime env YAML the RayJob embeds, read the way Ray reads it (RuntimeEnv's own checks)."""
    from ray.runtime_env import RuntimeEnv

    parsed = yaml.safe_load(text)
    if not isinstance(parsed, dict):
        raise JobsError(f"runtime env: not a mapping: {text!r}")
    if unknown := unknown_field_problems(parsed):
        raise JobsError(f"runtime env: {unknown[0][1]}")
    try:
        return RuntimeEnv(**parsed).to_dict()
    except (TypeError, ValueError) as e:
        raise JobsError(f"runtime env refused by Ray: {e}") from e


def default_submission_id(spec: DeploySpec) -> str:
    # Readable in `ray job list`, unique per submit (Ray refuses a reused id).
    stamp = time.strftime("%Y%m%d-%H%M%S", time.gmtime())
    return f"{spec.release.name}-{spec.derived.experiment_name}-{stamp}-{secrets.token_hex(2)}"


def build_submission(spec: DeploySpec, submission_id: str | None, compose_only: bool) -> Submission:
    if spec.values.run.kind != "RayCluster":
        raise JobsError(
            f"run.kind: {spec.values.run.kind!r}; submit needs 'RayCluster' (a RayJob submits itself): "
            "use a *-raycluster profile or -f overlays/<gpu>-<mode>-raycluster/values.yaml"
        )
    cluster = ray_cluster_name(spec)
    return Submission(
        submission_id=submission_id or default_submission_id(spec),
        entrypoint=compose_entrypoint(spec) if compose_only else entrypoint(spec),
        runtime_env=validated_runtime_env(runtime_env_yaml(spec)),
        metadata={
            "verl-grpo": __version__,
            "cluster": cluster,
            "experiment": spec.derived.experiment_name,
            "mode": "compose-only" if compose_only else "train",
        },
        cluster=cluster,
    )
