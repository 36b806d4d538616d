"""plan/gpu_memory.py: the per-GPU memory model's arithmetic on shapes counted by hand, and the
properties any such model must have (sharding and offload never add memory, the peak is a phase)."""

from __future__ import annotations

import dataclasses

from pytest import approx

from verl_grpo.plan import gpu_memory
from verl_grpo.plan.gpu_memory import ADAM, WEIGHTS, Run, Shape

RUN = Run(
    billions=7,
    gpus=8,
    gpu_memory_gb=141,
    train_tokens=4096,
    log_prob_tokens=4096,
    gradient_checkpointing=True,
    param_offload=False,
    optimizer_offload=False,
    gpu_memory_utilization=0.4,
    tensor_parallel=4,
)


def run(**changes: object) -> Run:
    return dataclasses.replace(RUN, **changes)


def totals(r: Run) -> dict[str, float]:
    est = gpu_memory.estimate(r)
    return {phase: est.total(phase) for phase in est.phases}


def test_a_tiny_shape_counts_its_parameters_by_hand() -> None:
    """Parameter counts of a Qwen2-shaped model small enough to count by hand."""
    # hidden 4, 2 heads of 2, 1 KV head (KV width 2), intermediate 8, vocab 10. A layer: q 4x4+4 = 20,
    # k and v 4x2+2 = 10 each, o 4x4 = 16, gate/up/down 3x4x8 = 96, two norms 8: 160.
    tiny = Shape("tiny", hidden=4, layers=2, intermediate=8, heads=2, kv_heads=1, vocab=10, tied=True)
    assert tiny.kv_dim == 2 and tiny.layer_params() == 160
    assert tiny.root_params() == 4 + 40  # final norm and lm_head
    assert tiny.params() == 44 + 2 * 160  # tied: the embedding is lm_head
    assert dataclasses.replace(tiny, tied=False).params() == 40 + 44 + 2 * 160


# Qwen2.5 model cards (huggingface.co/Qwen/Qwen2.5-<size>): "Number of Parameters" and "Number of
# Parameters (Non-Embedding)", in billions to two decimals (rounded or cut).
MODEL_CARDS = {0.5: (0.49, 0.36), 1.5: (1.54, 1.31), 7: (7.61, 6.53)}


def test_qwen25_sizes_have_their_model_cards_counts_and_others_borrow_the_nearest_shape() -> None:
    """The shapes give Qwen's published counts; another size takes the nearest shape by ratio."""
    for billions, (total, non_embedding) in MODEL_CARDS.items():
        shape, params, how = gpu_memory.shape_for(billions)
        embedding = shape.vocab * shape.hidden * (1 if shape.tied else 2)
        assert params / 1e9 == approx(total, abs=0.01), billions
        assert (params - embedding) / 1e9 == approx(non_embedding, abs=0.01), billions
        assert how == f"{shape.name}'s shape (config.json)"
    # 10B is nearer 14B (x1.4) than 7B (x1.43): its count is the one asked, its depth 14B's.
    shape, params, how = gpu_memory.shape_for(10)
    assert params == 10e9 and "Qwen2.5-14B's shape scaled to 10B" in how and shape.layers == 48
    assert "Qwen2.5-32B" in gpu_memory.shape_for(25)[2]  # x1.28 below 32B, x1.79 above 14B
    assert gpu_memory.shape_for(8)[0].hidden > gpu_memory.QWEN25[7].hidden  # wider, not deeper


def test_sharding_over_more_gpus_never_needs_more_memory_per_gpu() -> None:
    """FSDP shards weights, gradients and Adam over every GPU: 4 + 4 + 8 = 16 bytes per parameter
    in all, divided by the GPU count; what is gathered whole does not shrink."""
    previous = None
    for gpus in (1, 2, 4, 8, 16, 64):
        now = totals(run(gpus=gpus))
        if previous is not None:
            assert all(now[p] <= previous[p] for p in now), (gpus, now, previous)
        previous = now
        weights, grads, adam = gpu_memory.actor_states(7e9, gpus)
        assert (weights + grads + adam) * gpus == approx(7e9 * 16 / 1e9)
    one, many = (gpu_memory.estimate(run(gpus=g)) for g in (1, 64))
    gathered = [{t.name: t.gb for t in e.phases["update"]}["FSDP gathered units"] for e in (one, many)]
    assert gathered[0] == gathered[1] > 0


def test_offload_and_gradient_checkpointing_only_lower_memory() -> None:
    """Each memory lever lowers the phases it acts on, by what it moves off the GPU."""
    base = totals(RUN)
    weights, _, adam = gpu_memory.actor_states(gpu_memory.shape_for(7)[1], RUN.gpus)
    # Weights leave the GPU outside the actor's phases: the rollout loses exactly them.
    assert totals(run(param_offload=True))["rollout"] == approx(base["rollout"] - weights)
    # The Adam moments leave in the rollout and the log-prob pass; the update needs them back.
    optimizer = totals(run(optimizer_offload=True))
    assert optimizer["rollout"] == approx(base["rollout"] - adam)
    assert optimizer["log-prob"] < base["log-prob"] and optimizer["update"] == approx(base["update"])
    # Recomputing activations keeps one layer's, not every layer's.
    assert totals(run(gradient_checkpointing=False))["update"] > base["update"]


def test_the_peak_is_the_largest_phase_and_an_awake_vllm_adds_its_pool() -> None:
    """The phases run one after the other: the peak is the largest of them, not their sum. With
    free_cache_engine off vLLM keeps its whole pool through the other phases."""
    est = gpu_memory.estimate(RUN)
    assert est.peak_gb == max(totals(RUN).values()) < sum(totals(RUN).values())
    assert est.peak_phase == "rollout"  # 0.4 x 141 GB of vLLM beside a 7B actor sharded over 8
    awake = totals(run(vllm_sleeps=False))
    pool, asleep = 0.4 * 141, gpu_memory.c("vllm_asleep_gb")
    for phase in ("log-prob", "update"):
        assert awake[phase] == approx(totals(RUN)[phase] + pool - asleep)


def test_the_lever_is_the_key_whose_terms_weigh_most_in_the_peak_phase() -> None:
    """The warning names the values key whose terms weigh most in the peak phase, or none."""
    keys = {
        "gpus": "gpus",
        "micro_batch": "micro",
        "vllm": "util",
        "offload": "off",
        "log_prob_micro_batch": "lp",
    }
    assert gpu_memory.lever(gpu_memory.estimate(RUN)) is None  # no keys: nothing to name
    rollout = gpu_memory.lever(gpu_memory.estimate(run(keys=keys)))
    assert rollout.key == "util" and rollout.gb == approx(0.4 * 141)
    long = gpu_memory.estimate(run(keys=keys, train_tokens=64 * 4096, gpu_memory_utilization=0.1))
    assert long.peak_phase == "update"
    lever = gpu_memory.lever(long)
    assert lever.key == "micro" and set(lever.terms) == {
        "activations (checkpointed)",
        "logits (flash log-probs)",
        "logits backward",
    }
    assert WEIGHTS not in lever.terms and ADAM not in lever.terms
