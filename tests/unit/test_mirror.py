"""The unit tier mirrors the package: the test of `x/y.py` is `tests/unit/x/test_y.py`. The
modules below have none yet (their tests are in the tiers beside it, most of them because they go
through Helm's `--set` parser, helm or a local Ray): the list only shrinks, and a new module comes
with its unit test."""

from __future__ import annotations

from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "cdk8s" / "verl_grpo"
UNIT = Path(__file__).resolve().parent

NOT_YET = (
    "chart/files.py",
    "chart/helpers.py",
    "cli.py",
    "commands/check.py",
    "commands/env.py",
    "commands/flags.py",
    "commands/generate.py",
    "commands/jobs.py",
    "commands/plan.py",
    "commands/schema.py",
    "commands/synth.py",
    "commands/validate.py",
    "constructs/app.py",
    "constructs/assembly.py",
    "constructs/grpo_ray_job.py",
    "constructs/log_shipper_sidecar.py",
    "constructs/network_policy.py",
    "constructs/pod_security.py",
    "constructs/preflight_script.py",
    "constructs/runtime_env.py",
    "constructs/training_identity.py",
    "facts/capacity.py",
    "facts/kuberay.py",
    "facts/kuberay_crds.py",
    "facts/kueue.py",
    "facts/machines.py",
    "facts/networks.py",
    "facts/node_fit.py",
    "facts/pins.py",
    "facts/quantity.py",
    "facts/verl_placement.py",
    "facts/versions.py",
    "jobs/commands.py",
    "jobs/errors.py",
    "jobs/ray_token.py",
    "jobs/run_logs.py",
    "jobs/verbs.py",
    "node_runtime.py",
    "output/atomic.py",
    "output/dist.py",
    "output/overlays.py",
    "output/package.py",
    "pipeline.py",
    "plan/gpu_memory.py",
    "pod/checkpoint_guard.py",
    "pod/preflight.py",
    "postmortem/causes.py",
    "postmortem/classify.py",
    "problems.py",
    "profiles.py",
    "rules/cross_rules.py",
    "rules/expressions.py",
    "shell_env.py",
    "validate/crds.py",
    "validate/findings.py",
    "validate/operator_rules.py",
    "validate/results.py",
    "validate/set_rules.py",
    "validate/shell_command.py",
    "validate/validator.py",
    "values/derive.py",
    "values/gke_versions.py",
    "values/helm_yaml.py",
    "values/model.py",
    "values/schema.py",
    "verl_check/config.py",
    "verl_check/rules.py",
    "verl_check/steps.py",
    "working.py",
    "yaml_io.py",
)


def modules() -> list[str]:
    return sorted(
        str(p.relative_to(PACKAGE))
        for p in PACKAGE.rglob("*.py")
        if p.name != "__init__.py" and "__pycache__" not in p.parts
    )


def test_every_module_has_its_unit_test_or_is_listed_as_not_yet():
    without = [m for m in modules() if not (UNIT / Path(m).parent / f"test_{Path(m).name}").exists()]
    assert without == list(NOT_YET), "a module gained a unit test (drop it from NOT_YET) or lacks one"
