"""output/overlays.py: per shipped profile, a Helm values overlay and a Kustomize overlay over its
dist/ folder."""

from __future__ import annotations

import os
import posixpath

import pytest
import yaml

from verl_grpo.output.overlays import overlay_files
from verl_grpo.profiles import shipped_profiles


def test_every_shipped_profile_gets_its_two_overlay_files() -> None:
    """A values.yaml and a kustomization.yaml per shipped profile, each profile in its own folder."""
    files = overlay_files()
    folders = {p.overlay_dir.removeprefix("overlays/") for p in shipped_profiles()}
    assert len(folders) == len(shipped_profiles())  # no two profiles share a folder
    assert sorted(files) == sorted(
        f"{d}/{name}" for d in folders for name in ("values.yaml", "kustomization.yaml")
    )


@pytest.mark.parametrize("dist_dir", ["dist", "build/out/dist"])
def test_each_kustomization_points_at_its_profiles_dist_folder(dist_dir: str) -> None:
    """Kustomize resolves `resources` from the overlay's own folder."""
    files = overlay_files(dist_dir)
    for profile in shipped_profiles():
        rel = profile.overlay_dir.removeprefix("overlays/")
        (base,) = yaml.safe_load(files[f"{rel}/kustomization.yaml"])["resources"]
        assert not os.path.isabs(base)
        assert posixpath.normpath(posixpath.join(profile.overlay_dir, base)) == f"{dist_dir}/{profile.name}"


def test_each_values_overlay_is_the_profiles_layer_and_says_how_to_use_it() -> None:
    """The values overlay is the profile's layer over the chart's defaults, with the helm command that uses
    it."""
    files = overlay_files()
    for profile in shipped_profiles():
        text = files[f"{profile.overlay_dir.removeprefix('overlays/')}/values.yaml"]
        assert yaml.safe_load(text) == profile.layer(), profile.name
        assert f"-f {profile.overlay_dir}/values.yaml" in text, profile.name
