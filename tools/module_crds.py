"""KubeRay's CRDs and samples and GKE's networking CRDs, from their Go modules at pinned versions:

    python tools/module_crds.py kuberay-crds      # prints .cache/kuberay-crds-<version>/
    python tools/module_crds.py kuberay-samples   # prints .cache/kuberay-samples-<version>/
    python tools/module_crds.py gke-networking    # prints .cache/gke-networking-crds-<version>/
    python tools/module_crds.py bundle-sources    # the CRD bundle's folders (make crd-bundle)

What the tests and tools/bundle_crds.py read, fetched through the Go module proxy (as
tools/kueue_crds.py does for Kueue), so a clone needs nothing beside it. Each folder is written
whole or not at all and holds a SOURCE.txt naming the module and the path.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

import kueue_crds
from kueue_crds import REPO, download, write_folder

# The newest ray-operator the Go module proxy serves (v1.7.0 is not served: "This module version is
# not available", 2026-12-07); the control-plane tier runs operators of the same module. The kit
# writes no field newer than v1.6.0 (facts/kuberay.py RAYJOB_FIELD_SINCE), so a v1.6 schema checks
# every object it renders, for kuberay.version 1.6 and 1.7 alike.
KUBERAY_MODULE, KUBERAY_VERSION = "github.com/ray-project/kuberay/ray-operator", "v1.6.2"
# Network and GKENetworkParamSet moved from kubernetes/cloud-provider-gcp to this module in June
# 2024; its config/crds/ holds them (both cluster-scoped).
GKE_NETWORKING_MODULE, GKE_NETWORKING_VERSION = "github.com/GoogleCloudPlatform/gke-networking-api", "v0.2.11"
GKE_NETWORKING_KINDS = ("gkenetworkparamsets", "networks")


Pick = Callable[[Path], dict[str, Path]]


def fetched(name: str, module: str, version: str, folder: str, pick: Pick) -> Path:
    """.cache/<name>-<version>/: the files `pick` chooses (name: file) in the module's `folder`,
    fetched once; a present folder is whole (kueue_crds.write_folder)."""
    out = REPO / ".cache" / f"{name}-{version}"
    if not out.is_dir():
        files = pick(download(module, version) / folder)
        write_folder(out, files, f"{module}@{version} {folder}/\n")
    return out


def kuberay_crds() -> Path:
    return fetched(
        "kuberay-crds",
        KUBERAY_MODULE,
        KUBERAY_VERSION,
        "config/crd/bases",
        lambda bases: {p.name: p for p in sorted(bases.glob("ray.io_*.yaml"))},
    )


def kuberay_samples() -> Path:
    """Every YAML file under config/samples/, path separators replaced by '_'."""
    return fetched(
        "kuberay-samples",
        KUBERAY_MODULE,
        KUBERAY_VERSION,
        "config/samples",
        lambda samples: {
            str(p.relative_to(samples)).replace("/", "_"): p
            for p in sorted(samples.rglob("*"))
            if p.suffix in (".yaml", ".yml")
        },
    )


def gke_networking_crds() -> Path:
    names = [f"networking.gke.io_{kind}.yaml" for kind in GKE_NETWORKING_KINDS]
    return fetched(
        "gke-networking-crds",
        GKE_NETWORKING_MODULE,
        GKE_NETWORKING_VERSION,
        "config/crds",
        lambda crds: {name: crds / name for name in names},
    )


def bundle_sources() -> list[Path]:
    """What the shipped CRD bundle is built from (tools/bundle_crds.py), in its order: these,
    Kueue's (kueue_crds.py) and tools/pinned-crds (NVIDIA's DRA driver, which no proxy serves)."""
    return [kuberay_crds(), gke_networking_crds(), kueue_crds.fetch(), REPO / "tools" / "pinned-crds"]


FOLDERS = {
    "kuberay-crds": kuberay_crds,
    "kuberay-samples": kuberay_samples,
    "gke-networking": gke_networking_crds,
}

if __name__ == "__main__":
    if sys.argv[1] == "bundle-sources":  # for `make crd-bundle`
        print(" ".join(str(p) for p in bundle_sources()))
    else:
        print(FOLDERS[sys.argv[1]]())
