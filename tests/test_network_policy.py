"""The release's NetworkPolicy, judged by a real NetworkPolicy engine (tests/netpol_engine.py) for
every pair of pods that matters: who may reach the Ray pods, and whom they may reach."""

from __future__ import annotations

import pytest

from .conftest import objects_of_kind
from .netpol_engine import verdicts

NS = "default"  # the shipped renderings' namespace
RELEASE = {"app.kubernetes.io/name": "verl-grpo", "app.kubernetes.io/instance": "verl"}
OTHER_RELEASE = {"app.kubernetes.io/name": "verl-grpo", "app.kubernetes.io/instance": "other"}
NAMESPACES = {
    NS: {"kubernetes.io/metadata.name": NS},
    "kuberay-system": {"kubernetes.io/metadata.name": "kuberay-system"},
    "kube-system": {"kubernetes.io/metadata.name": "kube-system"},
    "attacker": {"kubernetes.io/metadata.name": "attacker"},
}
RAY_PORTS = [
    {"name": "dashboard", "port": 8265, "protocol": "TCP"},
    {"name": "gcs-server", "port": 6379, "protocol": "TCP"},
    {"name": "client", "port": 10001, "protocol": "TCP"},
]
PODS = [
    {
        "name": "head",
        "namespace": NS,
        "labels": {**RELEASE, "ray.io/node-type": "head"},
        "ip": "10.8.0.10",
        "ports": RAY_PORTS,
    },
    {
        "name": "worker",
        "namespace": NS,
        "labels": {**RELEASE, "ray.io/node-type": "worker"},
        "ip": "10.8.1.11",
        "ports": [],
    },
    {
        "name": "submitter",
        "namespace": NS,
        "labels": {**RELEASE, "app.kubernetes.io/component": "submitter"},
        "ip": "10.8.0.12",
        "ports": [],
    },
    {"name": "neighbour", "namespace": NS, "labels": {"app": "notebook"}, "ip": "10.8.0.13", "ports": []},
    {
        "name": "other-head",
        "namespace": NS,
        "labels": {**OTHER_RELEASE, "ray.io/node-type": "head"},
        "ip": "10.8.0.14",
        "ports": RAY_PORTS,
    },
    {
        "name": "operator",
        "namespace": "kuberay-system",
        "labels": {"app.kubernetes.io/name": "kuberay-operator"},
        "ip": "10.8.2.2",
        "ports": [],
    },
    {
        "name": "kube-dns",
        "namespace": "kube-system",
        "labels": {"k8s-app": "kube-dns"},
        "ip": "10.8.3.3",
        "ports": [{"name": "dns", "port": 53, "protocol": "UDP"}],
    },
    {
        "name": "intruder",
        "namespace": "attacker",
        "labels": {"app": "x"},
        "ip": "10.8.4.4",
        "ports": [{"name": "https", "port": 443, "protocol": "TCP"}],
    },
]


def pod(name: str) -> dict:
    return {"pod": f"{next(p['namespace'] for p in PODS if p['name'] == name)}/{name}"}


# (from, to, port, protocol, allowed, why)
CASES = [
    # ingress to the head
    (pod("worker"), pod("head"), 6379, "TCP", True, "a worker joins GCS"),
    (pod("submitter"), pod("head"), 8265, "TCP", True, "the RayJob's submitter runs ray job submit"),
    (pod("operator"), pod("head"), 8265, "TCP", True, "the operator polls job status"),
    (pod("operator"), pod("head"), 6379, "TCP", False, "the operator needs nothing but the dashboard"),
    (pod("neighbour"), pod("head"), 8265, "TCP", False, "another pod of the namespace cannot submit code"),
    (pod("neighbour"), pod("head"), 6379, "TCP", False, "nor reach GCS"),
    (pod("other-head"), pod("head"), 8265, "TCP", False, "another release's pods are strangers"),
    (pod("intruder"), pod("head"), 8265, "TCP", False, "nor any other namespace"),
    (pod("head"), pod("worker"), 10002, "TCP", True, "Ray's worker ports, NCCL's bootstrap"),
    # egress from the Ray pods
    (pod("worker"), pod("kube-dns"), 53, "UDP", True, "cluster DNS"),
    (pod("worker"), {"ip": "169.254.20.10"}, 53, "UDP", True, "NodeLocal DNSCache"),
    (
        pod("worker"),
        {"ip": "169.254.169.254"},
        53,
        "UDP",
        True,
        "Cloud DNS for GKE, without NodeLocal DNSCache",
    ),
    (pod("worker"), {"ip": "169.254.169.254"}, 53, "TCP", True, "Cloud DNS over TCP"),
    (pod("worker"), {"ip": "169.254.169.254"}, 80, "TCP", True, "the metadata server (Workload Identity)"),
    (pod("worker"), {"ip": "169.254.169.252"}, 988, "TCP", True, "gke-metadata-server on Dataplane V2"),
    (pod("worker"), {"ip": "142.250.64.91"}, 443, "TCP", True, "storage.googleapis.com"),
    (pod("worker"), {"ip": "142.250.64.91"}, 80, "TCP", False, "nothing but HTTPS outside"),
    (pod("worker"), pod("intruder"), 443, "TCP", False, "HTTPS inside the cluster's ranges is not outside"),
    (pod("worker"), pod("other-head"), 8265, "TCP", False, "nor another release's dashboard"),
    (pod("head"), {"ip": "10.96.0.1"}, 443, "TCP", False, "nor the Kubernetes API (no token, no need)"),
]


@pytest.fixture(scope="module")
def policies(shipped):
    return objects_of_kind(shipped["h200-standard"], "NetworkPolicy")


def test_every_pair_that_matters(policies):
    traffic = [{"from": a, "to": b, "port": port, "protocol": proto} for a, b, port, proto, _, _ in CASES]
    found = verdicts(policies, NAMESPACES, PODS, traffic)
    wrong = [
        f"{why}: {a} -> {b}:{port}/{proto} expected {'allowed' if ok else 'denied'}"
        for (a, b, port, proto, ok, why), v in zip(CASES, found, strict=True)
        if v["allowed"] != ok
    ]
    assert not wrong, "\n".join(wrong)
