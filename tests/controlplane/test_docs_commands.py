"""Every command of README.md, the chart's README and NOTES.txt, run exactly as written, top to
bottom as a reader would, in a clone of its own: the cloud is the recording fakes (tests/fakes:
gcloud, and kubectl for the scripts), the cluster `helm` and `kubectl` talk to is the tier's real
control plane with KubeRay. A command that needs what this tier has not (a Ray cluster running
jobs, a bucket of logs, a pod that runs) is run as written by the test ELSEWHERE names."""

from __future__ import annotations

import os
import re
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

from ..scripts_harness import FAKES, REPO, calls
from .cluster import ControlPlane

pytestmark = pytest.mark.controlplane

DOCS = ("README.md", "charts/verl-grpo/README.md")
QUICK_START = "## Quick start"
# What a clone holds that the commands read; the rest of the repository is not needed.
CLONE = (
    "Makefile",
    "pyproject.toml",
    "constraints.txt",
    ".venv",
    "scripts",
    "charts",
    "overlays",
    "cdk8s",
    "dist",
)
# The lines that talk to the cluster up.sh made: here the control plane's.
CLUSTER_TOOLS = ("helm ", "kubectl ")
# Commands that watch (`-w`, `logs -f`) run until stopped: here for WATCH_SECONDS, and they pass
# when they printed what they watch.
WATCH = re.compile(r" (-w|--watch|-f)$")
WATCH_SECONDS = 5
# Where a reader starts from a fresh clone (the quick start, then the walk-through below it).
SESSION_START = "make venv"

# Run as written by another tier's test (file::test), and why not here.
JOBS = "tests/jobs/test_commands.py"
ELSEWHERE = {
    "make generate": (
        "tests/render/test_dist.py",
        "test_committed_output_equals_a_fresh_generate",
        "rewrites the checkout",
    ),
    "make test": (".ci/run", "", "the command that runs this test"),
    "gcloud init": ("", "", "gcloud's own interactive set-up"),
    ".venv/bin/verl-grpo submit -f my-raycluster.yaml --follow": (
        JOBS,
        "test_follow_shows_progress_and_summary_then_metrics",
        "a Ray cluster that runs jobs",
    ),
    ".venv/bin/verl-grpo submit -f my-raycluster.yaml --compose-only --follow": (
        JOBS,
        "test_verl_composes_the_generated_overrides",
        "a Ray cluster that runs jobs",
    ),
    ".venv/bin/verl-grpo status JOB_ID": (
        JOBS,
        "test_follow_shows_progress_and_summary_then_metrics",
        "a job",
    ),
    ".venv/bin/verl-grpo logs JOB_ID --follow": (
        JOBS,
        "test_follow_shows_progress_and_summary_then_metrics",
        "a job",
    ),
    ".venv/bin/verl-grpo stop JOB_ID": (JOBS, "test_stop_stops_a_running_job", "a job"),
    ".venv/bin/verl-grpo metrics JOB_ID --png score.png --csv score.csv": (
        JOBS,
        "test_follow_shows_progress_and_summary_then_metrics",
        "a job",
    ),
    ".venv/bin/verl-grpo metrics saved.log": (
        "tests/test_cli.py",
        "test_fuzzed_logs_never_crash_metrics",
        "a log",
    ),
    ".venv/bin/verl-grpo logs gs://my-bucket/checkpoints/verl-grpo/grpo-001/logs": (
        "tests/jobs/test_run_logs.py",
        "test_a_runs_logs_outlive_its_cluster",
        "a bucket of a run's logs",
    ),
    ".venv/bin/verl-grpo metrics gs://my-bucket/checkpoints/verl-grpo/grpo-001/logs --csv score.csv": (
        "tests/jobs/test_run_logs.py",
        "test_a_runs_logs_outlive_its_cluster",
        "a bucket of a run's logs",
    ),
    ".venv/bin/verl-grpo postmortem grpo-001 -f my.yaml --kubectl -n default": (
        "tests/unit/commands/test_postmortem.py",
        "test_kubectl_reads_the_namespaces_events_and_rayjobs",
        "a failed run's logs and events",
    ),
    "kubectl port-forward -n default svc/verl-b200-head-svc 8265:8265": (
        JOBS,
        "test_the_manual_submit_of_the_readme_runs",
        "a Ray head that runs",
    ),
    "kubectl get configmap verl-submit -n default -o jsonpath='{.data.runtime-env\\.yaml}'"
    " > runtime-env.yaml": (
        JOBS,
        "test_the_manual_submit_of_the_readme_runs",
        "its block's port-forward",
    ),
    "ray job submit --address http://localhost:8265 --runtime-env runtime-env.yaml -- bash "
    "/opt/verl-grpo/entrypoint.sh": (
        JOBS,
        "test_the_manual_submit_of_the_readme_runs",
        "a Ray head that runs",
    ),
}
# NOTES.txt's commands that need a pod that runs (logs, the dashboard): run as written on the
# local Ray cluster (the RayCluster's three) or not at all here (kwok's pods have no logs).
NOTES_ELSEWHERE = (
    re.compile(r"^kubectl logs "),
    re.compile(r"^kubectl port-forward "),
    re.compile(r"^kubectl get configmap \S+-submit "),
    re.compile(r"^ray job submit "),
)


@dataclass(frozen=True)
class Command:
    doc: str
    block: int  # the document's bash blocks, counted from 1
    text: str


def commands(doc: str) -> list[Command]:
    """The commands of a document's ```bash blocks: continuations joined, comments dropped."""
    found: list[Command] = []
    inside, pending, block = False, "", 0
    for raw in (REPO / doc).read_text().splitlines():
        if raw.startswith("```"):
            inside = raw.strip() == "```bash"
            block += inside
            continue
        if not inside or not raw.strip() or raw.lstrip().startswith("#"):
            continue
        line = re.sub(r"\s+#\s.*$", "", raw).rstrip()
        if line.endswith("\\"):
            pending += line[:-1].strip() + " "
            continue
        found.append(Command(doc, block, pending + line.strip()))
        pending = ""
    return found


def quick_start() -> list[str]:
    """README's first bash block, under its Quick start heading."""
    text = (REPO / "README.md").read_text()
    assert text.index(QUICK_START) < text.index("```bash")
    return [c.text for c in commands("README.md") if c.block == 1]


def test_the_quick_start_is_at_most_ten_lines() -> None:
    assert 0 < len(quick_start()) <= 10


def test_every_command_is_run_here_or_by_a_named_test() -> None:
    """ELSEWHERE names only commands the documents hold, and tests that exist."""
    written = {c.text for doc in DOCS for c in commands(doc)}
    assert set(ELSEWHERE) <= written, set(ELSEWHERE) - written
    for path, test, _why in ELSEWHERE.values():
        if test:
            assert f"def {test}(" in (REPO / path).read_text(), (path, test)


class Reader:
    """A user at a shell in their clone: the fakes for the cloud, the control plane for the
    cluster; `export` lines carry to the next commands."""

    def __init__(self, control_plane: ControlPlane, root: Path) -> None:
        self.clone, home, self.state = root / "clone", root / "home", root / "state"
        self.clone.mkdir(parents=True)
        home.mkdir()
        for name in CLONE:
            (self.clone / name).symlink_to(REPO / name)
        (home / ".hf_token").write_text("hf_fake\n")
        # A prerequisite doctor looks for, whether or not this machine has it: a stand-in.
        plugin = home / "bin" / "gke-gcloud-auth-plugin"
        plugin.parent.mkdir()
        plugin.write_text("#!/bin/sh\nexit 0\n")
        plugin.chmod(0o755)
        self.kubeconfig = control_plane.kubeconfig
        self.env: dict[str, str] = {
            # The user's machine: helm and kubectl (make tools) behind the fakes for the cloud.
            "PATH": f"{FAKES}:{REPO / '.venv' / 'bin'}:/usr/bin:/bin:{plugin.parent}",
            "HOME": str(home),
            "FAKE_STATE": str(self.state),
            "FAKE_QUOTAS": "PREEMPTIBLE_NVIDIA_H200_GPUS=64/0",
            **{k: os.environ[k] for k in ("PYTHONPATH",) if k in os.environ},
        }
        self.applied: list[str] = []  # kubectl apply -k folders, deleted at the end
        self.timings: list[tuple[str, float]] = []

    def run(self, line: str) -> subprocess.CompletedProcess[str]:
        if line.startswith("export "):
            done = subprocess.run(
                ["bash", "-c", f"{line} && env -0"], env=self.env, capture_output=True, text=True, check=True
            )
            self.env = dict(item.split("=", 1) for item in done.stdout.split("\0") if item)
            return done
        env = self.env
        if line.startswith(CLUSTER_TOOLS):
            env = {
                **env,
                "PATH": f"{REPO / '.venv' / 'bin'}:/usr/bin:/bin",
                "KUBECONFIG": str(self.kubeconfig),
            }
        # The documents' ways to deploy (helm install, kubectl apply -k) are alternatives: each on
        # a cluster without the others' objects.
        if line.startswith(("helm install verl ", "kubectl apply ")):
            self.clean()
        self.applied += re.findall(r"^kubectl apply .*-k (\S+)", line)
        started = time.monotonic()
        try:
            done = subprocess.run(
                ["bash", "-c", line],
                cwd=self.clone,
                env=env,
                input="y\n",
                capture_output=True,
                text=True,
                check=False,
                timeout=WATCH_SECONDS if WATCH.search(line) else 600,
            )
        except subprocess.TimeoutExpired as e:
            assert WATCH.search(line), f"{line}: no answer in {e.timeout} s"
            out = (e.stdout or b"").decode() if isinstance(e.stdout, bytes) else (e.stdout or "")
            done = subprocess.CompletedProcess(line, 0, out, "")
            assert out.strip(), f"{line}: watched nothing"
        self.timings.append((line, time.monotonic() - started))
        assert done.returncode == 0, f"{line}\n{done.stdout[-2000:]}\n{done.stderr[-3000:]}"
        if line.startswith("scripts/down.sh"):  # the cluster is gone: so is what ran on it
            self.clean()
        return done

    def kubectl(self, *args: str) -> None:
        subprocess.run(
            [str(REPO / ".venv" / "bin" / "kubectl"), "--kubeconfig", str(self.kubeconfig), *args],
            cwd=self.clone,
            capture_output=True,
            check=False,
        )

    def uninstall(self) -> None:
        subprocess.run(
            [str(REPO / ".venv" / "bin" / "helm"), "uninstall", "verl", "-n", "default", "--wait"],
            env={**self.env, "KUBECONFIG": str(self.kubeconfig)},
            capture_output=True,
            check=False,
        )

    def clean(self) -> None:
        self.uninstall()
        for folder in self.applied:
            self.kubectl("delete", "-k", folder, "--ignore-not-found", "--wait")
        self.applied = []


def notes_commands(installed: str) -> list[str]:
    """The commands NOTES.txt printed for a release (its indented lines that start with one)."""
    notes = installed.split("NOTES:", 1)[-1]
    return [
        line.strip()
        for line in notes.splitlines()
        if line.startswith("  ") and line.strip().startswith(("kubectl ", "ray ", "helm "))
    ]


def test_the_documents_run_as_written(control_plane: ControlPlane, tmp_path: Path) -> None:
    readers = [Reader(control_plane, tmp_path / "first")]
    ran_notes = 0
    try:
        for doc in DOCS:
            for command in commands(doc):
                if command.text in ELSEWHERE:
                    continue
                if command.text == SESSION_START and readers[-1].timings:  # a new reader, a fresh clone
                    readers[-1].clean()
                    readers.append(Reader(control_plane, tmp_path / f"reader-{len(readers)}"))
                reader = readers[-1]
                done = reader.run(command.text)
                if command.text.startswith("helm install "):
                    for note in notes_commands(done.stdout):
                        if not any(p.search(note) for p in NOTES_ELSEWHERE):
                            reader.run(note)
                            ran_notes += 1
                if command.text.startswith("kubectl get job,rayjob"):  # the quick start's last look
                    assert (
                        "rayjob.ray.io/verl-grpo-001-" in done.stdout
                        and "job.batch/verl-data-prep-" in done.stdout
                    )
    finally:
        readers[-1].clean()
        for reader in readers:
            print("\n".join(f"{seconds:7.1f} s  {line}" for line, seconds in reader.timings))
    assert ran_notes, "no NOTES.txt command ran"
    for reader in readers:  # each session ends with down.sh
        assert [c for c in calls(reader.state) if "delete" in c["args"]], "down.sh deleted nothing"
