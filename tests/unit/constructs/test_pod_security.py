"""constructs/pod_security.py: the Ray pods' hardening, and the scanner exceptions that travel with
the objects as checkov skip annotations."""

from __future__ import annotations

import re

import pytest

from verl_grpo.constructs.pod_security import (
    BATCH_EXCEPTIONS,
    COMMON_EXCEPTIONS,
    HEAD_CONTAINER_SECURITY,
    NAMESPACED_EXCEPTIONS,
    WORKER_CONTAINER_SECURITY,
    WORKER_EXCEPTIONS,
    hardened_pod,
    skip_annotations,
)

from ...conftest import pods, render_one

ALL_EXCEPTIONS = [COMMON_EXCEPTIONS, WORKER_EXCEPTIONS, BATCH_EXCEPTIONS, NAMESPACED_EXCEPTIONS]


def test_skip_annotations_number_each_exception_from_one_and_read_back() -> None:
    """checkov's Kubernetes skip format: `checkov.io/skip<N>: <CHECK>=<reason>`, N from 1."""
    annotations = skip_annotations(WORKER_EXCEPTIONS)
    assert sorted(annotations) == sorted(f"checkov.io/skip{i}" for i in range(1, len(WORKER_EXCEPTIONS) + 1))
    assert dict(value.split("=", 1) for value in annotations.values()) == WORKER_EXCEPTIONS
    assert skip_annotations({}) == {}


@pytest.mark.parametrize("exceptions", ALL_EXCEPTIONS)
def test_every_exception_names_a_kubernetes_check_and_a_one_line_reason(exceptions: dict[str, str]) -> None:
    """An exception without a reason, or not a checkov Kubernetes check id, would hide a finding
    unexplained."""
    for check, reason in exceptions.items():
        assert re.fullmatch(r"CKV_K8S_\d+", check)
        assert reason.strip() and "\n" not in reason, check


def test_workers_keep_the_default_capabilities_but_raw_sockets_and_say_why() -> None:
    """The head drops every capability; the workers (NCCL over RDMA verbs) drop NET_RAW only, and
    only their exceptions accept checkov's capability check. Neither may escalate."""
    for security in (HEAD_CONTAINER_SECURITY, WORKER_CONTAINER_SECURITY):
        assert security["allowPrivilegeEscalation"] is False
        assert "add" not in security["capabilities"]
    assert HEAD_CONTAINER_SECURITY["capabilities"]["drop"] == ["ALL"]
    assert WORKER_CONTAINER_SECURITY["capabilities"]["drop"] == ["NET_RAW"]
    capability_check = "CKV_K8S_37"
    assert capability_check in WORKER_EXCEPTIONS
    assert capability_check not in COMMON_EXCEPTIONS and capability_check not in BATCH_EXCEPTIONS


def test_a_job_gives_its_own_reasons_for_having_no_probes() -> None:
    """KubeRay's injected probes excuse the Ray pods, not a run-to-completion Job."""
    for probe_check in ("CKV_K8S_8", "CKV_K8S_9"):
        assert "KubeRay" in COMMON_EXCEPTIONS[probe_check]
        assert "KubeRay" not in BATCH_EXCEPTIONS[probe_check]
    assert NAMESPACED_EXCEPTIONS.items() <= COMMON_EXCEPTIONS.items()


def test_every_ray_pod_is_hardened_without_an_api_token() -> None:
    """The pods as rendered: no service account token, the runtime's default seccomp profile, the
    head's and the workers' container settings, and their skip annotations."""
    assert hardened_pod("sa") == {
        "serviceAccountName": "sa",
        "automountServiceAccountToken": False,
        "securityContext": {"seccompProfile": {"type": "RuntimeDefault"}},
    }
    for name, pod in pods(render_one()):
        spec = pod["spec"]
        assert spec["automountServiceAccountToken"] is False, name
        assert spec["securityContext"]["seccompProfile"] == {"type": "RuntimeDefault"}, name
        expected = HEAD_CONTAINER_SECURITY if name == "head" else WORKER_CONTAINER_SECURITY
        assert spec["containers"][0]["securityContext"] == expected, name
        exceptions = COMMON_EXCEPTIONS if name == "head" else WORKER_EXCEPTIONS
        skips = {k: v for k, v in pod["metadata"]["annotations"].items() if k.startswith("checkov.io/")}
        assert skips == skip_annotations(exceptions), name
