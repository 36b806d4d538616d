"""validate/ray_runtime_env.py: runtime_env fields against the pinned Ray's own list."""

from __future__ import annotations

import copy

import pytest
import yaml

from verl_grpo.jobs.errors import JobsError
from verl_grpo.jobs.submission import validated_runtime_env
from verl_grpo.validate.documents import Document
from verl_grpo.validate.ray_runtime_env import known_fields, unknown_field_problems
from verl_grpo.validate.validator import ManifestValidator

from ...conftest import REPO


def test_the_fields_are_rays_own() -> None:
    from ray.runtime_env import RuntimeEnv

    assert known_fields() == RuntimeEnv.known_fields


def test_a_misspelt_field_is_refused_with_the_field_meant() -> None:
    ((field, message),) = unknown_field_problems({"env_varz": {"A": "1"}, "pip": ["x"]})
    assert field == "env_varz" and "did you mean 'env_vars'?" in message
    assert unknown_field_problems({"env_vars": {}, "working_dir": "s3://b/x.zip"}) == []


def test_validate_and_submit_both_refuse_it() -> None:
    (path,) = (REPO / "dist" / "h200-standard").glob("rayjob-*.yaml")
    job = yaml.safe_load(path.read_text())
    env = yaml.safe_load(job["spec"]["runtimeEnvYAML"])
    bad = copy.deepcopy(job)
    bad["spec"]["runtimeEnvYAML"] = yaml.safe_dump({"env_varz": env["env_vars"]})
    found = [
        p for p in ManifestValidator().validate([Document("job.yaml", bad)]) if p.rule == "ray-runtime-env"
    ]
    assert [p.key for p in found] == ["spec.runtimeEnvYAML.env_varz"]
    with pytest.raises(JobsError, match="did you mean 'env_vars'"):
        validated_runtime_env(bad["spec"]["runtimeEnvYAML"])
