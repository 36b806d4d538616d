"""The Ray cluster verl runs on: a CPU head and the GPU worker groups."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..facts.kuberay import DASHBOARD_PORT
from ..values.decisions import text
from ..values.derive import DeploySpec, group_spec
from ..values.worker_groups import WORKER_GROUP_TEMPLATE, GroupView
from .base import WAVE_RUN, ManifestConstruct, image, pod_labels
from .device_claims import DeviceClaims
from .gcs_fuse_storage import GcsFuseStorage
from .log_shipper_sidecar import log_shipper_fields
from .network_mapping import NetworkMapping
from .pod_security import (
    COMMON_EXCEPTIONS,
    HEAD_CONTAINER_SECURITY,
    WORKER_CONTAINER_SECURITY,
    WORKER_EXCEPTIONS,
    hardened_pod,
    skip_annotations,
)
from .preflight_script import PreflightScript
from .runtime_env import worker_setup
from .scheduling import (
    cpu_node_selector,
    queue_labels,
    worker_annotations,
    worker_node_selector,
    worker_tolerations,
)
from .training_identity import TrainingIdentity

if TYPE_CHECKING:
    from constructs import Construct

# The GPU stack GKE installs on the node; mounted read-only, nothing else from the host. No
# hostPath `type`: GKE's own samples set none (container-engine-accelerators
# gpudirect-rdma/nccl-test*.yaml, cluster-toolkit gke-a3-ultragpu / gke-a4), and on a fresh node
# /home/kubernetes/bin/gib appears only once the RDMA installer has run.
HOST_PATHS = [
    ("nvidia", "/home/kubernetes/bin/nvidia", "/usr/local/nvidia"),
    ("gib", "/home/kubernetes/bin/gib", "/usr/local/gib"),
]
HEAD_PORTS = [("gcs-server", 6379), ("dashboard", DASHBOARD_PORT), ("client", 10001)]


def _resources(cpu: str, memory: str, ephemeral: str, extra: dict[str, str] | None = None) -> dict[str, Any]:
    amounts = {"cpu": cpu, "memory": memory, "ephemeral-storage": ephemeral, **(extra or {})}
    return {"requests": amounts, "limits": dict(amounts)}


def ray_auth_secret(spec: DeploySpec) -> str:
    """The Secret with the Ray cluster's token (key auth_token) when ray.auth is token."""
    return f"{spec.release.name}-ray-token"


def ray_cluster_name(spec: DeploySpec) -> str:
    return f"{spec.release.name}-{spec.values.gpu.type}"


# The chart keeps the cluster spec, which a RayCluster and a RayJob's rayClusterSpec both hold,
# in one named template.
CLUSTER_SPEC_TEMPLATE = "verl-grpo.rayClusterSpec"
# A worker group's node selector, in the chart a named template of its own (given the group's view).
GPU_NODE_SELECTOR = "verl-grpo.gpuNodeSelector"


class VerlRayCluster(ManifestConstruct):
    """Builds the RayCluster spec; renders a RayCluster object only when run.kind is RayCluster."""

    def __init__(
        self,
        scope: Construct,
        id: str,
        spec: DeploySpec,
        *,
        storage: GcsFuseStorage,
        network: NetworkMapping,
        claims: DeviceClaims,
        identity: TrainingIdentity,
        preflight: PreflightScript,
    ) -> None:
        super().__init__(scope, id, spec)
        decide = spec.decide
        self.name = ray_cluster_name(spec)

        def workers(group: GroupView) -> dict[str, Any]:
            return self._workers(
                group_spec(spec, group.values), group, storage, network, claims, identity, preflight
            )

        self.spec = {
            "rayVersion": spec.values.ray.version,
            # The token lives in a Secret of ours, never in values or manifests (ray_auth_secret).
            **decide.when(
                decide.is_(spec.values.ray.auth, "token"),
                {"authOptions": {"mode": "token", "secretName": ray_auth_secret(spec)}},
            ),
            "headGroupSpec": self._head(spec, storage, identity, preflight),
            "workerGroupSpecs": decide.each_group(spec.values, workers, WORKER_GROUP_TEMPLATE),
        }
        self.add_object(
            "ray-cluster",
            kind="RayCluster",
            name=self.name,
            when=decide.is_(spec.values.run.kind, "RayCluster"),
            wave=WAVE_RUN,  # GPUs only once the data is there (Argo CD; see base.py)
            shared={"spec": CLUSTER_SPEC_TEMPLATE},
            labels=queue_labels(spec),
            body={"spec": self.spec},
        )

    @staticmethod
    def _head(
        spec: DeploySpec, storage: GcsFuseStorage, identity: TrainingIdentity, preflight: PreflightScript
    ) -> dict[str, Any]:
        v = spec.values
        selector = cpu_node_selector(spec)
        return {
            # Dashboard and client stay inside the cluster: reach them with kubectl port-forward.
            "serviceType": "ClusterIP",
            "rayStartParams": {"dashboard-host": "0.0.0.0"},
            "template": {
                "metadata": {
                    "labels": pod_labels(spec.release.name),
                    "annotations": {**storage.pod_annotations, **skip_annotations(COMMON_EXCEPTIONS)},
                },
                "spec": {
                    **hardened_pod(identity.name),
                    "nodeSelector": selector,
                    **log_shipper_fields(spec, storage, preflight, "ray-logs", "/tmp/ray", "/tmp/ray"),
                    "containers": [
                        {
                            "name": "ray-head",
                            "image": image(spec),
                            "imagePullPolicy": v.image.pull_policy,
                            "ports": [{"containerPort": port, "name": name} for name, port in HEAD_PORTS],
                            "resources": _resources(v.head.cpu, v.head.memory, v.head.ephemeral_storage),
                            "securityContext": HEAD_CONTAINER_SECURITY,
                            "volumeMounts": [
                                {"name": "ray-logs", "mountPath": "/tmp/ray"},
                                *storage.volume_mounts(),
                                preflight.volume_mount(),
                            ],
                        }
                    ],
                    "volumes": [
                        {"name": "ray-logs", "emptyDir": {}},
                        *storage.volumes(),
                        *preflight.volumes(),
                    ],
                },
            },
        }

    @staticmethod
    def _workers(
        spec: DeploySpec,
        group: GroupView,
        storage: GcsFuseStorage,
        network: NetworkMapping,
        claims: DeviceClaims,
        identity: TrainingIdentity,
        preflight: PreflightScript,
    ) -> dict[str, Any]:
        v, gpu, d, decide = spec.values, spec.gpu, spec.derived, spec.decide
        # Named, as a Helm author keeps a selector: the machine's labels, the capacity's, the pool's.
        selector = decide.named(GPU_NODE_SELECTOR, worker_node_selector(spec, group))
        gpus = {"nvidia.com/gpu": text(gpu.gpus_per_node)}
        return {
            "groupName": group.name,
            "replicas": group.replicas,
            "minReplicas": group.min_replicas,
            "maxReplicas": group.max_replicas,
            "rayStartParams": {},
            # What KubeRay's Go types write back (see GcsFuseStorage.volume_mounts): rendering it
            # keeps the operator's round trip a no-op, so it never owns the worker group list.
            "scaleStrategy": {},
            "template": {
                "metadata": {
                    "labels": pod_labels(spec.release.name),
                    "annotations": {
                        **storage.gpu_pod_annotations,
                        **network.pod_annotations(spec),
                        **skip_annotations(WORKER_EXCEPTIONS),
                        **worker_annotations(spec),
                    },
                },
                "spec": {
                    **hardened_pod(identity.name),
                    "nodeSelector": selector,
                    "tolerations": worker_tolerations(spec),
                    **claims.pod_fields(spec),
                    # The worker's /tmp is the ray-tmp volume: the sidecar mounts it at the same path.
                    **log_shipper_fields(spec, storage, preflight, "ray-tmp", "/tmp", "/tmp/ray"),
                    "containers": [
                        {
                            "name": "ray-worker",
                            "image": image(spec),
                            "imagePullPolicy": v.image.pull_policy,
                            # KubeRay runs these args before its `ray start` (runtime_env.py says why).
                            "args": [worker_setup()],
                            "resources": {
                                **_resources(d.worker_cpu, d.worker_memory, d.worker_ephemeral_storage, gpus),
                                **claims.container_fields(spec),
                            },
                            "securityContext": WORKER_CONTAINER_SECURITY,
                            "volumeMounts": [
                                *(
                                    {"name": name, "mountPath": mount, "readOnly": True}
                                    for name, _, mount in HOST_PATHS
                                ),
                                {"name": "ray-tmp", "mountPath": "/tmp"},
                                *storage.volume_mounts(),
                            ],
                        }
                    ],
                    "volumes": [
                        *({"name": name, "hostPath": {"path": path}} for name, path, _ in HOST_PATHS),
                        {"name": "ray-tmp", "emptyDir": {}},
                        *storage.volumes(),
                        *preflight.volumes(),
                    ],
                },
            },
        }
