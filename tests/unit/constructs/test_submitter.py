"""The RayJob's entrypoint inside KubeRay's submitter: one `ray job submit` carrying the whole run.

The submitter's bash line is rebuilt as each supported KubeRay version builds it
(tests/kuberay_submitter.py), then read by a bash grammar and run by a real bash whose PATH holds
only recording stand-ins: whatever the line would execute in the submitter pod is recorded.
"""

from __future__ import annotations

import json
import shlex
from pathlib import Path

import pytest
import yaml

from verl_grpo.validate.shell_command import parse

from ...conftest import REPO
from ...kuberay_submitter import COMMAND, run_recorded, submitter_args

JOB_PROFILES = [p.name for p in (REPO / "dist").iterdir() if p.is_dir() and not p.name.endswith("raycluster")]
KUBERAY = [(1, 4), (1, 6), (1, 7)]
DASHBOARD = "verl-grpo-001-x7k2p-head-svc.default.svc.cluster.local:8265"
JOB_ID = "verl-grpo-001-4mnz2"


def ray_job(profile: str) -> dict:
    (path,) = (REPO / "dist" / profile).glob("rayjob-*.yaml")
    return yaml.safe_load(path.read_text())


def run_submitter(args: str, tmp_path: Path) -> list[list[str]]:
    return run_recorded([*COMMAND[:2], args], tmp_path)  # /bin/bash -ce <args>


@pytest.mark.parametrize("kuberay", KUBERAY, ids=[f"kuberay-{a}.{b}" for a, b in KUBERAY])
@pytest.mark.parametrize("profile", JOB_PROFILES)
def test_the_submitter_submits_the_whole_run_once(profile, kuberay, tmp_path):
    spec = ray_job(profile)["spec"]
    args = submitter_args(kuberay, DASHBOARD, JOB_ID, spec)
    entrypoint = shlex.split(spec["entrypoint"].replace("\\\n", " "))
    assert entrypoint[-1] == "trainer.resume_mode=auto"  # the training run ends the entrypoint

    # Read by bash's grammar: exactly one `ray job submit`, the whole entrypoint after its `--`.
    parsed = parse(args)
    assert not parsed.error
    submits = [c for c in parsed.commands if c[:3] == ["ray", "job", "submit"]]
    assert len(submits) == 1
    (submit,) = submits
    assert submit[submit.index("--") + 1 :] == entrypoint

    # Run by bash: the submitter pod starts ray (and KubeRay 1.7's health probe), nothing else.
    calls = run_submitter(args, tmp_path)
    programs = [c[0] for c in calls]
    assert programs == ["python"] * (kuberay >= (1, 7)) + ["ray", "ray", "ray"]
    status, submitted, logs = calls[-3:]
    assert status[1:3] == ["job", "status"] and logs[1:4] == ["job", "logs", "--address"]
    assert submitted[submitted.index("--") + 1 :] == entrypoint
    env = json.loads(submitted[submitted.index("--runtime-env-json") + 1])
    assert env == yaml.safe_load(spec["runtimeEnvYAML"])


def test_the_old_entrypoint_ran_verl_in_the_submitter_pod(tmp_path):
    """Guards the test above: the `preflight && verl` entrypoint of before really splits."""
    spec = ray_job("h200-standard")["spec"]
    spec["entrypoint"] = spec["entrypoint"].replace(" -- \\\n  python3 -m", " && \\\n  python3 -m", 1)
    calls = run_submitter(submitter_args((1, 6), DASHBOARD, JOB_ID, spec), tmp_path)
    assert [c[0] for c in calls] == ["ray", "ray", "python3", "ray"]  # verl ran where the submitter runs
    submitted = calls[1]
    # Ray got only the pre-flight: `... --nccl-gate-timeout 300`, its last flag
    assert submitted[-2:] == ["--nccl-gate-timeout", "300"]
