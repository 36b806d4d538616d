"""The one way our constructs create Kubernetes objects."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from ..values.derive import DeploySpec
from ..values.kueue import KUEUE_API
from .pod_security import skip_annotations

if TYPE_CHECKING:
    from constructs import Construct

# Argo CD sync waves: a wave is applied only once every object of the waves before it is healthy
# (argoproj/gitops-engine pkg/sync/sync_context.go), and a Job is healthy only when it has
# completed (pkg/health/health_job.go). So every object the data-prep Job uses comes first, the
# Job next, and the Ray run (which needs the Job's data) last. Flux ignores waves: the pre-flight's
# wait covers it there.
WAVE_PREREQUISITES = "-2"
WAVE_DATA = "-1"
WAVE_RUN = "1"
SYNC_WAVE = "argocd.argoproj.io/sync-wave"
SPEC_DEFINE = ".spec"  # `<template>.spec` holds a spec whose digest `<template>.digest` gives

# apiVersion and scope (namespaced?) of each kind the kit writes: Kubernetes' API reference,
# KubeRay's CRDs (../shared/crds, ray.io/v1), and GKE's multi-network CRDs, whose Network and
# GKENetworkParamSet are cluster-scoped (networking.gke.io/v1, ../shared/crds; GKE docs
# cloud.google.com/kubernetes-engine/docs/how-to/setup-multinetwork-support-for-pods).
KINDS = {
    "ServiceAccount": ("v1", True),
    "ConfigMap": ("v1", True),
    "PersistentVolumeClaim": ("v1", True),
    "PersistentVolume": ("v1", False),
    "Job": ("batch/v1", True),
    "NetworkPolicy": ("networking.k8s.io/v1", True),
    "RayJob": ("ray.io/v1", True),
    "RayCluster": ("ray.io/v1", True),
    "Network": ("networking.gke.io/v1", False),
    "GKENetworkParamSet": ("networking.gke.io/v1", False),
    # Kueue v0.19.2 (values/kueue.py): only the LocalQueue is namespaced.
    "LocalQueue": (KUEUE_API, True),
    "ClusterQueue": (KUEUE_API, False),
    "ResourceFlavor": (KUEUE_API, False),
    "Topology": (KUEUE_API, False),
    "AdmissionCheck": (KUEUE_API, False),
    "ProvisioningRequestConfig": (KUEUE_API, False),
    # DRA (GA in Kubernetes 1.34) and NVIDIA's DRA driver (constructs/device_claims.py).
    "ResourceClaimTemplate": ("resource.k8s.io/v1", True),
    "ComputeDomain": ("resource.nvidia.com/v1beta1", True),
}


class Recorder:
    """A scope in which constructs keep their manifests in Python instead of handing them to
    cdk8s. The chart's templates come from every variant's rendering (32 then, ~900 objects):
    through jsii (a round trip per call, 3 calls an object) that took 1.4 s, recorded 0.2 s.

    A manifest is what cdk8s 2.70's ApiObject.toJson makes of the same call (lib/api-object.js,
    lib/metadata.js, lib/_util.js sanitizeValue): apiVersion, kind, the metadata with the chart's
    labels, keys sorted and null or empty fields dropped, then the body as given (JSON patches).
    tests/constructs/test_base.py holds recorded == synthesized for every shipped profile.
    """

    def __init__(self, labels: dict[str, str]) -> None:
        self.labels = labels

    def manifest(self, api_version: str, kind: str, metadata: dict[str, Any], body: dict[str, Any]) -> dict:
        meta = _sanitized({**metadata, "labels": {**self.labels, **(metadata.get("labels") or {})}})
        # Through JSON, as jsii passes it: no subtree shared between objects or within one (a
        # shared dict would become a YAML anchor in dist/, and a later edit would change both).
        return json.loads(json.dumps({"apiVersion": api_version, "kind": kind, "metadata": meta, **body}))


def _sanitized(value: Any) -> Any:
    if isinstance(value, dict):
        out = {k: _sanitized(value[k]) for k in sorted(value) if value[k] is not None}
        return {k: v for k, v in out.items() if not (isinstance(v, dict | list) and len(v) == 0)}
    return value


def _construct(scope: Construct, id: str) -> Construct:
    from constructs import Construct  # jsii's: only on the cdk8s path (app.py)

    return Construct(scope, id)


class ManifestConstruct:
    """A part of the chart: adds its objects and records them (key, kind) in creation order.

    In a cdk8s scope it owns a construct there, under which its ApiObjects go; the app reads all
    manifests with one `Chart.to_json()` and pairs them with these keys, instead of walking the
    construct tree through jsii (one round trip per call). In a Recorder it keeps its manifests.
    """

    def __init__(self, scope: Construct | Recorder, id: str, namespace: str) -> None:
        self.recorder = scope if isinstance(scope, Recorder) else None
        self.scope = None if self.recorder else _construct(scope, id)
        self.manifests: list[dict[str, Any]] = []  # in a Recorder
        self.construct_id = id
        self.namespace = namespace  # of the namespaced objects it adds
        self.object_keys: list[tuple[str, str]] = []
        # Subtrees the chart keeps in named templates: object key -> {path/in/object: define name}.
        self.includes: dict[str, dict[str, str]] = {}
        # The chart's condition for an object that exists only when a value holds (Ops.holds).
        self.conditions: dict[str, str] = {}

    def add_object(
        self,
        id: str,
        kind: str,
        name: str,
        *,
        skips: dict[str, str] | None = None,
        wave: str = WAVE_PREREQUISITES,
        spec_template: str | None = None,
        shared: dict[str, str] | None = None,
        labels: dict[str, str] | None = None,
        when: bool | str = True,
        body: dict[str, Any],
    ) -> None:
        """`skips`: the checkov checks this object is exempt from, each with its reason.
        `spec_template`: the chart keeps the spec in `<it>.spec` and its digest in `<it>.digest`
        (Ops.spec_digest); `shared`: {path/in/object: define} for subtrees other objects hold too;
        `labels`: the object's own, beside the chart's (the chart writes them after its include);
        `when`: whether it exists (Ops.holds), in the chart a condition its template is wrapped in."""
        if not when:
            return
        api_version, namespaced = KINDS[kind]
        metadata = {
            "name": name,
            "namespace": self.namespace if namespaced else None,
            "annotations": {SYNC_WAVE: wave, **skip_annotations(skips or {})},
            "labels": labels,
        }
        if self.recorder is not None:
            self.manifests.append(self.recorder.manifest(api_version, kind, metadata, body))
        else:
            import cdk8s  # only on the cdk8s path: the Recorder's callers never start jsii

            meta = cdk8s.ApiObjectMetadata(**metadata)
            obj = cdk8s.ApiObject(self.scope, id, api_version=api_version, kind=kind, metadata=meta)
            # The Python ApiObject takes no spec=; top-level fields go in as JSON patches.
            for key, value in body.items():
                obj.add_json_patch(cdk8s.JsonPatch.add(f"/{key}", value))
        key = f"{self.construct_id}-{id}"
        self.object_keys.append((key, kind))
        if isinstance(when, str):
            self.conditions[key] = when
        includes = dict(shared or {})
        if spec_template:
            includes["spec"] = f"{spec_template}{SPEC_DEFINE}"
        if includes:
            self.includes[key] = includes


def image(spec: DeploySpec) -> str:
    """The verl image every container runs: REPOSITORY:TAG, and @DIGEST when image.digest pins it."""
    i = spec.values.image
    return f"{i.repository}:{i.tag}{spec.ops.prefixed(i.digest, '@')}"


def pod_labels(release_name: str) -> dict[str, str]:
    """Selector-stable labels for pod templates (no chart version: a bump must not roll pods)."""
    return {"app.kubernetes.io/name": "verl-grpo", "app.kubernetes.io/instance": release_name}
