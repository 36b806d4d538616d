"""postmortem/classify.py: a failed run's logs -> its cause, the lines that show it, and the fix; or
unknown with the first error lines, never a guess."""

from __future__ import annotations

from verl_grpo.postmortem.classify import EVIDENCE, WIDEST, classify, normalise, report

OOM = "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 4.64 GiB"
WATCHDOG = "[Rank 3] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=7, OpType=ALLREDUCE)"


def test_rays_prefix_repeat_counter_and_colours_are_taken_off() -> None:
    """Ray forwards a worker's line as `(WorkerDict pid=.., ip=..) line [repeated Nx across cluster]`,
    coloured; what is left is the worker's own line, whichever form the colour codes survived in."""
    forwarded = f"\x1b[36m(WorkerDict pid=2311, ip=10.0.0.2)\x1b[0m {OOM} [repeated 7x across cluster]"
    assert normalise(forwarded) == OOM
    assert normalise(f"^[[36m(WorkerDict pid=2311, ip=10.0.0.2)^[[0m {OOM}") == OOM
    assert normalise("(raylet) [2026-01-01] worker killed\n") == "[2026-01-01] worker killed"
    assert normalise("(not a ray prefix) kept") == "(not a ray prefix) kept"


def test_a_rank_out_of_memory_is_the_cause_and_the_timeouts_it_caused_are_also_seen() -> None:
    """Its peers time out in NCCL after the OOM, and their timeouts may come first in the logs."""
    verdict = classify({"driver.log": f"{WATCHDOG}\n(WorkerDict pid=1, ip=10.0.0.3) {OOM}\n"})
    assert [f.cause.id for f in verdict.findings] == ["cuda-oom", "nccl-timeout"]
    lines = report(verdict)
    assert lines[0] == "cause: cuda-oom: a GPU ran out of memory"
    assert lines[2] == f"  driver.log: {OOM}"  # the evidence, Ray's prefix gone
    assert lines[-2:] == [
        "also seen (often a consequence of the cause):",
        f"  nccl-timeout: driver.log: {WATCHDOG}",
    ]


def test_the_fix_follows_the_phase_the_memory_ran_out_in() -> None:
    """verl runs the log-prob pass in log_prob micro-batches and the update in PPO micro-batches
    (dp_actor.py): a traceback through compute_log_prob names the first, update_policy the second,
    and the line that decided it is quoted first."""
    log_prob = classify({"w.log": f'  File "dp_actor.py", line 300, in compute_log_prob\n{OOM}\n'})
    (finding,) = log_prob.findings
    assert "training.logProbMicroBatchSizePerGpu" in finding.fix
    assert finding.evidence[0].endswith("in compute_log_prob") and len(finding.evidence) <= EVIDENCE
    update = classify({"w.log": f'  File "dp_actor.py", line 420, in update_policy\n{OOM}\n'})
    assert "training.ppoMicroBatchSizePerGpu" in update.findings[0].fix
    assert classify({"w.log": OOM}).findings[0].fix == log_prob.findings[0].cause.fix  # no phase shown


def test_an_oom_killed_container_is_a_fuse_stall_only_beside_the_gcsfuse_sidecar() -> None:
    """OOMKilled alone may be any container; with the GCS FUSE sidecar in the same events it is the
    sidecar, and its memory limit is the setting to change."""
    killed = "  Last State: Terminated\n    Reason: OOMKilled\n"
    assert classify({"events": killed}).cause == "unknown"
    verdict = classify({"events": "Container gke-gcsfuse-sidecar:\n" + killed})
    assert verdict.cause == "fuse-stall"
    assert "storage.sidecar.memoryLimit" in verdict.findings[0].fix


def test_a_long_line_is_quoted_around_what_matched() -> None:
    """An OOM message runs to 500 characters: the window keeps the match and says it was cut."""
    line = "x" * 1000 + " " + OOM + " " + "y" * 1000
    (evidence,) = classify({"w.log": line}).findings[0].evidence
    quoted = evidence.removeprefix("w.log: ")
    assert "CUDA out of memory" in quoted
    assert quoted.startswith("…") and quoted.endswith("…") and len(quoted) == WIDEST + 2


def test_no_known_pattern_is_unknown_with_at_most_five_error_lines() -> None:
    """Nothing known: no guess, the first five error lines quoted instead (or none said to be)."""
    text = "\n".join(["INFO starting", *(f"RuntimeError: step {i} broke" for i in range(7))])
    verdict = classify({"driver.log": text})
    assert verdict.cause == "unknown" and verdict.findings == []
    assert verdict.errors == [f"driver.log: RuntimeError: step {i} broke" for i in range(5)]
    assert report(verdict)[:2] == [
        "cause: unknown (no known failure pattern in the logs, events or status)",
        "first error lines:",
    ]
    assert report(classify({"driver.log": "INFO all quiet"}))[1:] == ["no error lines"]
