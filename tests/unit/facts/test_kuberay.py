"""facts/kuberay.py: the supported KubeRay operators and what each one knows."""

from __future__ import annotations

import re

import pytest

from verl_grpo.facts.kuberay import (
    AUTH_SECRET_SINCE,
    DASHBOARD_PORT,
    DEFAULT_VERSION,
    RAYJOB_FIELD_SINCE,
    VERSION_PATTERN,
)
from verl_grpo.facts.kuberay_crds import fields_of
from verl_grpo.pipeline import load_spec
from verl_grpo.problems import Problems
from verl_grpo.values.model import Values

from ...conftest import objects_of_kind, render_one


@pytest.mark.parametrize(
    ("version", "supported"),
    [
        ("1.4.0", True),
        ("1.7.9999", True),
        ("1.6.1", True),
        ("1.3.2", False),  # below the supported minors
        ("1.8.0", False),  # above them
        ("1.6.01", False),  # a leading zero is not semver
        ("1.6.10000", False),  # the bounded patch number
        ("v1.6.1", False),
    ],
)
def test_the_version_pattern_takes_the_supported_minors_only(version: str, supported: bool) -> None:
    """1.4 to 1.7, plain x.y.z with a bounded patch number."""
    assert bool(re.match(VERSION_PATTERN, version)) is supported


def test_the_default_version_is_supported_and_is_the_values_default() -> None:
    """kuberay.version defaults to DEFAULT_VERSION, which its own pattern accepts."""
    assert re.match(VERSION_PATTERN, DEFAULT_VERSION)
    assert Values().kuberay.version == DEFAULT_VERSION


def test_each_since_version_is_the_release_whose_crds_gain_the_field() -> None:
    """Cross-checked with the CRD fields of each release (data/kuberay-crd-fields.json): the field
    is absent from the last release before `since` and present from `since` on."""
    paths = {f"rayjobs.spec.{field}": since for field, since in RAYJOB_FIELD_SINCE.items()}
    paths["rayclusters.spec.authOptions.secretName"] = AUTH_SECRET_SINCE
    for path, since in paths.items():
        assert since == "1.6.0"  # the module's source: absent at v1.5.1, present at v1.6.0
        assert path in fields_of(since) and path in fields_of("1.7.0")
        assert path not in fields_of("1.5.1"), path


def test_pre_running_deadline_is_rendered_only_for_operators_that_know_it() -> None:
    """An older operator's CRD would prune the field silently: it is not rendered for 1.5.1."""
    (new,) = objects_of_kind(render_one("kuberay.version=1.6.1"), "RayJob")
    (old,) = objects_of_kind(render_one("kuberay.version=1.5.1"), "RayJob")
    assert "preRunningDeadlineSeconds" in new["spec"]
    assert "preRunningDeadlineSeconds" not in old["spec"]


def test_sidecar_mode_is_refused_before_the_operator_that_added_it() -> None:
    """SidecarMode is absent at v1.4.2 and present at v1.5.0 (SUBMISSION_MODE_SINCE)."""
    load_spec({"kuberay": {"version": "1.5.0"}, "job": {"submissionMode": "SidecarMode"}}, deploying=False)
    with pytest.raises(Problems) as refused:
        load_spec(
            {"kuberay": {"version": "1.4.2"}, "job": {"submissionMode": "SidecarMode"}}, deploying=False
        )
    assert [p.rule for p in refused.value.problems] == ["sidecar-mode-needs-kuberay"]


def test_the_head_serves_and_the_policy_opens_ray_s_dashboard_port() -> None:
    """8265 is Ray's default --dashboard-port, which KubeRay's operator polls for job status."""
    assert DASHBOARD_PORT == 8265
    r = render_one()
    (job,) = objects_of_kind(r, "RayJob")
    head = job["spec"]["rayClusterSpec"]["headGroupSpec"]["template"]["spec"]["containers"][0]
    assert {"containerPort": DASHBOARD_PORT, "name": "dashboard"} in head["ports"]
    (policy,) = objects_of_kind(r, "NetworkPolicy")
    opened = [port["port"] for rule in policy["spec"]["ingress"] for port in rule.get("ports", [])]
    assert DASHBOARD_PORT in opened
