"""The log shipper's sidecar on every Ray pod: log_shipper.py copies the pod's Ray logs into the
run's folder in the bucket while it runs (verl-grpo logs/metrics/postmortem read them later).

A native sidecar (an init container with restartPolicy Always; Kubernetes 1.29+, every GKE version
this kit supports): it starts before the Ray container, keeps running beside it, and is stopped
after it, so its last copy on SIGTERM sees the Ray container's last lines
(https://kubernetes.io/docs/concepts/workloads/pods/sidecar-containers/). It runs the verl image's
own python3 (no other image to pull or pin) on the script from the pre-flight ConfigMap.
"""

from __future__ import annotations

from typing import Any

from ..facts.node_fit import LOG_SHIPPER_CPU, LOG_SHIPPER_MEMORY
from ..values.decisions import text
from ..values.derive import DeploySpec
from .base import image
from .gcs_fuse_storage import GcsFuseStorage
from .pod_security import HEAD_CONTAINER_SECURITY
from .preflight_script import PreflightScript
from .runtime_env import logs_folder


def log_shipper_fields(
    spec: DeploySpec,
    storage: GcsFuseStorage,
    preflight: PreflightScript,
    logs_volume: str,
    mount: str,
    source: str,
) -> dict[str, Any]:
    """The pod spec's `initContainers` when logs.enabled: the sidecar reading `logs_volume`
    (mounted read-only at `mount`; Ray's folder is `source` inside it)."""
    v = spec.values
    amounts = {"cpu": LOG_SHIPPER_CPU, "memory": LOG_SHIPPER_MEMORY}
    sidecar = {
        "name": "log-shipper",
        "image": image(spec),
        "imagePullPolicy": v.image.pull_policy,
        "restartPolicy": "Always",
        "command": [
            "python3",
            f"{preflight.mount_path}/log_shipper.py",
            f"--source={source}",
            # The kubelet expands $(POD_NAME) from the env below: one folder per pod.
            f"--target={logs_folder(spec)}/$(POD_NAME)",
            f"--interval={text(v.logs.interval_seconds)}",
            # The run the cluster serves now, named by each run's pre-flight (log_shipper.RUNS).
            f"--checkpoint-mount={v.storage.checkpoint_mount_path}",
            "--cluster=$(RAY_CLUSTER)",
            "--pod=$(POD_NAME)",
        ],
        "env": [
            {"name": "POD_NAME", "valueFrom": {"fieldRef": {"fieldPath": "metadata.name"}}},
            # KubeRay labels every pod of a cluster ray.io/cluster=<name> (ray-operator
            # controllers/ray/common/pod.go, v1.6.1; it gives the Ray container RAY_CLUSTER_NAME from it).
            {
                "name": "RAY_CLUSTER",
                "valueFrom": {"fieldRef": {"fieldPath": "metadata.labels['ray.io/cluster']"}},
            },
        ],
        "resources": {"requests": amounts, "limits": dict(amounts)},
        "securityContext": HEAD_CONTAINER_SECURITY,
        "volumeMounts": [
            {"name": logs_volume, "mountPath": mount, "readOnly": True},
            storage.checkpoint_volume_mount(),
            preflight.volume_mount(),
        ],
    }
    return spec.decide.when(spec.decide.flag(v.logs.enabled), {"initContainers": [sidecar]})
