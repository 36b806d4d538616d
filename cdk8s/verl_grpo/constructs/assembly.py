"""One rendering's objects: the constructs in the order their objects are written and the labels
every object carries (app.py synthesizes them with cdk8s)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..values.derive import CHART_NAME, DeploySpec
from .base import ManifestConstruct
from .data_prep_job import DataPrepJob
from .device_claims import DeviceClaims
from .gcs_fuse_storage import GcsFuseStorage
from .grpo_ray_job import GrpoRayJob
from .kueue_queue import KueueQueue
from .network_mapping import NetworkMapping
from .network_policy import RayNetworkPolicy
from .preflight_script import PreflightScript
from .training_identity import TrainingIdentity
from .verl_ray_cluster import VerlRayCluster

if TYPE_CHECKING:
    from constructs import Construct


def top_labels(spec: DeploySpec) -> dict[str, str]:
    """Every object's labels (cdk8s's chart labels); an object may add its own beside them."""
    values = (CHART_NAME, spec.release.name, "Helm", CHART_NAME, spec.chart_label)
    return dict(zip(TOP_LABEL_KEYS, values, strict=True))


TOP_LABEL_KEYS = (
    "app.kubernetes.io/name",
    "app.kubernetes.io/instance",
    "app.kubernetes.io/managed-by",
    "app.kubernetes.io/part-of",
    "helm.sh/chart",
)


def parts(scope: Construct, spec: DeploySpec) -> list[ManifestConstruct]:
    """Everything one run needs, in the order its objects are written."""
    network = NetworkMapping(scope, "network", spec)
    claims = DeviceClaims(scope, "claims", spec)
    identity = TrainingIdentity(scope, "identity", spec)
    storage = GcsFuseStorage(scope, "storage", spec)
    preflight = PreflightScript(scope, "preflight", spec)
    cluster = VerlRayCluster(
        scope,
        "cluster",
        spec,
        storage=storage,
        network=network,
        claims=claims,
        identity=identity,
        preflight=preflight,
    )
    job = GrpoRayJob(scope, "job", spec, cluster=cluster)
    policy = RayNetworkPolicy(scope, "policy", spec)
    data_prep = DataPrepJob(scope, "data-prep", spec, storage=storage)
    queue = KueueQueue(scope, "queue", spec)
    return [network, claims, identity, storage, preflight, cluster, job, policy, data_prep, queue]


@dataclass(frozen=True)
class RenderedObject:
    key: str  # stable across values: parent construct id + object id
    manifest: dict[str, Any]
    includes: dict[str, str] = field(default_factory=dict)  # chart: {path/in/object: define name}
    condition: str | None = None  # chart: the condition the object's template is wrapped in
    count: str | None = None  # chart: the object is made once per index below this count


def objects_of(chart_parts: list[ManifestConstruct], manifests: list[dict[str, Any]]) -> list[RenderedObject]:
    """The manifests paired with the keys the constructs recorded."""
    keys = [key for part in chart_parts for key in part.object_keys]
    assert [kind for _, kind in keys] == [m["kind"] for m in manifests], "object order changed"
    includes = {k: i for part in chart_parts for k, i in part.includes.items()}
    conditions = {k: c for part in chart_parts for k, c in part.conditions.items()}
    counts = {k: c for part in chart_parts for k, c in part.ranges.items()}
    return [
        RenderedObject(key, m, includes.get(key, {}), conditions.get(key), counts.get(key))
        for (key, _), m in zip(keys, manifests, strict=True)
    ]
