"""Files the tests read from Go modules at pinned versions (tools/module_crds.py, tools/kueue_crds.py),
fetched through the module proxy into .cache/ on first use: nothing from beside the checkout."""

from __future__ import annotations

import sys
from pathlib import Path

TOOLS = Path(__file__).resolve().parents[2] / "tools"
sys.path.insert(0, str(TOOLS))

import kueue_crds  # noqa: E402
import module_crds  # noqa: E402
from module_crds import GKE_NETWORKING_VERSION, KUBERAY_VERSION  # noqa: E402,F401


def kuberay_crds() -> Path:
    return module_crds.kuberay_crds()


def kuberay_samples() -> Path:
    return module_crds.kuberay_samples()


def gke_networking_crds() -> Path:
    return module_crds.gke_networking_crds()


def kueue() -> Path:
    return kueue_crds.fetch()


def bundle_sources() -> list[Path]:
    """What the shipped CRD bundle is built from (tools/bundle_crds.py), in its order; NVIDIA's DRA
    driver's CRD, which no module proxy serves, is pinned in tools/pinned-crds."""
    return [kuberay_crds(), gke_networking_crds(), kueue(), TOOLS / "pinned-crds"]
