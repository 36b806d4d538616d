"""output/my_values.py: the user's values file, commented from the values model."""

from __future__ import annotations

import yaml

from verl_grpo.output.my_values import REQUIRED, description, my_values
from verl_grpo.profiles import find_profile, shipped_profiles
from verl_grpo.values.loader import default_values


def test_each_user_key_is_commented_with_the_model_s_description() -> None:
    profile = find_profile("h200-autopilot")
    text = my_values(profile, {"storage.bucket": "b-1"}, "my.yaml")
    lines = text.splitlines()
    at = lines.index("  bucket: b-1")
    assert lines[at - 1] == f"  # -- {description('storage.bucket')}"
    assert lines[lines.index("  zone: ''") - 1].endswith(f"{REQUIRED}.")


def test_every_profile_s_file_is_yaml_holding_its_profile_keys_and_user_keys() -> None:
    for profile in shipped_profiles():
        values = yaml.safe_load(my_values(profile, {}, "my.yaml"))
        layer = profile.layer()
        assert values["gpu"] == layer["gpu"] and values["run"] == layer["run"], profile.name
        assert values["cluster"]["mode"] == profile.mode
        for key in profile.user_keys():
            section, name = key.split(".")
            assert values[section][name] == default_values()[section][name], (profile.name, key)


def test_the_header_names_the_overlay_of_the_profile() -> None:
    profile = find_profile("h200-standard-raycluster")
    assert f"-f {profile.overlay_dir}/values.yaml -f mine.yaml" in my_values(profile, {}, "mine.yaml")


def test_description_reads_the_schema() -> None:
    assert "bucket" in description("storage.bucket").lower()
