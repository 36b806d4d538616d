"""Shipped profiles: every GPU type x cluster mode x run kind, and where each lives."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .facts.machines import gpu_profiles

MODES = ("standard", "autopilot")
KINDS = ("RayJob", "RayCluster")
# A4X comes only from a reservation (data/gpus/a4x.yaml capacities): its shipped profiles take their
# RDMA NICs through GKE's DRANET (Google's Cluster Toolkit A4X blueprint does, cluster-toolkit
# examples/gke-a4x@1047080) and split the rollout over a node's 4 GPUs (tp-divides-node). The
# reservation's name is the user's (user_keys): a shipped example would win silently through Helm
# and leave the workers Pending until the deadline.
GPU_LAYERS: dict[str, dict[str, Any]] = {
    "a4x": {
        "cluster": {"capacity": "reservation"},
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
    def name(self) -> str:
        return f"{self.gpu}-{self.mode}" + ("-raycluster" if self.kind == "RayCluster" else "")

    @property
    def overlay_dir(self) -> str:
        """One name on every path: PROFILE for the scripts, --profile for the CLI, dist/<name>/ and
        overlays/<name>/ for kubectl and Helm."""
        return f"overlays/{self.name}"

    def layer(self) -> dict[str, Any]:
        """The values this profile sets over the defaults (its overlay's values.yaml)."""
        layer = {key: dict(part) for key, part in GPU_LAYERS.get(self.gpu, {}).items()}
        cluster: dict[str, Any] = {**layer.pop("cluster", {}), "mode": self.mode}
        return {"gpu": {"type": self.gpu}, "cluster": cluster, **layer, "run": {"kind": self.kind}}

    def user_keys(self) -> tuple[str, ...]:
        """What a run of this profile needs from the user's own cloud, with no default (a shipped
        example would win silently): the bucket always; the zone on Autopilot, where the workers are
        pinned to the RDMA network's zone (rule zone-on-autopilot); the reservation where the profile
        takes reservation capacity (rule reservation-named); an image built for the GPU nodes'
        architecture where verl publishes none (rule image-carries-arch)."""
        layer = self.layer()
        return (
            "storage.bucket",
            *(("cluster.zone",) if self.mode == "autopilot" else ()),
            *(("cluster.reservation",) if layer["cluster"].get("capacity") == "reservation" else ()),
            *(("image.repository", "image.tag", "image.platforms") if self.arch != "amd64" else ()),
        )

    @property
    def arch(self) -> str:
        return gpu_profiles()[self.gpu].arch

    @property
    def image_platforms(self) -> list[str]:
        """What an image of one's own must carry: the amd64 CPU nodes' platform (the Ray head) and
        the GPU nodes' (rule image-carries-arch)."""
        return ["linux/amd64", f"linux/{self.arch}"]


def shipped_profiles() -> list[Profile]:
    """Every GPU type in each cluster mode GKE offers it in (data/gpus/ modes), both run kinds."""
    return [Profile(g, m, k) for g, p in gpu_profiles().items() for m in MODES if m in p.modes for k in KINDS]


def find_profile(name: str) -> Profile | None:
    return next((p for p in shipped_profiles() if p.name == name), None)
