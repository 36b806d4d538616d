"""Per-GPU memory of a verl GRPO run, term by term: what `plan` and `check` judge a run by.

verl's hybrid engine puts the FSDP actor and vLLM on the same GPUs and runs three phases on each,
one after the other (verl 0.6.1, verl/workers/fsdp_workers.py):

- rollout: vLLM generates. `rollout_mode` resumes vLLM's weights and KV cache (`rollout.resume`,
  tags "weights" then "kv_cache") while the actor's sharded state stays where it is (on the GPU
  unless offloaded).
- log-prob: the actor's old log-probs and the reference's, forward only, one log-prob micro-batch
  at a time (`compute_log_prob`, `compute_ref_log_prob`), vLLM asleep.
- update: forward and backward of each PPO micro-batch, then AdamW (`update_actor`), vLLM asleep:
  `trainer_mode` calls `rollout.release()` (vLLM's sleep mode, `enable_sleep_mode=free_cache_engine`
  in verl/workers/rollout/vllm_rollout/vllm_rollout_spmd.py) whenever `rollout.free_cache_engine`
  is true, which is verl's default. verl 0.9's engine_workers.py keeps the same resume/release.

So the peak is the largest phase, not the sum of everything. The update is two: the backward of a
micro-batch (its activations and logits) and AdamW's step (its temporaries), which never meet. Each
phase is a list of named terms; every coefficient lives in COEFFICIENTS with where it came from:
"measured" ones are fitted by bench/gpu_memory.py on an H200 (bench/results/, docs/gpu-memory.md),
"estimate" ones are not measured yet.

Pure Python on purpose: bench/gpu_memory.py imports it in the torch venv to compare its numbers with
what the GPU allocates.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

GB = 1e9  # plan's unit: GB of 10^9 bytes, as GPU memory is quoted (H200: 141 GB)
MARGIN = 0.10  # plan and check warn when the peak leaves less than this share of the GPU free


@dataclass(frozen=True)
class Coefficient:
    value: float
    source: str


VERL = "verl 0.6.1"
# One verl actor step on one H200 per configuration: 0.5B, 1.5B and 3B Qwen2.5 shapes, micro-batches
# of 2 to 8 x 1024 to 4096 tokens, checkpointing on and off, log-probs through the flash-attn
# emulation (no flash-attn in that torch 2.11 environment); each coefficient is the rows' median.
MEASURED = "measured: bench/results/gpu-memory-h200-2026-12-06 (H200, torch 2.11, flash-emulated log-probs)"
COEFFICIENTS: dict[str, Coefficient] = {
    # The actor's sharded state: verl builds the actor in fp32 ("we have to create model in fp32.
    # Otherwise, the optimizer is in bf16": fsdp_workers.py _build_model_optimizer; actor
    # fsdp_config.model_dtype defaults to fp32) and shards it over every GPU (fsdp_size -1).
    "weight_bytes": Coefficient(4, f"fp32 master weights ({VERL} fsdp_workers.py)"),
    "grad_bytes": Coefficient(4, "fp32 gradients, in the parameters' dtype (FSDP reduce_dtype fp32)"),
    "adam_bytes": Coefficient(8, "torch.optim.AdamW's exp_avg and exp_avg_sq, fp32 (optim.optimizer AdamW)"),
    # AdamW's default foreach step holds one fp32 temporary per parameter at its peak (the step peak
    # above the gradients is 4.00 B x P in every row).
    "adam_step_bytes": Coefficient(4, f"{MEASURED}: AdamW's step temporaries"),
    # FSDP2 (actor.strategy fsdp2): MixedPrecisionPolicy(param_dtype bf16, reduce_dtype fp32).
    # The root unit (final norm, lm_head, and the embedding when tied) is not resharded after
    # forward (verl/utils/fsdp_utils.py apply_fsdp2): its bf16 copy stays whole through the
    # backward's peak (at lm_head, before any decoder layer is gathered again).
    "root_unit_bytes": Coefficient(2, f"{MEASURED}: the root FSDP unit's bf16 params, whole"),
    # Activations saved for backward per token and decoder layer, in bytes, for Qwen2 with bf16
    # params and flash-attention-2: counted from transformers' Qwen2DecoderLayer (two RMSNorms keep
    # an fp32 input and a bf16 normalised copy, 12h; norm outputs feeding q/k/v and the MLP, 4h;
    # q after RoPE 2h, k and v 4kv; attention output and o_proj's input 4h; gate, up, SiLU(gate) and
    # their product 8i). Korthikanti et al. 2022, "Reducing Activation Recomputation in Large
    # Transformer Models", count 34*s*b*h bytes per GPT layer (4h MLP, no recomputation) by the same
    # method; this is the Qwen2 (SwiGLU, GQA) count. Scaled by activation_scale.
    "activation_scale": Coefficient(0.972, f"{MEASURED}: 22h + 4kv + 8i bytes per token per layer x this"),
    # With gradient checkpointing (model.enable_gradient_checkpointing, non-reentrant) each layer
    # keeps only its bf16 input (2h per token; Korthikanti et al.: 2*s*b*h per layer with full
    # recomputation); backward recomputes one layer at a time, after the peak at lm_head.
    "checkpoint_scale": Coefficient(1.045, f"{MEASURED}: 2h bytes per token per layer x this"),
    # Logits of the PPO micro-batch, bytes per token and vocabulary entry. verl's image ships
    # flash-attn (docker/verl0.6-cu128-torch2.8.0-fa2.7.4), so logprobs_from_logits takes
    # flash_attn's cross_entropy_loss with inplace_backward=True: the bf16 logits are kept and their
    # gradient is written into them (verl/utils/torch_functional.py, logprobs_from_logits). Without
    # flash-attn, logprobs_from_logits_v2 keeps a log_softmax per row, fp32 under CUDA autocast (+4 B).
    # The kept logits and, on top of them, what the backward of the log-probs and lm_head allocates
    # at its peak (the largest term of a long micro-batch: 30 GB for 8 x 4096 tokens of Qwen2.5).
    "logits_bytes_flash": Coefficient(2, f"{MEASURED}: bf16 logits kept for backward"),
    "logits_backward_bytes_flash": Coefficient(6, f"{MEASURED}: the log-probs' and lm_head's backward"),
    "logits_bytes_torch": Coefficient(6, "estimate: bf16 logits + fp32 log_softmax rows (torch path)"),
    "logits_backward_bytes_torch": Coefficient(6, "estimate: as the flash path's backward (torch path)"),
    # The log-prob phase (no grad): bf16 logits; entropy_from_logits is torch.compile'd
    # (actor.use_torch_compile, default true: dp_actor.py), assumed fused without a full fp32 copy.
    "log_prob_logits_bytes": Coefficient(2, "estimate: bf16 logits, entropy fused by torch.compile"),
    "cuda_context_gb": Coefficient(0.65, f"{MEASURED}: CUDA context, cuBLAS workspace (used - reserved)"),
    "nccl_gb": Coefficient(1.0, "estimate: NCCL buffers of the FSDP group (one GPU cannot measure them)"),
    "vllm_asleep_gb": Coefficient(
        1.0, "estimate: what vLLM keeps while asleep (CUDA graphs, its own buffers; not measured)"
    ),
    "allocator_slack": Coefficient(
        0.026, f"{MEASURED}: reserved beyond allocated at the peak (expandable segments)"
    ),
}


def c(name: str) -> float:
    return COEFFICIENTS[name].value


@dataclass(frozen=True)
class Shape:
    """What the memory terms need of a Qwen2-architecture model (its Hugging Face config.json)."""

    name: str
    hidden: int
    layers: int
    intermediate: int
    heads: int
    kv_heads: int
    vocab: int
    tied: bool
    head_dim: int = 0  # 0: hidden // heads

    @property
    def kv_dim(self) -> int:
        return self.kv_heads * (self.head_dim or self.hidden // self.heads)

    def layer_params(self) -> int:
        h, kv = self.hidden, self.kv_dim
        attention = (h * h + h) + 2 * (h * kv + kv) + h * h  # q, k, v with bias; o without
        return attention + 3 * h * self.intermediate + 2 * h  # gate, up, down; two RMSNorms

    def root_params(self) -> int:
        """The root FSDP unit: final norm and lm_head (the embedding too when they are tied)."""
        return self.hidden + self.vocab * self.hidden

    def params(self) -> int:
        embedding = 0 if self.tied else self.vocab * self.hidden
        return embedding + self.root_params() + self.layers * self.layer_params()


# Qwen2.5's published shapes, from each model's Hugging Face config.json
# (https://huggingface.co/Qwen/Qwen2.5-<size>/blob/main/config.json; the -Instruct models share them).
QWEN25: dict[float, Shape] = {
    0.5: Shape("Qwen2.5-0.5B", 896, 24, 4864, 14, 2, 151936, True),
    1.5: Shape("Qwen2.5-1.5B", 1536, 28, 8960, 12, 2, 151936, True),
    3: Shape("Qwen2.5-3B", 2048, 36, 11008, 16, 2, 151936, True),
    7: Shape("Qwen2.5-7B", 3584, 28, 18944, 28, 4, 152064, False),
    14: Shape("Qwen2.5-14B", 5120, 48, 13824, 40, 8, 152064, False),
    32: Shape("Qwen2.5-32B", 5120, 64, 27648, 40, 8, 152064, False),
    72: Shape("Qwen2.5-72B", 8192, 80, 29568, 64, 8, 152064, False),
}


def shape_for(billions: float) -> tuple[Shape, float, str]:
    """The shape, the parameter count and how they were found, for a model of `billions`.

    A Qwen2.5 size: its shape and exact count. Another size: the Qwen2.5 shape nearest in size,
    hidden and intermediate widths scaled by sqrt(size ratio) (parameters grow with width squared
    at a fixed depth), and the count the folder name says."""
    if billions in QWEN25:
        shape = QWEN25[billions]
        return shape, float(shape.params()), f"{shape.name}'s shape (config.json)"
    near = min(QWEN25, key=lambda b: abs(math.log(billions / b)))
    base, k = QWEN25[near], math.sqrt(billions / near)
    shape = Shape(
        f"~{billions:g}B",
        hidden=round(base.hidden * k),
        layers=base.layers,
        intermediate=round(base.intermediate * k),
        heads=base.heads,
        kv_heads=base.kv_heads,
        vocab=base.vocab,
        tied=base.tied,
        head_dim=round(base.hidden * k) // base.heads,
    )
    return shape, billions * 1e9, f"not a Qwen2.5 size: {base.name}'s shape scaled to {billions:g}B"


def activation_bytes_per_token_layer(shape: Shape) -> float:
    """Bytes autograd keeps per token and decoder layer without recomputation (before scaling)."""
    h, kv, i = shape.hidden, shape.kv_dim, shape.intermediate
    return 22 * h + 4 * kv + 8 * i


@dataclass(frozen=True)
class Term:
    name: str  # what it is, as the table shows it
    gb: float
    key: str = ""  # the values key that changes it ("" when none does)
    source: str = ""  # where its coefficient comes from (COEFFICIENTS' source)


@dataclass(frozen=True)
class Run:
    """The settings the estimate depends on, as plan reads them from the values and verl's config."""

    billions: float
    gpus: int  # FSDP shards the actor over all of them (fsdp_size -1)
    gpu_memory_gb: float
    train_tokens: int  # tokens in one PPO micro-batch on one GPU
    log_prob_tokens: int  # tokens in one log-prob micro-batch on one GPU
    gradient_checkpointing: bool
    param_offload: bool  # actor fsdp_config.param_offload: weights and grads leave the GPU between phases
    optimizer_offload: bool  # actor fsdp_config.optimizer_offload
    gpu_memory_utilization: float
    tensor_parallel: int
    logprobs: str = "flash"  # "flash" (verl's image) or "torch" (no flash-attn)
    vllm_sleeps: bool = True  # rollout.free_cache_engine: vLLM frees its pool outside the rollout
    # Which values key to name for each lever (plan passes the ones that apply to these values).
    keys: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Estimate:
    run: Run
    shape: Shape
    params: float
    shape_source: str
    phases: dict[str, list[Term]]  # "rollout", "log-prob", "update"

    @property
    def vllm_weights_gb(self) -> float:
        """Inside vLLM's pool: the bf16 weights over the tensor-parallel group; the KV cache gets the rest."""
        return self.params * 2 / self.run.tensor_parallel / GB

    def total(self, phase: str) -> float:
        return sum(t.gb for t in self.phases[phase])

    @property
    def peak_phase(self) -> str:
        return max(self.phases, key=self.total)

    @property
    def peak_gb(self) -> float:
        return self.total(self.peak_phase)


WEIGHTS, GRADS, ADAM = (
    "actor weights (fp32, sharded)",
    "actor gradients (fp32, sharded)",
    "Adam moments (fp32, sharded)",
)


def actor_states(params: float, gpus: int) -> tuple[float, float, float]:
    """(weights, gradients, Adam moments) per GPU in GB: fp32, sharded over all GPUs."""
    weights, grads, adam = (params * c(f"{name}_bytes") / gpus / GB for name in ("weight", "grad", "adam"))
    return weights, grads, adam


def gathered_gb(shape: Shape, training: bool) -> float:
    """FSDP's unsharded buffers, whole on every GPU whatever the GPU count: in the update's peak the
    root unit; in the log-prob phase (estimate) the root and two decoder layers in flight, bf16."""
    if training:
        return shape.root_params() * c("root_unit_bytes") / GB
    return (shape.root_params() + 2 * shape.layer_params()) * 2 / GB


def activations_gb(shape: Shape, tokens: int, checkpointing: bool) -> float:
    """What the forward keeps for backward: every layer's activations, or with checkpointing each
    layer's input; then the final RMSNorm's fp32 input and bf16 output (6h per token)."""
    head = tokens * 6 * shape.hidden
    if checkpointing:
        return (tokens * 2 * shape.hidden * shape.layers * c("checkpoint_scale") + head) / GB
    per_layer = tokens * activation_bytes_per_token_layer(shape) * c("activation_scale")
    return (per_layer * shape.layers + head) / GB


def logits_gb(shape: Shape, tokens: int, logprobs: str, backward: bool = False) -> float:
    return tokens * shape.vocab * c(f"logits_{'backward_' if backward else ''}bytes_{logprobs}") / GB


def update_terms(
    shape: Shape,
    params: float,
    gpus: int,
    tokens: int,
    checkpointing: bool,
    logprobs: str,
    keys: dict[str, str],
) -> list[Term]:
    """What PyTorch allocates at the backward's peak of the update, the last micro-batch's (the
    gradients of the ones before exist): bench/gpu_memory.py measures these with gpus=1."""
    weights, grads, adam = actor_states(params, gpus)
    sharding = keys.get("gpus", "")
    micro = keys.get("micro_batch", "")
    act_key = micro if checkpointing else keys.get("checkpointing", "")
    return [
        Term(WEIGHTS, weights, sharding, COEFFICIENTS["weight_bytes"].source),
        Term(GRADS, grads, sharding, COEFFICIENTS["grad_bytes"].source),
        Term(ADAM, adam, sharding, COEFFICIENTS["adam_bytes"].source),
        Term("FSDP gathered units", gathered_gb(shape, True), "", COEFFICIENTS["root_unit_bytes"].source),
        Term(
            "activations" + (" (checkpointed)" if checkpointing else ""),
            activations_gb(shape, tokens, checkpointing),
            act_key,
            COEFFICIENTS["checkpoint_scale" if checkpointing else "activation_scale"].source,
        ),
        Term(f"logits ({logprobs} log-probs)", logits_gb(shape, tokens, logprobs), micro),
        Term(
            "logits backward",
            logits_gb(shape, tokens, logprobs, backward=True),
            micro,
            COEFFICIENTS[f"logits_backward_bytes_{logprobs}"].source,
        ),
    ]


def step_terms(params: float, gpus: int, keys: dict[str, str]) -> list[Term]:
    """What PyTorch allocates at AdamW's step: the sharded state and the step's temporaries."""
    weights, grads, adam = actor_states(params, gpus)
    sharding = keys.get("gpus", "")
    return [
        Term(WEIGHTS, weights, sharding, COEFFICIENTS["weight_bytes"].source),
        Term(GRADS, grads, sharding, COEFFICIENTS["grad_bytes"].source),
        Term(ADAM, adam, sharding, COEFFICIENTS["adam_bytes"].source),
        Term(
            "AdamW step temporaries",
            params * c("adam_step_bytes") / gpus / GB,
            sharding,
            COEFFICIENTS["adam_step_bytes"].source,
        ),
    ]


def update_peak_gb(
    shape: Shape, params: float, gpus: int, tokens: int, checkpointing: bool, logprobs: str
) -> float:
    """The most PyTorch allocates in the update: the backward's peak or the step's, whichever is more
    (what bench/gpu_memory.py --compare holds against a measured peak_allocated)."""
    backward = update_terms(shape, params, gpus, tokens, checkpointing, logprobs, {})
    return max(sum(t.gb for t in backward), sum(t.gb for t in step_terms(params, gpus, {})))


def fixed_terms(vllm_asleep: bool) -> list[Term]:
    """What every phase pays whatever the batch: the CUDA context, NCCL, vLLM's sleeping remains."""
    terms = [
        Term("CUDA context", c("cuda_context_gb"), "", COEFFICIENTS["cuda_context_gb"].source),
        Term("NCCL buffers", c("nccl_gb"), "", COEFFICIENTS["nccl_gb"].source),
    ]
    if vllm_asleep:
        terms.append(Term("vLLM asleep", c("vllm_asleep_gb"), "", COEFFICIENTS["vllm_asleep_gb"].source))
    return terms


def with_slack(torch_terms: list[Term]) -> list[Term]:
    slack = sum(t.gb for t in torch_terms) * c("allocator_slack")
    return [*torch_terms, Term("allocator slack", slack, "", COEFFICIENTS["allocator_slack"].source)]


def estimate(run: Run) -> Estimate:
    shape, params, how = shape_for(run.billions)
    keys = run.keys
    weights, _, adam = actor_states(params, run.gpus)
    offload = keys.get("offload", "")
    # Gradients exist only inside update_policy, which zeroes them (set to None) before each
    # mini-batch and after the last (dp_actor.py); param_offload moves weights to the CPU
    # outside the actor's phases, optimizer_offload the Adam moments (fsdp_workers.py).
    resident = [
        Term(WEIGHTS, 0.0 if run.param_offload else weights, offload),
        Term(ADAM, 0.0 if run.optimizer_offload else adam, offload),
    ]
    pool = run.gpu_memory_utilization * run.gpu_memory_gb
    rollout = [
        *resident,
        # vLLM sizes itself to gpu_memory_utilization x the GPU's memory: its weights (bf16 over
        # the TP group), activations and the KV cache in what is left.
        Term("vLLM pool (weights + KV cache)", pool, keys.get("vllm", "")),
        *fixed_terms(vllm_asleep=False),
    ]
    # compute_log_prob loads offloaded weights back, the optimizer stays offloaded. The reference
    # model is FSDP with CPU offload forced ("We force reference policy to use CPUOffload":
    # fsdp_workers.py; verl 0.9 engine/fsdp/transformer_impl.py too): only its gathered layers.
    lp_micro = keys.get("log_prob_micro_batch", "")
    log_prob_torch = [
        Term(WEIGHTS, weights, keys.get("gpus", "")),
        Term(ADAM, 0.0 if run.optimizer_offload else adam, offload),
        Term("FSDP gathered units", gathered_gb(shape, False)),
        Term(
            "activations (one layer, no grad)",
            run.log_prob_tokens * activation_bytes_per_token_layer(shape) / GB,
            lp_micro,
        ),
        Term(
            "logits (log-prob)", run.log_prob_tokens * shape.vocab * c("log_prob_logits_bytes") / GB, lp_micro
        ),
    ]
    update_torch = update_terms(
        shape, params, run.gpus, run.train_tokens, run.gradient_checkpointing, run.logprobs, keys
    )
    # Without free_cache_engine vLLM never sleeps: its whole pool stays through the other phases.
    awake = (
        []
        if run.vllm_sleeps
        else [Term("vLLM pool (awake: free_cache_engine off)", pool, keys.get("vllm", ""))]
    )
    asleep = fixed_terms(vllm_asleep=run.vllm_sleeps)
    phases = {
        "rollout": rollout,
        "log-prob": [*with_slack(log_prob_torch), *awake, *asleep],
        "update": [*with_slack(update_torch), *awake, *asleep],
        "optimizer step": [*with_slack(step_terms(params, run.gpus, keys)), *awake, *asleep],
    }
    return Estimate(run, shape, params, how, phases)


@dataclass(frozen=True)
class Lever:
    key: str  # the values key
    gb: float  # what its terms add up to in the peak phase
    terms: tuple[str, ...]


def lever(est: Estimate) -> Lever | None:
    """The setting whose terms add up to the most in the peak phase: what to turn first."""
    by_key: dict[str, list[Term]] = {}
    for term in est.phases[est.peak_phase]:
        if term.key and term.gb > 0:
            by_key.setdefault(term.key, []).append(term)
    if not by_key:
        return None
    key, terms = max(by_key.items(), key=lambda kv: sum(t.gb for t in kv[1]))
    return Lever(key, sum(t.gb for t in terms), tuple(t.name for t in terms))
