"""Files the tests read from Go modules at pinned versions (tools/module_crds.py, tools/kueue_crds.py),
fetched through the module proxy into .cache/ on first use: nothing from beside the checkout."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tools"))

from module_crds import (  # noqa: E402,F401
    bundle_sources,
    gke_networking_crds,
    kuberay_crds,
    kuberay_samples,
)
