"""Writes the CRDs `verl-grpo validate` ships with (validate/crds.py BUNDLE) from the pinned CRD folders:

    make crd-bundle   # KubeRay's, GKE networking's and Kueue's CRDs from their Go modules, and
                      # tools/pinned-crds

tests/validate/test_crds.py rebuilds it the same way and requires the same bytes.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "cdk8s"))

from verl_grpo.validate.crds import bundle  # noqa: E402

if __name__ == "__main__":
    *sources, out = map(Path, sys.argv[1:])
    out.write_bytes(bundle(sources))
