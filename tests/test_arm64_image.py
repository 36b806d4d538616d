"""A4X's workers are arm64, verl's images x86 only: an image not declared to carry arm64 is
refused on every path (rule image-carries-arch), and the profile runs once the user names one."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import yaml

from verl_grpo.yaml_io import load_all

from .conftest import DIST_VALUES, REPO
from .helm_tools import CHART, run, tool
from .scripts_harness import ARM64_IMAGE, USER_FILES

RESERVATION = USER_FILES["cluster.reservation"]

REFUSAL = "image.platforms: lacks linux/arm64, the platform of the a4x nodes group 'gpu-group' runs on"
OVERLAY = REPO / "overlays" / "a4x-standard" / "values.yaml"


def synth(out: Path, *args: str) -> subprocess.CompletedProcess:
    command = [
        "synth",
        "--profile",
        "a4x-standard",
        "-f",
        str(DIST_VALUES),
        "-f",
        str(RESERVATION),
        *args,
        "-o",
        str(out),
    ]
    code = f"import sys; from verl_grpo.cli import main; sys.exit(main({command!r}))"
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)


def helm(*args: str) -> subprocess.CompletedProcess:
    return run(
        tool("helm"),
        "template",
        "verl",
        str(CHART),
        "-f",
        str(OVERLAY),
        "-f",
        str(DIST_VALUES),
        "-f",
        str(RESERVATION),
        *args,
    )


def test_the_default_image_is_refused_for_a4x_on_the_cli_and_in_helm(tmp_path: Path) -> None:
    done = synth(tmp_path / "out")
    assert done.returncode == 1 and REFUSAL in done.stderr and "[image-carries-arch]" in done.stderr
    assert not (tmp_path / "out").exists()  # nothing written
    done = helm()
    assert done.returncode != 0 and REFUSAL in done.stderr and "[image-carries-arch]" in done.stderr


def test_a4x_runs_the_multi_arch_image_the_user_names(tmp_path: Path) -> None:
    named = yaml.safe_load(ARM64_IMAGE.read_text())["image"]
    expected = f"{named['repository']}:{named['tag']}"
    assert synth(tmp_path / "out", "-f", str(ARM64_IMAGE)).returncode == 0
    (job,) = (tmp_path / "out" / "a4x-standard").glob("rayjob-*.yaml")
    spec = yaml.safe_load(job.read_text())["spec"]["rayClusterSpec"]
    (worker,) = spec["workerGroupSpecs"]
    assert worker["template"]["spec"]["containers"][0]["image"] == expected
    done = helm("-f", str(ARM64_IMAGE))
    assert done.returncode == 0, done.stderr
    (job,) = [d for d in load_all(done.stdout) if d["kind"] == "RayJob"]
    (worker,) = job["spec"]["rayClusterSpec"]["workerGroupSpecs"]
    assert worker["template"]["spec"]["containers"][0]["image"] == expected
