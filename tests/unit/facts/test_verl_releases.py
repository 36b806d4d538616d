"""facts/verl_releases.py: each verl release the kit runs is a data file (data/verl/<version>.yaml),
and training.verlVersion selects one on every path."""

from __future__ import annotations

import re

import pytest

from verl_grpo.facts.pins import COMMIT
from verl_grpo.facts.verl_releases import DEFAULT_VERL_VERSION, verl_release, verl_releases
from verl_grpo.pipeline import load_spec
from verl_grpo.problems import Problems
from verl_grpo.profiles import find_profile
from verl_grpo.shell_env import shell_env
from verl_grpo.values.model import Values
from verl_grpo.verl_check.config import supported_versions

from ...conftest import objects_of_kind, render_one

SHA256 = re.compile(r"^[0-9a-f]{64}$")
VERSIONS = list(verl_releases())


def test_the_releases_are_the_ones_verls_config_is_recorded_for() -> None:
    """A release file and its config defaults (data/verl/<version>.json) come together."""
    assert VERSIONS == supported_versions() == ["0.6.1", "0.9.1"]
    assert DEFAULT_VERL_VERSION in VERSIONS


@pytest.mark.parametrize("version", VERSIONS)
def test_each_release_is_pinned_by_its_files_bytes(version: str) -> None:
    """PyPI's wheel at its own URL (files.pythonhosted.org/packages/<blake2b>/<file>) and the GSM8K
    script at the tag's commit, or at the tag where the commit is not known; each with a sha256."""
    r = verl_release(version)
    assert r.wheel.url.startswith("https://files.pythonhosted.org/packages/")
    assert r.wheel.url.endswith(f"/verl-{version}-py3-none-any.whl")
    ref = r.commit or r.tag
    assert r.tag == f"v{version}" and (r.commit is None or COMMIT.match(r.commit))
    assert r.gsm8k_script.url == (
        f"https://raw.githubusercontent.com/verl-project/verl/{ref}/examples/data_preprocess/gsm8k.py"
    )
    assert SHA256.match(r.wheel.sha256) and SHA256.match(r.gsm8k_script.sha256)


def test_the_values_default_to_the_default_releases_image() -> None:
    v = Values()
    release = verl_release(v.training.verl_version)
    assert v.training.verl_version == DEFAULT_VERL_VERSION
    assert (v.image.repository, v.image.tag, v.ray.version) == (
        release.image.repository,
        release.image.tag,
        release.image.ray,
    )


@pytest.mark.parametrize("version", VERSIONS)
def test_the_data_prep_job_and_the_scripts_fetch_the_selected_release(version: str) -> None:
    """The Job's environment (synth; the chart's is held equal by the parity tests) and `verl-grpo
    env` (scripts/60-data.sh) name the release's files and their sha256."""
    r = verl_release(version)
    sets = (f"training.verlVersion={version}", f"image.tag={r.image.tag}")
    (job,) = objects_of_kind(render_one(*sets), "Job")
    env = {e["name"]: e.get("value") for e in job["spec"]["template"]["spec"]["containers"][0]["env"]}
    expected = {
        "VERL_VERSION": version,
        "VERL_WHEEL_URL": r.wheel.url,
        "VERL_WHEEL_SHA256": r.wheel.sha256,
        "GSM8K_SCRIPT_URL": r.gsm8k_script.url,
        "GSM8K_SCRIPT_SHA256": r.gsm8k_script.sha256,
    }
    assert {k: env[k] for k in expected} == expected
    spec = load_spec({"training": {"verlVersion": version}, "image": {"tag": r.image.tag}}, deploying=False)
    scripts = shell_env(spec, find_profile("b200-standard"))
    assert {k: scripts[k] for k in expected} == expected


def test_another_releases_image_is_refused_in_one_line() -> None:
    """verl 0.9.1 in 0.6.1's image (verl's dependencies of another release) is refused, naming the
    image it runs in; a user's own repository is theirs to build (the pre-flight checks it)."""
    with pytest.raises(Problems) as refused:
        load_spec({"training": {"verlVersion": "0.9.1"}}, deploying=False)
    (problem,) = [p for p in refused.value.problems if p.rule == "verl-image-for-version"]
    assert problem.line() == (
        "error: image.tag: 'vllm011.dev7' is not the vllm image of training.verlVersion 0.9.1, which runs in "
        "verlai/verl:vllm024.dev2 (verl-grpo init --verl-version writes both) [verl-image-for-version]"
    )
    load_spec({"training": {"verlVersion": "0.9.1"}, "image": {"repository": "my/verl"}}, deploying=False)


def test_the_ray_of_a_releases_image_is_held_where_it_is_known() -> None:
    with pytest.raises(Problems) as refused:
        load_spec({"ray": {"version": "2.50.0"}}, deploying=False)
    (problem,) = refused.value.problems
    assert problem.key == "ray.version" and "carries 2.49.2" in problem.message
    # 0.9.1's image pins no Ray (data/verl/0.9.1.yaml): any is accepted, the pre-flight asserts it
    load_spec({"training": {"verlVersion": "0.9.1"}, "image": {"tag": "vllm024.dev2"}}, deploying=False)
