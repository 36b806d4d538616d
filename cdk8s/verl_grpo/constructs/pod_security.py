"""Pod hardening for the Ray pods, and the scanner findings we accept, each with its reason.

The reasons travel in the manifests as checkov skip annotations, so a reviewer (and the scan in
CI) reads why each exception exists next to the object it concerns.
"""

from __future__ import annotations

from typing import Any

POD_SECURITY_CONTEXT: dict[str, Any] = {"seccompProfile": {"type": "RuntimeDefault"}}

HEAD_CONTAINER_SECURITY: dict[str, Any] = {
    "allowPrivilegeEscalation": False,
    "capabilities": {"drop": ["ALL"]},
}
# NCCL over the RoCE NICs registers memory with the RDMA verbs driver; keep the runtime's
# default capability set there, minus raw sockets.
WORKER_CONTAINER_SECURITY: dict[str, Any] = {
    "allowPrivilegeEscalation": False,
    "capabilities": {"drop": ["NET_RAW"]},
}

COMMON_EXCEPTIONS = {
    "CKV_K8S_21": "the namespace is chosen at install time (helm -n, verl-grpo synth -n)",
    "CKV_K8S_23": "the verl image runs as root; its CUDA, vLLM and pip caches live in root-owned paths",
    "CKV_K8S_40": "the verl image runs as root (see CKV_K8S_23)",
    "CKV_K8S_22": "Ray, vLLM and torch write caches and sockets all over the image filesystem",
    "CKV_K8S_8": "KubeRay injects its own liveness probe (ray health-check) into Ray pods",
    "CKV_K8S_9": "KubeRay injects its own readiness probe (ray health-check) into Ray pods",
    "CKV_K8S_43": "the image is pinned by tag in values (image.tag); mirror it and pin a digest there",
    "CKV_K8S_15": "a 30 GB image: IfNotPresent saves a registry round trip on each restart after preemption",
}
WORKER_EXCEPTIONS = {
    **COMMON_EXCEPTIONS,
    "CKV_K8S_37": "GPUDirect RDMA (NCCL gIB plugin) keeps the default capabilities; NET_RAW is dropped",
}
BATCH_EXCEPTIONS = {
    **COMMON_EXCEPTIONS,
    "CKV_K8S_8": "a run-to-completion Job: nothing to probe for liveness",
    "CKV_K8S_9": "a run-to-completion Job: it serves no traffic",
    "CKV_K8S_35": "the optional Hugging Face token reaches huggingface_hub as HF_TOKEN via secretKeyRef",
}
NAMESPACED_EXCEPTIONS = {"CKV_K8S_21": COMMON_EXCEPTIONS["CKV_K8S_21"]}


def hardened_pod(service_account: str) -> dict[str, Any]:
    """Pod-level fields all our pods carry. No API token: Ray needs none without the autoscaler,
    and the GCS FUSE driver requests its own."""
    return {
        "serviceAccountName": service_account,
        "automountServiceAccountToken": False,
        "securityContext": POD_SECURITY_CONTEXT,
    }


def skip_annotations(exceptions: dict[str, str]) -> dict[str, str]:
    return {
        f"checkov.io/skip{i}": f"{check}={reason}" for i, (check, reason) in enumerate(exceptions.items(), 1)
    }
