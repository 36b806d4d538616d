"""A real Ray cluster on this machine, shaped like the GKE one: a CPU-only head and two 8-GPU
workers (the GPUs are Ray resources; nothing here needs a real one). It runs in the verl venv
(make oracle), so the job's `python3` has verl, as the image does. The three nodes share one log
folder here, so each node's log monitor forwards an actor's lines: they show up to three times.

The head's filesystem stands in for the pod's: a folder per mount (bucket, checkpoints, the
pre-flight ConfigMap), filled the way the data-prep Job and the kubelet would fill them.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import yaml

from verl_grpo.pod.preflight import MARKER

from .conftest import REPO

VERL_VENV = REPO / ".venv-verl-0.6.1"
PROBE_PACKAGE = REPO / "tests" / "ray_probe" / "verl_grpo_probe"
CLI = REPO / ".venv" / "bin" / "verl-grpo"
PROFILE = "b200-standard-raycluster"
WORKERS, GPUS_PER_WORKER = 2, 8
GSM8K_COLUMNS = ("data_source", "prompt", "ability", "reward_model", "extra_info")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@dataclass
class LocalRay:
    url: str
    root: Path
    values: Path  # the values file that points every mount at root/
    temp: Path  # Ray's scratch folder (session_latest/logs: what a pod's /tmp/ray holds)

    def cli(
        self, *args: str, env: dict[str, str] | None = None, timeout: float = 300
    ) -> subprocess.CompletedProcess:
        return subprocess.run(
            [str(CLI), *args],
            capture_output=True,
            text=True,
            timeout=timeout,
            env={**os.environ, **(env or {})},
            check=False,
        )

    def submit(self, *args: str, **kw) -> subprocess.CompletedProcess:  # noqa: ANN003
        return self.cli(
            "submit", "--profile", PROFILE, "-f", str(self.values), "--address", self.url, *args, **kw
        )

    def submit_step_probe(self, *probe: str, follow: bool = True) -> subprocess.CompletedProcess:
        """The step-line probe in verl's place; `probe` settings arrive as extra args (+probe.steps=N)."""
        sets = ["--set", "training.module=verl_grpo_probe.step_lines"]
        sets += ["--set", "training.extraArgs={" + ",".join(probe) + "}"]
        return self.submit(*sets, *(["--follow"] if follow else []))


def _ray(env: dict[str, str], *args: str, cwd: Path) -> None:
    done = subprocess.run(
        [str(VERL_VENV / "bin" / "ray"), *args], env=env, cwd=cwd, capture_output=True, text=True, check=False
    )
    if done.returncode != 0:
        raise RuntimeError(f"ray {' '.join(args)} failed:\n{done.stdout}\n{done.stderr}")


def ray_env() -> dict[str, str]:
    # The job's `python3` is the verl venv's, as the image's is; no usage reporting from tests.
    return {**os.environ, "PATH": f"{VERL_VENV / 'bin'}:{os.environ['PATH']}", "RAY_USAGE_STATS_ENABLED": "0"}


def start_cluster(root: Path, temp: Path) -> str:
    """`temp` is Ray's own scratch folder: short, since Ray's socket paths live in it."""
    env, work = ray_env(), root / "workdir"
    work.mkdir()
    gcs, dashboard = free_port(), free_port()
    common = ["--num-cpus=2", "--object-store-memory=100000000", "--disable-usage-stats"]
    _ray(
        env,
        "start",
        "--head",
        f"--port={gcs}",
        "--num-gpus=0",
        "--include-dashboard=true",
        "--dashboard-host=127.0.0.1",
        f"--dashboard-port={dashboard}",
        f"--dashboard-agent-listen-port={free_port()}",
        f"--temp-dir={temp}",
        *common,
        cwd=work,
    )
    for _ in range(WORKERS):
        _ray(
            env,
            "start",
            f"--address=127.0.0.1:{gcs}",
            f"--num-gpus={GPUS_PER_WORKER}",
            f"--dashboard-agent-listen-port={free_port()}",
            *common,
            cwd=work,
        )
    _wait_for_gpus(env, gcs, work)
    return f"http://127.0.0.1:{dashboard}"


def _wait_for_gpus(env: dict[str, str], gcs: int, work: Path, timeout: float = 90) -> None:
    want = f"/{float(WORKERS * GPUS_PER_WORKER)} GPU"
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        done = subprocess.run(
            [str(VERL_VENV / "bin" / "ray"), "status", f"--address=127.0.0.1:{gcs}"],
            env=env,
            cwd=work,
            capture_output=True,
            text=True,
            check=False,
        )
        if want in done.stdout:
            return
        time.sleep(1)
    raise RuntimeError(f"Ray cluster never showed {want}")


def stop_cluster() -> None:
    # `ray stop` ends every Ray process of this user: the tests' cluster is the only one CI runs.
    subprocess.run(
        [str(VERL_VENV / "bin" / "ray"), "stop", "--force"], env=ray_env(), capture_output=True, check=False
    )


def fill_mounts(root: Path) -> Path:
    """The bucket as the data-prep Job leaves it, the checkpoint mount, and the values that point at them."""
    bucket = root / "bucket"
    values = {
        "storage": {
            "bucket": "local-test-bucket",
            "mountPath": str(bucket),
            "checkpointMountPath": str(root / "checkpoints"),
        },
        # The NCCL gate needs CUDA; its own test (tests/jobs/test_nccl_gate.py) runs it with gloo.
        "preflight": {"mountPath": str(root / "preflight"), "waitSeconds": 1, "ncclGate": {"enabled": False}},
        "training": {"module": "verl_grpo_probe.env_report"},
    }
    model = bucket / "models" / "Qwen2.5-32B-Instruct"
    model.mkdir(parents=True)
    (model / "config.json").write_text('{"architectures": ["Qwen2ForCausalLM"]}')
    (model / "model.safetensors").write_bytes(b"\0" * 16)
    data = bucket / "data" / "gsm8k"
    data.mkdir(parents=True)
    rows = pa.table({c: [f"{c}-{i}" for i in range(3)] for c in GSM8K_COLUMNS})
    for split in ("train", "test"):
        pq.write_table(rows, data / f"{split}.parquet")
    for folder in (model, data):  # written last by the data-prep Job
        (folder / MARKER).write_text("2026-12-03T00:00:00Z")
    # storage.verlDir, on the job's PYTHONPATH: verl's source (the venv's own copy) and the probes.
    source = bucket / "verl"
    source.mkdir()
    site = next((VERL_VENV / "lib").glob("python3*/site-packages"))
    (source / "verl").symlink_to(site / "verl", target_is_directory=True)
    shutil.copytree(PROBE_PACKAGE, source / PROBE_PACKAGE.name, ignore=shutil.ignore_patterns("__pycache__"))
    # The image's rollout backend (training.rolloutName): vLLM cannot run here, and the pre-flight
    # only looks its module up (preflight.rollout_problems).
    (source / "vllm").mkdir()
    (source / "vllm" / "__init__.py").write_text(
        '"""A stand-in: the image\'s vLLM is looked up, never run."""\n'
    )
    path = root / "values.yaml"
    path.write_text(yaml.safe_dump(values))
    return path


def config_maps(local: LocalRay) -> dict[str, dict[str, str]]:
    done = local.cli("synth", "--profile", PROFILE, "-f", str(local.values), "-o", "-")
    assert done.returncode == 0, done.stderr
    return {
        d["metadata"]["name"]: d["data"] for d in yaml.safe_load_all(done.stdout) if d["kind"] == "ConfigMap"
    }


def mount_preflight(local: LocalRay) -> None:
    """What the kubelet does with the head's projected volume: the files of the `<release>-preflight`
    and `<release>-submit` ConfigMaps at preflight.mountPath."""
    found = config_maps(local)
    target = local.root / "preflight"
    target.mkdir()
    for name in ("verl-preflight", "verl-submit"):
        for key, content in found[name].items():
            (target / key).write_text(content)
