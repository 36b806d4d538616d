"""README's quick start, run exactly as written, line by line, in a clone of its own: the cloud is
the recording fakes (tests/fakes: gcloud, and kubectl for the scripts), the cluster `helm install`
and `kubectl get` talk to is the tier's real control plane with KubeRay."""

from __future__ import annotations

import os
import re
import subprocess
import time
from pathlib import Path

from ..scripts_harness import FAKES, REPO, calls
from .cluster import ControlPlane

QUICK_START = "## Quick start"
# What a clone holds that the commands read; the rest of the repository is not needed.
CLONE = ("Makefile", "pyproject.toml", "constraints.txt", ".venv", "scripts", "charts", "overlays", "cdk8s")
# The lines that talk to the cluster up.sh made: here the control plane's.
CLUSTER_TOOLS = ("helm ", "kubectl ")


def quick_start() -> list[str]:
    """The commands of README's quick start block, comments dropped."""
    text = (REPO / "README.md").read_text()
    block = text.split(QUICK_START, 1)[1].split("```bash\n", 1)[1].split("```", 1)[0]
    return [re.sub(r"\s+#.*$", "", line).strip() for line in block.splitlines() if line.strip()]


def test_the_quick_start_is_at_most_ten_lines() -> None:
    assert 0 < len(quick_start()) <= 10


def test_the_quick_start_runs_as_written(control_plane: ControlPlane, tmp_path: Path) -> None:
    clone, home, state = tmp_path / "clone", tmp_path / "home", tmp_path / "state"
    clone.mkdir()
    home.mkdir()
    for name in CLONE:
        (clone / name).symlink_to(REPO / name)
    (home / ".hf_token").write_text("hf_fake\n")
    # A prerequisite doctor looks for, whether or not this machine has it: a stand-in.
    plugin = home / "bin" / "gke-gcloud-auth-plugin"
    plugin.parent.mkdir()
    plugin.write_text("#!/bin/sh\nexit 0\n")
    plugin.chmod(0o755)
    env: dict[str, str] = {
        # The user's machine: helm and kubectl (make tools) behind the fakes that stand in for the cloud.
        "PATH": f"{FAKES}:{REPO / '.venv' / 'bin'}:/usr/bin:/bin:{plugin.parent}",
        "HOME": str(home),
        "FAKE_STATE": str(state),
        "FAKE_QUOTAS": "PREEMPTIBLE_NVIDIA_H200_GPUS=64/0",
        **{k: os.environ[k] for k in ("PYTHONPATH",) if k in os.environ},
    }
    timings = []
    for line in quick_start():
        if line.startswith("export "):  # the shell's own: carried to the next lines
            done = subprocess.run(
                ["bash", "-c", f"{line} && env -0"], env=env, capture_output=True, text=True, check=True
            )
            env = dict(item.split("=", 1) for item in done.stdout.split("\0") if item)
            continue
        run_env = env
        if line.startswith(CLUSTER_TOOLS):
            run_env = {
                **env,
                "PATH": f"{REPO / '.venv' / 'bin'}:/usr/bin:/bin",
                "KUBECONFIG": str(control_plane.kubeconfig),
            }
        started = time.monotonic()
        done = subprocess.run(
            ["bash", "-c", line],
            cwd=clone,
            env=run_env,
            input="y\n",
            capture_output=True,
            text=True,
            check=False,
        )
        timings.append((line, time.monotonic() - started))
        assert done.returncode == 0, f"{line}\n{done.stdout[-2000:]}\n{done.stderr[-3000:]}"
        if line.startswith("kubectl get"):
            assert (
                "rayjob.ray.io/verl-grpo-001-" in done.stdout and "job.batch/verl-data-prep-" in done.stdout
            )
    print("\n".join(f"{seconds:7.1f} s  {line}" for line, seconds in timings))
    deleted = [c for c in calls(state) if "delete" in c["args"]]
    assert deleted, "down.sh deleted nothing"
    # The release is the quick start's; the tier's other tests install their own.
    subprocess.run(
        [str(REPO / ".venv" / "bin" / "helm"), "uninstall", "verl", "-n", "default", "--wait"],
        env={**env, "KUBECONFIG": str(control_plane.kubeconfig)},
        capture_output=True,
        check=False,
    )
