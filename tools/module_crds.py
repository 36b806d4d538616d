"""KubeRay's CRDs and samples and GKE's networking CRDs, from their Go modules at pinned versions:

    python tools/module_crds.py kuberay-crds      # prints .cache/kuberay-crds-<version>/
    python tools/module_crds.py kuberay-samples   # prints .cache/kuberay-samples-<version>/
    python tools/module_crds.py gke-networking    # prints .cache/gke-networking-crds-<version>/

What the tests and tools/bundle_crds.py read, fetched through the Go module proxy (as
tools/kueue_crds.py does for Kueue), so a clone needs nothing beside it. Each folder is written
whole or not at all and holds a SOURCE.txt naming the module and the path.
"""

from __future__ import annotations

import sys
from pathlib import Path

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


def kuberay_crds() -> Path:
    out = REPO / ".cache" / f"kuberay-crds-{KUBERAY_VERSION}"
    if not out.is_dir():
        bases = download(KUBERAY_MODULE, KUBERAY_VERSION) / "config" / "crd" / "bases"
        files = {p.name: p for p in sorted(bases.glob("ray.io_*.yaml"))}
        write_folder(out, files, f"{KUBERAY_MODULE}@{KUBERAY_VERSION} config/crd/bases\n")
    return out


def kuberay_samples() -> Path:
    """Every YAML file under config/samples/, path separators replaced by '_'."""
    out = REPO / ".cache" / f"kuberay-samples-{KUBERAY_VERSION}"
    if not out.is_dir():
        samples = download(KUBERAY_MODULE, KUBERAY_VERSION) / "config" / "samples"
        files = {
            str(p.relative_to(samples)).replace("/", "_"): p
            for p in sorted(samples.rglob("*"))
            if p.suffix in (".yaml", ".yml")
        }
        write_folder(out, files, f"{KUBERAY_MODULE}@{KUBERAY_VERSION} config/samples/\n")
    return out


def gke_networking_crds() -> Path:
    out = REPO / ".cache" / f"gke-networking-crds-{GKE_NETWORKING_VERSION}"
    if not out.is_dir():
        crds = download(GKE_NETWORKING_MODULE, GKE_NETWORKING_VERSION) / "config" / "crds"
        names = [f"networking.gke.io_{kind}.yaml" for kind in GKE_NETWORKING_KINDS]
        files = {name: crds / name for name in names}
        write_folder(out, files, f"{GKE_NETWORKING_MODULE}@{GKE_NETWORKING_VERSION} config/crds/\n")
    return out


FOLDERS = {
    "kuberay-crds": kuberay_crds,
    "kuberay-samples": kuberay_samples,
    "gke-networking": gke_networking_crds,
}

if __name__ == "__main__":
    print(FOLDERS[sys.argv[1]]())
