"""The NCCL gate's own code, run by the shipped pre-flight as a Ray job on the local Ray cluster
(two worker nodes), with torch's gloo backend on the CPU in NCCL's place: one process per GPU,
a healthy fabric passes, a stalled rank and a threshold above what the fabric does fail within the
timeout and say why. The NCCL command line itself is checked statically (tests/test_preflight.py)."""

from __future__ import annotations

import re
import shlex
import time

import pytest
import yaml

from verl_grpo.pod.nccl_gate import parse_size

from ..local_ray import LocalRay
from .test_commands import rendered

pytestmark = pytest.mark.slow

TIMEOUT = 20


def gate_job(local: LocalRay, *flags: str) -> tuple[str, str]:
    """The rendered pre-flight command with the gate on (gloo, 2 GPUs a node), verl replaced by a
    print; returns the job's final status and its log."""
    from ray.job_submission import JobSubmissionClient

    submit = rendered(local, "--set", "preflight.ncclGate.enabled=true")
    (first,) = [line for line in submit["entrypoint.sh"].splitlines() if "preflight.py" in line]
    preflight = shlex.split(first.removesuffix(" \\").removesuffix(" --"))
    assert preflight[preflight.index("--nccl-gate") + 1] == "true"
    command = [*preflight, "--nccl-gate-ranks-per-node", "2", "--nccl-gate-backend", "gloo", *flags]
    command += ["--", "python3", "-c", "print('verl would start now')"]
    env = yaml.safe_load(submit["runtime-env.yaml"])
    env["env_vars"]["GLOO_SOCKET_IFNAME"] = "lo"  # the pods' eth0 is this machine's loopback
    client = JobSubmissionClient(local.url)
    job = client.submit_job(entrypoint=shlex.join(command), runtime_env=env)
    deadline = time.monotonic() + 300
    while (status := client.get_job_status(job).value) not in ("SUCCEEDED", "FAILED", "STOPPED"):
        assert time.monotonic() < deadline, client.get_job_logs(job)
        time.sleep(1)
    return status, client.get_job_logs(job)


def gate_lines(log: str) -> list[str]:
    return [line.removeprefix("preflight: nccl-gate: ") for line in log.splitlines() if "nccl-gate" in line]


def test_a_healthy_fabric_passes_and_reports_nccl_tests_columns(local_ray: LocalRay) -> None:
    status, log = gate_job(local_ray, "--nccl-gate-min-busbw", "0", "--nccl-gate-size", "4Mi")
    assert status == "SUCCEEDED", log
    lines = gate_lines(log)
    # The collectives FSDP and verl use, run with the environment verl gives its workers, taken
    # from the verl the job runs (verl/trainer/constants_ppo.py).
    assert lines[0].startswith(
        "all-reduce, all-gather, reduce-scatter over 4 GPUs on 2 nodes (gloo), sizes 64Ki, 256Ki, 1Mi, 4Mi, "
        "timeout 300 s, with verl's worker environment ("
    )
    assert "NCCL_CUMEM_ENABLE=0" in lines[0] and "CUDA_DEVICE_MAX_CONNECTIONS=1" in lines[0]
    # The NCCL the ranks mapped (torch loads it even for gloo): the cache's nvidia-nccl wheel here.
    assert re.fullmatch(
        r"NCCL \d+\.\d+\.\d+ from /\S+/nvidia/nccl/lib/libnccl\.so\.2 on every rank", lines[1]
    )
    assert lines[2].split() == [
        "group",
        "collective",
        "ranks",
        "size",
        "time(us)",
        "algbw(GB/s)",
        "busbw(GB/s)",
    ]
    rows = [line.split() for line in lines[3:-1]]
    assert [(r[0], r[1], r[-5]) for r in rows][:4] == [("all", "all-reduce", "4")] * 4
    for collective in ("all-reduce", "all-gather", "reduce-scatter"):
        # each checked, correct at every size (a wrong result fails the gate: test_nccl_gate.py)
        assert sum(1 for r in rows if r[0] == "node" and r[-6] == collective) == 8  # 2 nodes, 4 sizes
    for r in rows:  # printed with 2 decimals: compare to 0.01
        ranks, size, micros, algbw, busbw = int(r[-5]), r[-4], float(r[-3]), float(r[-2]), float(r[-1])
        factor = 2 if r[-6] == "all-reduce" else 1
        assert micros > 0 and algbw == pytest.approx(parse_size(size) / micros / 1e3, abs=0.006)
        assert busbw == pytest.approx(algbw * factor * (ranks - 1) / ranks, abs=0.011)
    assert lines[-1].startswith("ok: lowest bus bandwidth ")
    assert "verl would start now" in log


def test_a_stalled_rank_is_named_within_the_timeout(local_ray: LocalRay) -> None:
    started = time.monotonic()
    status, log = gate_job(
        local_ray,
        "--nccl-gate-size",
        "64Ki",
        "--nccl-gate-timeout",
        str(TIMEOUT),
        "--nccl-gate-stall-rank",
        "3",
    )
    assert status == "FAILED", log
    assert time.monotonic() - started < 4 * TIMEOUT + 60
    (failed,) = [line for line in gate_lines(log) if line.startswith("FAILED: ")]
    assert failed.startswith("FAILED: rank 3 (node ")
    assert (
        f", GPU 1) did not reach the all-reduce within {TIMEOUT} s: "
        "stalled by the test hook; the other 3 waited" in failed
    )
    assert "verl would start now" not in log


def test_a_threshold_above_the_fabric_fails_and_names_the_setting(local_ray: LocalRay) -> None:
    status, log = gate_job(local_ray, "--nccl-gate-size", "64Ki", "--nccl-gate-min-busbw", "100000")
    assert status == "FAILED", log
    failed = [line for line in gate_lines(log) if line.startswith("FAILED: ")]
    assert failed[0].startswith("FAILED: all: bus bandwidth ")
    assert "is under 100000 GB/s (preflight.ncclGate.minBusBandwidthGbps)" in failed[0]
    assert failed[-1].startswith("FAILED: cause: node ")
    assert "verl would start now" not in log
