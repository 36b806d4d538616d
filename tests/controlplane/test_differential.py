"""Differential validation: `verl-grpo validate` against the real API server's verdict.

Every object the validation tests use (each shipped profile's objects, and each planted defect of
tests/validate/test_validator.py) goes through the validator and through `kubectl apply --server-side
--dry-run=server --validate=strict`. Where the verdicts differ, the difference is either a failing
test or an entry of KNOWN_DIFFERENCES with its reason.
"""

from __future__ import annotations

import copy
import json
import subprocess
from typing import Any

import pytest
import yaml

from verl_grpo.validate.documents import Document
from verl_grpo.validate.validator import ManifestValidator

from ..validate.test_validator import DEFECTS, with_networks
from .cluster import ControlPlane

pytestmark = pytest.mark.controlplane
# a4x-standard: DRA on the real server (the ResourceClaimTemplate, resource.k8s.io/v1; the pod's
# claims; NVIDIA's ComputeDomain, whose pinned CRD the tier installs).
PROFILES = ["h200-standard", "b200-autopilot", "h200-standard-raycluster", "a4x-standard"]

# Rules that live outside the API server: the operator, GKE's controllers, the kubelet, our own
# conventions. The server accepts such objects; the validator refuses them on purpose.
OUTSIDE_THE_API_SERVER = {
    "kuberay-name-length": "KubeRay checks name lengths in its controller (utils/validation.go)",
    "kuberay-name-dns1035": "KubeRay checks names in its controller",
    "kuberay-submission-mode": "the CRD's enum is checked by the server only from KubeRay 1.7's CRD",
    "kuberay-ttl-needs-shutdown": "KubeRay's ValidateRayJobSpec, at reconcile time",
    "kuberay-replica-bounds": "KubeRay's controller",
    "kuberay-start-params-strings": "rayStartParams is a string map in the CRD: the server refuses it too",
    "kuberay-entrypoint-one-command": "a shell-level fact about KubeRay's submitter, not a schema",
    "ray-runtime-env": "Ray parses runtimeEnvYAML when the job is submitted",
    "tp-divides-node": "verl and vLLM refuse it when the workers start, GPUs allocated",
    "gke-interfaces-json": "GKE's multi-network webhook, absent here",
    "gke-interfaces-network": "GKE's multi-network webhook, absent here",
    "gke-capacity-selectors": "selectors that match no node: the scheduler leaves the pod Pending",
    "node-fit": "the scheduler leaves the pod Pending",
    "placeholder": "a valid string to the server",
    "csi-volume-handle-unique": "kubelet skips the second mount",
    "kuberay-operator-blocked": "network reachability, not validity",
    "cluster-scoped-namespace": "the server drops it silently; kept as an error because tools that "
    "compare manifests with live objects (Argo CD, helm diff) would show a diff forever",
}
# Rules the API server enforces as well: a difference here is a bug on one side.
SERVER_RULES = {"k8s-schema", "crd-schema", "k8s-object-meta", "crd-list-map-keys", "crd-cel", "unknown-kind"}


def server_verdict(cp: ControlPlane, body: dict[str, Any], namespace: str) -> str:
    """'' when the server would accept the object, else its message."""
    done = subprocess.run(
        [
            str(cp.kubectl_path),
            "--kubeconfig",
            str(cp.kubeconfig),
            "apply",
            "--server-side",
            "--dry-run=server",
            "--validate=strict",
            "--field-manager=differential",
            "-n",
            namespace,
            "-f",
            "-",
        ],
        input=yaml.safe_dump(body),
        capture_output=True,
        text=True,
        check=False,
    )
    return "" if done.returncode == 0 else (done.stderr.strip() or done.stdout.strip())


@pytest.fixture(scope="module")
def validator() -> ManifestValidator:
    return ManifestValidator()


@pytest.fixture(scope="module")
def networking_crds(control_plane: ControlPlane) -> None:
    from ..helpers.module_files import gke_networking_crds

    for crd in sorted(gke_networking_crds().glob("*.yaml")):
        control_plane.kubectl("apply", "--server-side", "-f", str(crd))
    control_plane.kubectl("wait", "--for=condition=Established", "crd", "--all", "--timeout=60s")


def ours(validator: ManifestValidator, body: dict[str, Any], context: list[dict[str, Any]]) -> list[str]:
    docs = [Document("object", body), *(Document(f"ctx{i}", c) for i, c in enumerate(context))]
    return sorted(
        {f.rule for f in validator.validate(docs) if f.severity == "error" and f.source == "object"}
    )


@pytest.mark.parametrize("profile", PROFILES)
def test_every_shipped_object_is_accepted_by_both(control_plane, networking_crds, validator, profile) -> None:
    objects = with_networks(profile)
    for body in objects:
        assert ours(validator, body, []) == [], body["metadata"]["name"]
        verdict = server_verdict(control_plane, body, "default")
        assert verdict == "", f"{body['kind']}/{body['metadata']['name']}: {verdict}"


@pytest.mark.parametrize(("name", "base", "mutate", "rule", "path"), DEFECTS, ids=[d[0] for d in DEFECTS])
def test_planted_defects_agree_with_the_server(
    control_plane, networking_crds, validator, name, base, mutate, rule, path
) -> None:
    profile, kind = base
    body = copy.deepcopy(next(d for d in with_networks(profile) if d["kind"] == kind))
    mutate(body)
    networks = [d for d in with_networks(profile) if d["kind"] == "Network"]
    rules = ours(validator, body, networks)
    assert rule in rules
    verdict = server_verdict(control_plane, body, "default")
    server_rules = set(rules) & SERVER_RULES
    if server_rules:
        assert verdict, f"we refuse it ({', '.join(sorted(server_rules))}); the API server accepts it"
    elif verdict:
        pytest.fail(f"the API server refuses what we call only {rules}: {verdict}")
    else:
        assert all(r in OUTSIDE_THE_API_SERVER for r in rules), json.dumps(rules)
