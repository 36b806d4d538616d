"""validate/builtin.py: built-in kinds against Kubernetes' schema, with what kubernetes-validate's
copy leaves out: enum fields (from the API server's own OpenAPI) and quantities."""

from __future__ import annotations

import pytest

from verl_grpo.validate.builtin import is_quantity
from verl_grpo.validate.documents import Document
from verl_grpo.validate.validator import ManifestValidator


def pod(**spec: object) -> Document:
    container = {"name": "c", "image": "x", **spec.pop("container", {})}  # type: ignore[dict-item]
    body = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "p"},
        "spec": {"containers": [container], **spec},
    }
    return Document("pod.yaml", body)


def errors(doc: Document) -> list[str]:
    return [f"{p.key}: {p.message}" for p in ManifestValidator().validate([doc]) if p.severity == "error"]


@pytest.mark.parametrize(
    ("spec", "key"),
    [
        ({"restartPolicy": "Sometimes"}, "spec.restartPolicy"),
        ({"container": {"imagePullPolicy": "Maybe"}}, "spec.containers[0].imagePullPolicy"),
        ({"dnsPolicy": "clusterfirst"}, "spec.dnsPolicy"),
    ],
)
def test_enum_fields_take_only_their_values(spec, key) -> None:
    (error,) = errors(pod(**spec))
    assert error.startswith(f"{key}: ") and "is not one of" in error


@pytest.mark.parametrize("amount", ["1", "500m", "1.5Gi", "2e3", ".5", "+1Ki", 4, 0.25])
def test_quantities_kubernetes_parses_pass(amount) -> None:
    assert is_quantity(amount)
    assert errors(pod(container={"resources": {"requests": {"cpu": amount}}})) == []


@pytest.mark.parametrize("amount", ["lots", "1GB", "1.5 Gi", "1Gi2", "", "--1"])
def test_quantities_kubernetes_refuses_fail(amount) -> None:
    (error,) = errors(pod(container={"resources": {"limits": {"memory": amount}}}))
    assert error.startswith("spec.containers[0].resources.limits.memory: ") and "kubernetes-quantity" in error


@pytest.mark.parametrize(
    ("kind", "name", "ok"),
    [
        ("ConfigMap", "verl.preflight", True),  # a DNS-1123 subdomain
        ("Service", "verl.preflight", False),  # a Service name is a DNS-1035 label
        ("Service", "1verl", False),
        ("Service", "verl-head", True),
        ("Namespace", "a" * 64, False),  # a DNS-1123 label: 63 at most
        ("Namespace", "a" * 63, True),
        ("ConfigMap", "Verl", False),
    ],
)
def test_names_are_checked_per_kind_as_the_api_server_does(kind, name, ok) -> None:
    body = {"apiVersion": "v1", "kind": kind, "metadata": {"name": name}}
    if kind == "Service":
        body["spec"] = {"ports": [{"port": 80}]}
    found = [
        p for p in ManifestValidator().validate([Document("x.yaml", body)]) if p.rule == "k8s-object-meta"
    ]
    assert (found == []) == ok, [p.line() for p in found]
