"""The CRDs `validate` ships with: rebuilt from their Go modules' files (tests/helpers/module_files.py);
enough outside the repository."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import yaml

from verl_grpo.validate.crds import BUNDLE, bundle, load_crds, without_descriptions

from ..conftest import REPO
from ..helpers.module_files import bundle_sources


def test_the_bundle_is_rebuilt_from_the_pinned_crds() -> None:
    assert BUNDLE.read_bytes() == bundle(bundle_sources()), "run: make crd-bundle"


def test_the_bundle_checks_what_the_crd_folders_check() -> None:
    shipped, pinned = load_crds([]), load_crds(bundle_sources())
    assert set(shipped) == set(pinned)
    kinds = {kind for _, kind in shipped}
    assert kinds >= {
        "RayCluster",
        "RayJob",
        "Network",
        "GKENetworkParamSet",
        "ClusterQueue",
        "Topology",
        "ComputeDomain",
    }
    for key, kind in pinned.items():  # descriptions are all the bundle leaves out
        assert shipped[key].schema == without_descriptions(kind.schema), key
    spec = shipped[("ray.io/v1", "RayJob")].schema["properties"]["spec"]
    assert spec["properties"]["entrypoint"] == {"type": "string"}
    assert "description" not in json.dumps(spec["properties"]["entrypoint"])


def test_validate_works_outside_the_repository(tmp_path: Path) -> None:
    """From a folder outside the checkout, with no --crds, a typo in a RayJob is still found."""
    job = yaml.safe_load(next((REPO / "dist" / "h200-standard").glob("rayjob-*.yaml")).read_text())
    (tmp_path / "good.yaml").write_text(yaml.safe_dump(job))
    job["spec"]["shutdownAfterJobFinish"] = True  # the field is shutdownAfterJobFinishes
    (tmp_path / "typo.yaml").write_text(yaml.safe_dump(job))
    env = {k: v for k, v in os.environ.items() if k != "VERL_GRPO_CRDS"}
    cli = [sys.executable, "-m", "verl_grpo.cli", "validate"]

    good = subprocess.run([*cli, "good.yaml"], cwd=tmp_path, env=env, capture_output=True, text=True)
    assert good.returncode == 0, good.stderr
    typo = subprocess.run([*cli, "typo.yaml"], cwd=tmp_path, env=env, capture_output=True, text=True)
    assert typo.returncode == 1
    assert "unknown field 'shutdownAfterJobFinish' [crd-schema]" in typo.stdout
