"""The GKE version floor of a profile: the highest minimum over the features it uses
(data/gke-features.yaml holds each minimum with its source)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from importlib import resources

import yaml

from ..facts.machines import gpu_profiles
from .model import Values
from .worker_groups import machines

GKE_VERSION = re.compile(r"^(\d+)\.(\d+)\.(\d+)-gke\.(\d+)$")


@dataclass(frozen=True)
class Feature:
    name: str
    min: str
    source: str


@cache
def features() -> dict[str, Feature]:
    text = (resources.files("verl_grpo") / "data" / "gke-features.yaml").read_text()
    return {k: Feature(k, v["min"], v["source"]) for k, v in yaml.safe_load(text).items()}


def version_key(version: str) -> tuple[int, ...]:
    m = GKE_VERSION.match(version)
    if not m:
        raise ValueError(f"{version!r} is not a GKE version like 1.33.5-gke.1162000")
    return tuple(int(g) for g in m.groups())


def used_features(v: Values) -> list[Feature]:
    f = features()
    names = [
        "ray-operator-addon",
        "gcsfuse-metadata-prefetch",
        "gcsfuse-streaming-writes",
        "gcsfuse-read-ahead",
        "gcsfuse-same-bucket-several-pvs",
    ]
    if v.cluster.capacity == "flex-start":
        names.append("flex-start")
        if v.queue.enabled:
            names.append("queued-provisioning")
    if v.cluster.capacity == "reservation" and v.cluster.mode == "autopilot":
        names.append("autopilot-reservation-accelerator")
    if v.network.rdma == "dranet":
        names.append("dranet")
    if gpu_profiles()[v.gpu.type].imex:
        names.append("dra")
    rdma = [
        Feature(f"gpudirect-rdma-{gpu.name}", gpu.min_gke_version, f"data/gpus/{gpu.name}.yaml")
        for gpu in (gpu_profiles()[m] for m in machines(v))
    ]
    return [*rdma, *(f[n] for n in names)]


def floor(v: Values) -> Feature:
    """The feature with the highest minimum: its version is the profile's floor."""
    return max(used_features(v), key=lambda f: version_key(f.min))
