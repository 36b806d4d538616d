"""Writes the CRDs `verl-grpo validate` ships with (validate/crds.py BUNDLE) from the pinned CRD folders:

    python tools/bundle_crds.py ../shared/crds $(python tools/kueue_crds.py) tools/pinned-crds \
        cdk8s/verl_grpo/data/crds.json.gz

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
