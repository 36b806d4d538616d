"""Validate documents: schema (built-in or CRD), scope, then the operator's and GKE's own rules."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from jsonschema import ValidationError

from ..problems import Problem
from . import DEFAULT_KUBE_VERSION, builtin, crds, operator_rules, set_rules
from .documents import Document
from .findings import dotted, finding
from .results import default_crd_dirs

CLUSTER_SCOPED_BUILTINS = {
    "Namespace",
    "Node",
    "PersistentVolume",
    "ClusterRole",
    "ClusterRoleBinding",
    "StorageClass",
    "CustomResourceDefinition",
    "PriorityClass",
    "IngressClass",
    "RuntimeClass",
    "CSIDriver",
    "VolumeAttachment",
    "APIService",
    "ValidatingWebhookConfiguration",
    "MutatingWebhookConfiguration",
}
MESSAGE_LIMIT = 240


class ManifestValidator:
    def __init__(
        self,
        kube_version: str = DEFAULT_KUBE_VERSION,
        crd_dirs: list[Path] | None = None,
        unknown_kind_severity: str = "error",
    ):
        if kube_version not in builtin.supported_versions():
            allowed = ", ".join(builtin.supported_versions())
            raise ValueError(f"--kube-version {kube_version!r} is not supported; allowed: {allowed}")
        self.kube_version = kube_version
        self.crd_dirs = default_crd_dirs() if crd_dirs is None else crd_dirs
        self.custom = crds.load_crds(self.crd_dirs)
        self.unknown_kind_severity = unknown_kind_severity

    def validate(self, docs: list[Document]) -> list[Problem]:
        networks: set[str] = {
            str((d.body.get("metadata") or {}).get("name"))
            for d in docs
            if isinstance(d.body, dict) and d.body.get("kind") == "Network"
        }
        findings: list[Problem] = []
        for doc in docs:
            findings += self._one(doc, networks or None)
        for i, severity, path, rule, message in set_rules.set_findings([d.body for d in docs]):
            findings.append(finding(severity, docs[i].source, _label(docs[i].body), path, rule, message))
        return findings

    def _one(self, doc: Document, networks: set[str] | None) -> list[Problem]:
        body = doc.body
        if not isinstance(body, dict) or not body.get("apiVersion") or not body.get("kind"):
            return [finding("error", doc.source, "(document)", "", "not-an-object", "no apiVersion/kind")]
        meta = body.get("metadata") or {}
        label = _label(body)
        out: list[Problem] = []

        def add(severity: str, path: str, rule: str, message: str) -> None:
            if len(message) > MESSAGE_LIMIT:
                message = message[: MESSAGE_LIMIT - 3] + "..."
            out.append(finding(severity, doc.source, label, path, rule, message))

        api_version, kind = body["apiVersion"], body["kind"]
        custom = self.custom.get((api_version, kind))
        validator = None if custom else builtin.validator_for(self.kube_version, api_version, kind)
        cluster_scoped = False  # unknown kinds: scope unknown, not checked
        if custom is not None:
            prepared = crds.prepare(custom.schema, body)
            for error in custom.validator.iter_errors(prepared):
                add("error", *_schema_error(error, "crd-schema"))
            for error in builtin.object_meta_validator(self.kube_version).iter_errors(meta):
                add("error", *_schema_error(error, "k8s-object-meta", prefix=("metadata",)))
            for path, rule, message in crds.list_and_cel_problems(custom.schema, prepared):
                add("error", path, rule, message)
            cluster_scoped = not custom.namespaced
        elif validator is not None:
            for error in validator.iter_errors(body):
                add("error", *_schema_error(error, "k8s-schema"))
            cluster_scoped = kind in CLUSTER_SCOPED_BUILTINS
        else:
            crd_dirs = ", ".join(
                [
                    "the package's KubeRay v1.7.0, GKE networking, Kueue v0.19.2 and NVIDIA DRA "
                    "driver v25.12.0",
                    *map(str, self.crd_dirs),
                ]
            )
            add(
                self.unknown_kind_severity,
                "",
                "unknown-kind",
                f"{api_version} {kind} is neither a Kubernetes {self.kube_version} kind nor a known CRD "
                f"(CRDs from: {crd_dirs})",
            )
        name = meta.get("name")
        what, pattern, most = NAMES.get(kind, SUBDOMAIN) if validator is not None else SUBDOMAIN
        if isinstance(name, str) and name and (len(name) > most or not pattern.match(name)):
            add(
                "error",
                "metadata.name",
                "k8s-object-meta",
                f"{name!r} is not a {what} (at most {most} characters)",
            )
        if cluster_scoped and "namespace" in meta:
            add(
                "error",
                "metadata.namespace",
                "cluster-scoped-namespace",
                f"{kind} is cluster-scoped: remove it",
            )
        for rule_set in (
            operator_rules.placeholder_rules(body),
            operator_rules.ray_rules(body),
            operator_rules.interface_rules(body, networks),
            operator_rules.fit_rules(body),
            operator_rules.entrypoint_rules(body),
            operator_rules.capacity_rules(body),
        ):
            for severity, path, rule, message in rule_set:
                add(severity, path, rule, message)
        return out


DNS1123_SUBDOMAIN = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$")
DNS1123_LABEL = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$")
# The name each kind's validation asks for (ValidateObjectMeta's nameFn): a DNS-1123 subdomain
# for most, custom resources included (apiextensions-apiserver pkg/registry/customresource/
# validator.go); stricter for these (kubernetes@v1.36.3 pkg/apis/core/validation/validation.go
# ValidateServiceName, ValidateNamespaceName; pkg/apis/apps/validation ValidateStatefulSetName).
SUBDOMAIN = ("DNS-1123 subdomain", DNS1123_SUBDOMAIN, 253)
NAMES = {
    "Service": ("DNS-1035 label", operator_rules.DNS1035, 63),
    "Namespace": ("DNS-1123 label", DNS1123_LABEL, 63),
    "StatefulSet": ("DNS-1123 label", DNS1123_LABEL, 63),
}


def _label(body: dict[str, Any]) -> str:
    meta = body.get("metadata") or {}
    return "/".join(p for p in (body["kind"], meta.get("namespace", ""), str(meta.get("name", "?"))) if p)


def _schema_error(error: ValidationError, rule: str, prefix: tuple = ()) -> tuple[str, str, str]:
    path: tuple[Any, ...] = (*prefix, *error.absolute_path)
    if error.validator == "additionalProperties" and isinstance(error.instance, dict):
        allowed = set(error.schema.get("properties") or {})
        unknown = sorted(set(error.instance) - allowed)
        if unknown:
            return (
                dotted((*path, unknown[0])),
                rule,
                f"unknown field {unknown[0]!r}"
                + (f" (and {', '.join(map(repr, unknown[1:]))})" if unknown[1:] else ""),
            )
    return dotted(path), rule, error.message
