"""Shipped profiles: every GPU type x cluster mode x run kind, and where each lives."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .facts.machines import gpu_profiles

MODES = ("standard", "autopilot")
# Autopilot pins the GPU workers to the RDMA network's zone (cluster.zone, required there): the
# shipped Autopilot profiles carry this example zone, which a user's values replace.
EXAMPLE_ZONE = "us-central1-b"
KINDS = ("RayJob", "RayCluster")
# A4X comes only from a reservation (data/gpus/a4x.yaml capacities): its shipped profiles name this
# example reservation, which a user's values replace, take their RDMA NICs through GKE's DRANET
# (Google's Cluster Toolkit A4X blueprint does, cluster-toolkit examples/gke-a4x@1047080), and
# split the rollout over a node's 4 GPUs (tp-divides-node).
EXAMPLE_RESERVATION = "a4x-reservation"
GPU_LAYERS: dict[str, dict[str, Any]] = {
    "a4x": {
        "cluster": {"capacity": "reservation", "reservation": EXAMPLE_RESERVATION},
        "network": {"rdma": "dranet"},
        "training": {"tensorParallelSize": 4},
    }
}


@dataclass(frozen=True)
class Profile:
    gpu: str
    mode: str
    kind: str

    @property
    def variant(self) -> str:
        """'' for standard RayJob, else 'autopilot', 'raycluster' or 'autopilot-raycluster'."""
        parts = [
            p
            for p in (
                self.mode if self.mode != "standard" else "",
                "raycluster" if self.kind == "RayCluster" else "",
            )
            if p
        ]
        return "-".join(parts)

    @property
    def name(self) -> str:
        return f"{self.gpu}-{self.mode}" + ("-raycluster" if self.kind == "RayCluster" else "")

    @property
    def overlay_dir(self) -> str:
        return f"overlays/{self.gpu}" + (f"/{self.variant}" if self.variant else "")

    def layer(self) -> dict[str, Any]:
        """The values this profile sets over the defaults (its overlay's values.yaml)."""
        layer = {key: dict(part) for key, part in GPU_LAYERS.get(self.gpu, {}).items()}
        cluster: dict[str, Any] = {**layer.pop("cluster", {}), "mode": self.mode}
        if self.mode == "autopilot":
            cluster["zone"] = EXAMPLE_ZONE
        return {"gpu": {"type": self.gpu}, "cluster": cluster, **layer, "run": {"kind": self.kind}}


def shipped_profiles() -> list[Profile]:
    """Every GPU type in each cluster mode GKE offers it in (data/gpus/ modes), both run kinds."""
    return [Profile(g, m, k) for g, p in gpu_profiles().items() for m in MODES if m in p.modes for k in KINDS]


def find_profile(name: str) -> Profile | None:
    return next((p for p in shipped_profiles() if p.name == name), None)
