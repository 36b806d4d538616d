"""Kubernetes NetworkPolicy verdicts from a real evaluator, for tests.

`verdicts` asks the `netpol-engine` program (tools/netpol, built into .venv/bin by `make tools`):
cyclonus's NetworkPolicy matcher (the module version in tools/netpol/go.mod) behind a JSON contract.
For each traffic item it answers whether the destination's ingress policies admit it ("ingress"),
whether the source's egress policies let it out ("egress"), and both ("allowed"), with the policies
that select the pod in each direction ("ingressPolicies", "egressPolicies": "namespace/name"; none
means that side is not isolated). An `ip` endpoint is outside the cluster: only the pod side's
policies apply to it.

The program does what the API server would first: a policy without policyTypes gets the default
(Ingress, plus Egress when it has egress rules), one without a namespace is in "default", every
namespace has the label kubernetes.io/metadata.name=<name>. A pod's `ip` matters only when an ipBlock
rule is checked against it (the engine stops if it is missing then). A port name in a policy refers
to the destination pod's ports: a traffic item's port number is looked up there.
"""

from __future__ import annotations

import ipaddress
import json
import subprocess
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

import pytest

from .conftest import REPO

ENGINE = REPO / ".venv" / "bin" / "netpol-engine"


@dataclass(frozen=True)
class Port:
    port: int
    name: str = ""
    protocol: str = "TCP"


@dataclass(frozen=True)
class Pod:
    name: str
    namespace: str
    labels: Mapping[str, str] = field(default_factory=dict)
    ip: str = ""
    ports: tuple[Port, ...] = ()

    @property
    def ref(self) -> str:
        return f"{self.namespace}/{self.name}"

    def as_json(self) -> dict:
        doc: dict = {"name": self.name, "namespace": self.namespace, "labels": dict(self.labels)}
        if self.ip:
            doc["ip"] = self.ip
        doc["ports"] = [{"name": p.name, "port": p.port, "protocol": p.protocol} for p in self.ports]
        return doc


Endpoint = Pod | str  # a Pod, "namespace/name", or an IP address outside the cluster


def endpoint(e: Endpoint) -> dict:
    if isinstance(e, Pod):
        return {"pod": e.ref}
    try:
        ipaddress.ip_address(e)
    except ValueError:
        return {"pod": e}
    return {"ip": e}


@dataclass(frozen=True)
class Flow:
    """Traffic from `src` to `dst`; `port` may be 0 when `port_name` names a port of the `dst` pod."""

    src: Endpoint
    dst: Endpoint
    port: int = 0
    protocol: str = "TCP"
    port_name: str = ""

    def as_json(self) -> dict:
        doc = {"from": endpoint(self.src), "to": endpoint(self.dst), "protocol": self.protocol}
        if self.port:
            doc["port"] = self.port
        if self.port_name:
            doc["portName"] = self.port_name
        return doc


def document(
    policies: Iterable[dict],
    namespaces: Mapping[str, Mapping[str, str]],
    pods: Iterable[Pod | dict],
    traffic: Iterable[Flow | dict],
) -> dict:
    """The engine's stdin: Pods and Flows as JSON, dicts passed through as they are."""
    return {
        "policies": list(policies),
        "namespaces": {ns: dict(labels) for ns, labels in namespaces.items()},
        "pods": [p.as_json() if isinstance(p, Pod) else p for p in pods],
        "traffic": [t.as_json() if isinstance(t, Flow) else t for t in traffic],
    }


def run_engine(doc: dict) -> subprocess.CompletedProcess:
    if not ENGINE.exists():
        pytest.fail(f"{ENGINE} missing: run `make tools`")
    return subprocess.run(
        [str(ENGINE)], input=json.dumps(doc), capture_output=True, text=True, check=False, timeout=60
    )


def verdicts(
    policies: Iterable[dict],
    namespaces: Mapping[str, Mapping[str, str]],
    pods: Iterable[Pod | dict],
    traffic: Iterable[Flow | dict],
) -> list[dict]:
    """One {"allowed", "ingress", "egress", "ingressPolicies", "egressPolicies"} per item, in order.

    pytest.fail with the engine's message when it rejects the input.
    """
    doc = document(policies, namespaces, pods, traffic)
    done = run_engine(doc)
    if done.returncode != 0:
        pytest.fail(f"netpol-engine rejected its input (exit {done.returncode}): {done.stderr.strip()}")
    results = json.loads(done.stdout)["results"]
    assert len(results) == len(doc["traffic"]), done.stdout
    return results


def engine_error(
    policies: Iterable[dict],
    namespaces: Mapping[str, Mapping[str, str]],
    pods: Iterable[Pod | dict],
    traffic: Iterable[Flow | dict],
) -> str:
    """The engine's message for input it must reject (fails the test if it answers instead)."""
    done = run_engine(document(policies, namespaces, pods, traffic))
    if done.returncode == 0:
        pytest.fail(f"netpol-engine accepted input it should reject: {done.stdout.strip()}")
    return done.stderr.strip()


def allowed(results: list[dict]) -> list[bool]:
    return [r["allowed"] for r in results]


def network_policy(name: str, namespace: str, spec: dict) -> dict:
    return {
        "apiVersion": "networking.k8s.io/v1",
        "kind": "NetworkPolicy",
        "metadata": {"name": name, "namespace": namespace},
        "spec": spec,
    }
