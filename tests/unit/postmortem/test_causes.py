"""postmortem/causes.py: the failures `verl-grpo postmortem` knows, the order they win in, and the
settings their fixes name."""

from __future__ import annotations

import re

import pytest

from verl_grpo.postmortem.causes import CAUSES, ERROR_LINE
from verl_grpo.values.schema import values_schema

BY_ID = {cause.id: cause for cause in CAUSES}


def test_ids_are_unique_and_every_pattern_compiles() -> None:
    """A cause is found by its id in reports and tests; a pattern that does not compile would fail
    every postmortem, not only the one it is for."""
    assert len(BY_ID) == len(CAUSES)
    for cause in CAUSES:
        assert cause.patterns and cause.fix, cause.id
        cause.matcher()
        for pattern, refined in cause.refinements:
            re.compile(pattern)
            assert refined, (cause.id, pattern)
        for line, context in cause.paired:
            re.compile(line)
            re.compile(context)


def test_a_dying_rank_wins_over_the_nccl_timeouts_it_causes() -> None:
    """The other ranks of a rank that died (node loss, an OOM) time out in NCCL: NCCL timeouts come
    last, and the pre-flight's own refusal (nothing ran on the GPUs) first."""
    order = [cause.id for cause in CAUSES]
    assert order[0] == "preflight" and order[-1] == "nccl-timeout"
    assert {"node-loss", "cuda-oom", "ray-oom", "fuse-stall"} < set(order[:-1])


def test_every_values_key_a_fix_names_is_one_the_kit_has() -> None:
    """A fix tells the user which key to change: `section.key` in a fix must exist in the values
    schema (a renamed key would send users to one that no longer exists)."""
    schema = values_schema()

    def has(path: list[str]) -> bool:
        node = schema
        for part in path:
            if part == "*":
                return True
            node = (node.get("properties") or {}).get(part)
            if node is None:
                return False
        return True

    sections = "|".join(sorted(schema["properties"]))
    named = re.compile(rf"\b(?:{sections})(?:\.(?:[A-Za-z]+|\*))+")
    texts = [cause.fix for cause in CAUSES] + [r for cause in CAUSES for _, r in cause.refinements]
    keys = {m.group(0) for text in texts for m in named.finditer(text)}
    assert {"training.ppoMicroBatchSizePerGpu", "worker.memory", "job.backoffLimit"} <= keys
    assert [k for k in sorted(keys) if not has(k.split("."))] == []


@pytest.mark.parametrize(
    ("cause", "line", "matches"),
    [
        ("cuda-oom", "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB", True),
        ("cuda-oom", "ValueError: No available memory for the cache blocks. Try increasing", True),
        ("cuda-oom", "INFO: cuda memory profile written", False),
        ("preflight", "preflight: FAILED: model: /data/m does not exist", True),
        ("preflight", "preflight: nccl-gate: FAILED: cause: node w-1", True),
        ("preflight", "echo preflight: FAILED: quoted inside another line", False),  # anchored
        ("image-pull", "Warning  Failed  kubelet  Error: ImagePullBackOff", True),
        ("node-loss", "The actor died because its node has died. Node ID: 7c2f", True),
    ],
)
def test_a_cause_matches_its_own_lines_and_not_lookalikes(cause: str, line: str, matches: bool) -> None:
    """A cause's matcher takes the lines its patterns describe, and not lines that merely look alike."""
    assert bool(BY_ID[cause].matcher().search(line)) == matches


@pytest.mark.parametrize(
    ("line", "is_error"),
    [
        ("ValueError: train_batch_size must be divisible", True),
        ("ray.exceptions.RayTaskError(AttributeError): ray::main_task()", True),
        ("error: the server doesn't have a resource type rayjob", True),
        ('Error from server (NotFound): rayjobs.ray.io "x" not found', True),
        ("Job 'raysubmit_abc' FAILED", True),
        ("INFO worker.py:1 -- Connecting to existing Ray cluster at address: 10.0.0.2:6379", False),
        ("(raylet) 12 tasks done, errors=0", False),  # a word that holds Error is not one
        ("a nonfatal warning was logged", False),
    ],
)
def test_an_error_line_is_a_raised_error_or_a_failure_not_chatter(line: str, is_error: bool) -> None:
    """What an unknown verdict quotes: an exception or a line that says it failed."""
    assert bool(ERROR_LINE.search(line)) == is_error
