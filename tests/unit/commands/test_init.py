"""commands/init.py: the user's values file for a profile, written whole, checked before it is."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from verl_grpo.cli import build_parser, main
from verl_grpo.commands.flags import one_profile
from verl_grpo.pipeline import load_spec
from verl_grpo.problems import Problems
from verl_grpo.profiles import find_profile


def init(tmp_path: Path, *args: str) -> tuple[int, Path]:
    out = tmp_path / "my.yaml"
    return main(["init", *args, "-o", str(out)]), out


def test_the_file_describes_the_profile_and_deploys_as_written(tmp_path: Path) -> None:
    """What init writes is a complete layer: the scripts, plan and synth find the profile in it
    (no --profile) and the deploy-time rules pass."""
    code, out = init(
        tmp_path, "--profile", "h200-autopilot", "--bucket", "my-bucket", "--zone", "europe-west4-b"
    )
    assert code == 0
    values = yaml.safe_load(out.read_text())
    assert values["storage"]["bucket"] == "my-bucket" and values["cluster"]["zone"] == "europe-west4-b"
    parsed = build_parser().parse_args(["plan", "-f", str(out)])
    assert one_profile(parsed).name == "h200-autopilot"
    spec = load_spec(find_profile("h200-autopilot").layer(), files=[out])
    assert spec.values.cluster.zone == "europe-west4-b"


def test_a_value_not_given_is_left_empty_marked_and_refused_until_filled(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out = init(tmp_path, "--profile", "b200-autopilot", "--bucket", "my-bucket")
    assert code == 0
    assert capsys.readouterr().err.strip().endswith("fill in cluster.zone before use")
    assert "REQUIRED" in out.read_text()
    with pytest.raises(Problems) as refused:
        load_spec(find_profile("b200-autopilot").layer(), files=[out])
    assert [p.key for p in refused.value.problems] == ["cluster.zone"]


@pytest.mark.parametrize(
    ("args", "key"),
    [
        (["--profile", "b200-standard", "--bucket", "My_Bucket"], "storage.bucket"),
        (["--profile", "b200-standard", "--bucket", "b-1", "--reservation", "r"], "--reservation"),
        (["--profile", "h200-autopilot", "--zone", "us-central1"], "cluster.zone"),
        (["--profile", "a4x-standard", "--image", "no-tag"], "--image"),
        (["--profile", "h300-standard"], "--profile"),
    ],
    ids=["uppercase-bucket", "reservation-unused", "region-for-zone", "image-without-tag", "unknown-profile"],
)
def test_bad_input_is_one_line_naming_the_key_and_writes_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], args: list[str], key: str
) -> None:
    code, out = init(tmp_path, *args)
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 1 and len(err) == 1 and f" {key}: " in err[0], err
    assert list(tmp_path.iterdir()) == []


def test_an_existing_file_is_kept_unless_forced(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "my.yaml"
    out.write_text("mine\n")
    assert main(["init", "--profile", "b200-standard", "--bucket", "b-1", "-o", str(out)]) == 1
    assert out.read_text() == "mine\n" and "--force" in capsys.readouterr().err
    assert main(["init", "--profile", "b200-standard", "--bucket", "b-1", "-o", str(out), "--force"]) == 0
    assert yaml.safe_load(out.read_text())["storage"]["bucket"] == "b-1"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["my.yaml"]  # no staged file left


def test_a4x_takes_the_reservation_and_a_multi_arch_image(tmp_path: Path) -> None:
    """--image REPOSITORY:TAG names both platforms of the arm64 nodes' image (image-carries-arch)."""
    code, out = init(
        tmp_path,
        "--profile",
        "a4x-standard",
        "--bucket",
        "b-1",
        "--reservation",
        "my-res",
        "--image",
        "us-docker.pkg.dev/p/verl/verl:v0.6.1-multiarch",
    )
    assert code == 0
    image = yaml.safe_load(out.read_text())["image"]
    assert image == {
        "repository": "us-docker.pkg.dev/p/verl/verl",
        "tag": "v0.6.1-multiarch",
        "platforms": ["linux/amd64", "linux/arm64"],
    }
    assert load_spec(find_profile("a4x-standard").layer(), files=[out]).values.cluster.reservation == "my-res"


def test_stdout_writes_no_file(tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(["init", "--profile", "b200-standard", "--bucket", "b-1", "-o", "-"]) == 0
    assert yaml.safe_load(capsys.readouterr().out)["storage"]["bucket"] == "b-1"
    assert list(tmp_path.iterdir()) == []
