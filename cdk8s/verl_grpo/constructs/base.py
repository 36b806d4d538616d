"""The one way our constructs create Kubernetes objects."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..facts.kueue import KUEUE_API
from ..values.decisions import Condition, Helper, RangeIndex
from ..values.derive import DeploySpec
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
# KubeRay's CRDs (ray-operator config/crd/bases, ray.io/v1), and GKE's multi-network CRDs, whose
# Network and GKENetworkParamSet are cluster-scoped (networking.gke.io/v1, gke-networking-api
# config/crds; tools/module_crds.py; GKE docs
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
    # Kueue v0.19.2 (facts/kueue.py): only the LocalQueue is namespaced.
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


def _construct(scope: Construct, id: str) -> Construct:
    from constructs import Construct  # jsii's: only on the cdk8s path (app.py)

    return Construct(scope, id)


class ManifestConstruct:
    """A part of the chart: adds its objects and records them (key, kind) in creation order.

    It owns a construct in the cdk8s scope, under which its ApiObjects go; the app reads all
    manifests with one `Chart.to_json()` and pairs them with these keys, instead of walking the
    construct tree through jsii (one round trip per call).
    """

    def __init__(self, scope: Construct, id: str, spec: DeploySpec, when: Condition = True) -> None:
        """`when`: whether its objects exist at all (in the chart, every template's condition)."""
        self.scope = _construct(scope, id)
        self.decide = spec.decide
        self.construct_id = id
        self.namespace = spec.release.namespace  # of the namespaced objects it adds
        self.when = when
        self.object_keys: list[tuple[str, str]] = []
        # Subtrees the chart keeps in named templates: object key -> {path/in/object: define name}.
        self.includes: dict[str, dict[str, str]] = {}
        # The chart's condition for an object that exists only when a value holds.
        self.conditions: dict[str, str] = {}
        # The chart's count for an object made once per index (Decisions.indexes): object key -> count.
        self.ranges: dict[str, str] = {}

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
        when: Condition = True,
        index: int | RangeIndex | None = None,
        body: dict[str, Any],
    ) -> None:
        """`skips`: the checkov checks this object is exempt from, each with its reason.
        `spec_template`: the chart keeps the spec in `<it>.spec` and its digest in `<it>.digest`
        (Decisions.spec_digest); `shared`: {path/in/object: define} for subtrees other objects hold too;
        `labels`: the object's own, beside the chart's (the chart writes them after its include);
        `when`: whether it exists (Decisions conditions), in the chart a condition its template is wrapped
        in; `index`: one of Decisions.indexes, which the object's id ends with (in the chart, a range)."""
        when = self.decide.all_of(self.when, when)
        if when is False:
            return
        api_version, namespaced = KINDS[kind]
        metadata = {
            "name": name,
            "namespace": self.namespace if namespaced else None,
            "annotations": {SYNC_WAVE: wave, **skip_annotations(skips or {})},
            "labels": labels,
        }
        key = f"{self.construct_id}-{id}"
        if isinstance(index, RangeIndex):
            self.ranges[key] = index.count
        elif index is not None:
            id, key = f"{id}-{index}", f"{key}-{index}"
        import cdk8s  # only on the cdk8s path

        meta = cdk8s.ApiObjectMetadata(**metadata)  # type: ignore[arg-type]  # jsii's typed keywords
        obj = cdk8s.ApiObject(self.scope, id, api_version=api_version, kind=kind, metadata=meta)
        # The Python ApiObject takes no spec=; top-level fields go in as JSON patches.
        for field_name, value in body.items():
            obj.add_json_patch(cdk8s.JsonPatch.add(f"/{field_name}", value))
        self.object_keys.append((key, kind))
        if when is not True:
            self.conditions[key] = str(when)
        includes = dict(shared or {})
        if spec_template:
            includes["spec"] = f"{spec_template}{SPEC_DEFINE}"
        if includes:
            self.includes[key] = includes


# image() in Go.
IMAGE = Helper(
    "verl-grpo.image",
    """
{{- printf "%s:%s" .Values.image.repository .Values.image.tag }}
{{- with .Values.image.digest }}@{{ . }}{{ end }}""",
    "The verl image every container runs (constructs/base.py image).",
)


def image(spec: DeploySpec) -> str:
    """The verl image every container runs: REPOSITORY:TAG, and @DIGEST when image.digest pins it."""
    i = spec.values.image
    return spec.decide.helper(
        IMAGE, None, lambda: f"{i.repository}:{i.tag}{'@' + i.digest if i.digest else ''}"
    )


def pod_labels(release_name: str) -> dict[str, str]:
    """Selector-stable labels for pod templates (no chart version: a bump must not roll pods)."""
    return {"app.kubernetes.io/name": "verl-grpo", "app.kubernetes.io/instance": release_name}
