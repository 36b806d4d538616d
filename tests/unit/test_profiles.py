"""profiles.py: the shipped profiles (GPU type x cluster mode x run kind) and where each lives."""

from __future__ import annotations

from pathlib import Path

import pytest

from verl_grpo.facts.machines import gpu_profiles
from verl_grpo.profiles import KINDS, MODES, Profile, find_profile, shipped_profiles
from verl_grpo.yaml_io import load

REPO = Path(__file__).resolve().parents[2]


def test_every_gpu_ships_in_each_mode_gke_offers_it_with_both_run_kinds() -> None:
    """data/gpus/ modes decide: A4X is Standard only, so it has no Autopilot profile."""
    profiles = shipped_profiles()
    names = [p.name for p in profiles]
    assert len(names) == len(set(names))
    expected = {(g, m, k) for g, gpu in gpu_profiles().items() for m in gpu.modes for k in KINDS}
    assert {(p.gpu, p.mode, p.kind) for p in profiles} == expected
    assert {p.mode for p in profiles} <= set(MODES)
    assert find_profile("a4x-autopilot") is None and find_profile("a4x-standard") is not None


def test_names_follow_mode_and_kind() -> None:
    cases = {
        Profile("b200", "standard", "RayJob"): "b200-standard",
        Profile("b200", "standard", "RayCluster"): "b200-standard-raycluster",
        Profile("h200", "autopilot", "RayJob"): "h200-autopilot",
        Profile("h200", "autopilot", "RayCluster"): "h200-autopilot-raycluster",
    }
    for profile, name in cases.items():
        assert profile.name == name
        assert find_profile(name) == profile


def test_one_name_per_profile_on_every_path() -> None:
    """PROFILE=h200-standard for the scripts, overlays/h200-standard for Helm and kubectl, as
    dist/h200-standard: a user never translates one name into another (issue 43)."""
    for profile in shipped_profiles():
        assert profile.overlay_dir.split("/") == ["overlays", profile.name]


def test_each_overlay_s_values_file_is_its_profile_s_layer() -> None:
    """The committed overlays/<...>/values.yaml hold exactly what `layer()` sets."""
    for profile in shipped_profiles():
        values = REPO / profile.overlay_dir / "values.yaml"
        assert load(values.read_text()) == profile.layer(), profile.name


def test_layers_carry_no_example_of_what_is_the_user_s_and_a4x_its_dranet() -> None:
    """Issue 43: an example zone or reservation in a shipped layer would win silently through Helm
    (workers Pending until the deadline): the layer sets the mode and the capacity, the user the
    zone and the reservation's name. A4X takes DRANET and splits the rollout over a node's 4 GPUs."""
    auto = Profile("b200", "autopilot", "RayJob").layer()
    assert auto["cluster"] == {"mode": "autopilot"}
    a4x = Profile("a4x", "standard", "RayCluster").layer()
    assert a4x["cluster"] == {"capacity": "reservation", "mode": "standard"}
    assert a4x["network"] == {"rdma": "dranet"} and a4x["run"] == {"kind": "RayCluster"}
    assert gpu_profiles()["a4x"].gpus_per_node % a4x["training"]["tensorParallelSize"] == 0


@pytest.mark.parametrize(
    ("name", "keys"),
    [
        ("b200-standard", ("storage.bucket",)),
        ("h200-autopilot-raycluster", ("storage.bucket", "cluster.zone")),
        (
            "a4x-standard",
            ("storage.bucket", "cluster.reservation", "image.repository", "image.tag", "image.platforms"),
        ),
    ],
)
def test_user_keys_are_what_the_profile_cannot_know(name: str, keys: tuple[str, ...]) -> None:
    found = find_profile(name)
    assert found and found.user_keys() == keys


def test_a_profile_s_layer_without_its_user_keys_is_refused_naming_each() -> None:
    """What a profile cannot know is required: the rules name each key (zone-on-autopilot,
    reservation-named, image-carries-arch, bucket-named), so no run starts on an example."""
    from verl_grpo.pipeline import load_spec
    from verl_grpo.problems import Problems

    for profile in shipped_profiles():
        with pytest.raises(Problems) as refused:
            load_spec(profile.layer())
        named = {p.key for p in refused.value.problems}
        # image-carries-arch names image.platforms, the one of the image's keys that must change.
        wanted = {k for k in profile.user_keys() if not k.startswith("image.")}
        wanted |= {"image.platforms"} if profile.arch != "amd64" else set()
        assert named == wanted, profile.name


def test_a_layer_is_a_fresh_copy_each_time() -> None:
    """Merging into one profile's layer must not change the next profile's."""
    first = Profile("a4x", "standard", "RayJob").layer()
    first["cluster"]["capacity"] = "spot"
    first["network"]["rdma"] = "multi-network"
    again = Profile("a4x", "standard", "RayJob").layer()
    assert again["cluster"]["capacity"] == "reservation" and again["network"]["rdma"] == "dranet"


def test_an_image_of_one_s_own_carries_the_head_s_and_the_gpu_nodes_platforms() -> None:
    assert find_profile("a4x-standard").image_platforms == ["linux/amd64", "linux/arm64"]
