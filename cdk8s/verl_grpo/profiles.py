"""Shipped profiles: every GPU type x cluster mode x run kind, and where each lives."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .values.machines import gpu_profiles

MODES = ("standard", "autopilot")
# Autopilot pins the GPU workers to the RDMA network's zone (cluster.zone, required there): the
# shipped Autopilot profiles carry this example zone, which a user's values replace.
EXAMPLE_ZONE = "us-central1-b"
KINDS = ("RayJob", "RayCluster")


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
        cluster: dict[str, Any] = {"mode": self.mode}
        if self.mode == "autopilot":
            cluster["zone"] = EXAMPLE_ZONE
        return {"gpu": {"type": self.gpu}, "cluster": cluster, "run": {"kind": self.kind}}


def shipped_profiles() -> list[Profile]:
    return [Profile(g, m, k) for g in gpu_profiles() for m in MODES for k in KINDS]


def find_profile(name: str) -> Profile | None:
    return next((p for p in shipped_profiles() if p.name == name), None)
