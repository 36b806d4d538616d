"""verl's own rules, by the stage where verl would enforce them, plus warnings for settings that
do nothing or hurt. Stages: 'compose' (Hydra), 'startup' (verl.utils.config.validate_config and the
config dataclasses), 'worker-init' (later, after GPUs are allocated), 'kit' (our advice)."""

from __future__ import annotations

from ..facts.verl_releases import verl_release
from ..facts.versions import version_at_least
from ..pod.preflight import model_billions
from ..problems import VERL, Problem
from .config import ComposedConfig

A = "actor_rollout_ref.actor"
R = "actor_rollout_ref.rollout"
REF = "actor_rollout_ref.ref"
# ActorConfig.__post_init__'s valid_loss_agg_modes (verl/workers/config/actor.py): v0.6.1 and v0.7.0
# list four; the 0.9.1 wheel adds "token-sum" (the kit's verl versions are 0.6.1 and 0.9.1).
LOSS_AGG_MODES = {"token-mean", "seq-mean-token-sum", "seq-mean-token-mean", "seq-mean-token-sum-norm"}
TOKEN_SUM_SINCE = "0.9.0"


# verl's actor default learning rate (verl/trainer/config/actor/actor.yaml@v0.6.1: `lr: 1e-6`), which
# its GRPO recipes use for full fine-tunes, the 32B one included
# (examples/grpo_trainer/run_qwen2_5_32b_grpo_npu.sh, run_qwen2-7b.sh, ... @v0.6.1); the highest any
# of them sets is 3e-6, for LoRA (run_qwen2_5-3b_gsm8k_grpo_lora.sh, run_qwen2_5_vl-7b_lora.sh).
RECIPE_LR = 1e-6
FULL_FINE_TUNE_LR_WARN = 3e-6


def loss_agg_modes(version: str) -> set[str]:
    return LOSS_AGG_MODES | ({"token-sum"} if version_at_least(version, TOKEN_SUM_SINCE) else set())


STRATEGIES = {"fsdp", "fsdp2"}


def error(stage: str, key: str, message: str) -> Problem:
    """A verl setting verl would refuse; `stage` is where it would (module docstring)."""
    return Problem("error", VERL, key, message, rule=f"verl {stage}")


def warning(stage: str, key: str, message: str) -> Problem:
    return Problem("warning", VERL, key, message, rule=f"verl {stage}")


def _both_or_neither(cfg: ComposedConfig, section: str, param: str) -> Problem | None:
    mbs, per_gpu = cfg.get(f"{section}.{param}"), cfg.get(f"{section}.{param}_per_gpu")
    if mbs is None and per_gpu is None:
        return error("startup", f"{section}.{param}_per_gpu", f"set one of {param} or {param}_per_gpu")
    if mbs is not None and per_gpu is not None:
        return error(
            "startup",
            f"{section}.{param}",
            f"set only {param}_per_gpu ({param} is deprecated), not both",
        )
    return None


def startup_rules(cfg: ComposedConfig) -> list[Problem]:
    """What verl checks before any worker starts (validate_config, ActorConfig)."""
    out: list[Problem] = []
    g = cfg.get
    n_gpus = g("trainer.n_gpus_per_node") * g("trainer.nnodes")
    dynamic = bool(g(f"{A}.use_dynamic_bsz"))
    if g(f"{A}.strategy") not in STRATEGIES:
        out.append(error("kit", f"{A}.strategy", f"{g(f'{A}.strategy')!r}; this kit runs fsdp or fsdp2"))
    if g(f"{A}.loss_agg_mode") not in (modes := loss_agg_modes(cfg.version)):
        out.append(
            error(
                "startup",
                f"{A}.loss_agg_mode",
                f"{g(f'{A}.loss_agg_mode')!r}; verl {cfg.version} allows: {', '.join(sorted(modes))}",
            )
        )
    if not dynamic:
        real = g("data.train_batch_size") * g(f"{R}.n")
        if real % n_gpus:
            out.append(
                error(
                    "startup",
                    "data.train_batch_size",
                    f"train_batch_size x rollout.n = {real} is not divisible by the {n_gpus} GPUs",
                )
            )
        if (p := _both_or_neither(cfg, A, "ppo_micro_batch_size")) is not None:
            out.append(p)
        mini, micro, sp = g(f"{A}.ppo_mini_batch_size"), g(f"{A}.ppo_micro_batch_size"), _sp(cfg)
        if g("data.train_batch_size") < mini:
            out.append(
                error(
                    "startup",
                    f"{A}.ppo_mini_batch_size",
                    f"{mini} exceeds data.train_batch_size {g('data.train_batch_size')}",
                )
            )
        elif micro is not None:
            if mini % micro:
                out.append(
                    error(
                        "startup",
                        f"{A}.ppo_micro_batch_size",
                        f"ppo_mini_batch_size {mini} is not divisible by ppo_micro_batch_size {micro}",
                    )
                )
            elif micro * sp < n_gpus:
                out.append(
                    error(
                        "startup",
                        f"{A}.ppo_micro_batch_size",
                        f"ppo_micro_batch_size {micro} x sequence parallel {sp} is below {n_gpus} GPUs",
                    )
                )
        if (
            _uses_reference(cfg)
            and (p := _both_or_neither(cfg, REF, "log_prob_micro_batch_size")) is not None
        ):
            out.append(p)
        if (p := _both_or_neither(cfg, R, "log_prob_micro_batch_size")) is not None:
            out.append(p)
    if (
        _sp(cfg) > 1
        and g(f"{A}.strategy") in STRATEGIES
        and not g("actor_rollout_ref.model.use_remove_padding")
    ):
        out.append(
            error(
                "startup",
                "actor_rollout_ref.model.use_remove_padding",
                "sequence parallelism (ulysses_sequence_parallel_size > 1) needs use_remove_padding=true",
            )
        )
    if g(f"{R}.val_kwargs.do_sample") and not (g(f"{R}.temperature") or 0) > 0:
        out.append(error("startup", f"{R}.temperature", "validation sampling needs temperature > 0"))
    return out


def worker_init_rules(cfg: ComposedConfig) -> list[Problem]:
    """What verl checks only once workers start: after the GPUs are paid for."""
    out: list[Problem] = []
    g = cfg.get
    per_node, nodes = g("trainer.n_gpus_per_node"), g("trainer.nnodes")
    n_gpus, sp = per_node * nodes, _sp(cfg)
    name, mode = g(f"{R}.name"), g(f"{R}.mode")
    names = {"vllm", "sglang"} if not version_at_least(cfg.version, "0.7.0") else {"vllm", "sglang", "trtllm"}
    if name not in names:
        out.append(
            error(
                "worker-init",
                f"{R}.name",
                f"{name!r} is not a rollout for verl {cfg.version}; allowed: {', '.join(sorted(names))}",
            )
        )
    modes = {"sync", "async"} if not version_at_least(cfg.version, "0.7.0") else {"async"}
    if mode not in modes:
        out.append(
            error(
                "worker-init",
                f"{R}.mode",
                f"{mode!r} is not a rollout mode of verl {cfg.version}; allowed: {', '.join(sorted(modes))}",
            )
        )
    # vLLMRollout.__init__ (verl/workers/rollout/vllm_rollout/vllm_rollout_spmd.py@v0.6.1, the sync
    # rollout; the 0.9.1 wheel has no such check): with chunked prefill on, a whole sequence must fit
    # one batch of max_num_batched_tokens.
    if name == "vllm" and mode == "sync" and not version_at_least(cfg.version, "0.7.0"):
        batched = g(f"{R}.max_num_batched_tokens")
        model_len = int(g(f"{R}.max_model_len") or g(f"{R}.prompt_length") + g(f"{R}.response_length"))
        if g(f"{R}.enable_chunked_prefill") and batched < model_len:
            out.append(
                error(
                    "worker-init",
                    f"{R}.max_num_batched_tokens",
                    f"{batched} is below the sequence length {model_len} (max_model_len, or prompt + "
                    "response length) with enable_chunked_prefill: raise it or turn chunked prefill off",
                )
            )
    tp = g(f"{R}.tensor_model_parallel_size") or 1
    dp = g(f"{R}.data_parallel_size") or 1
    pp = g(f"{R}.pipeline_model_parallel_size") or 1
    if n_gpus % (tp * dp * pp):
        out.append(
            error(
                "worker-init",
                f"{R}.tensor_model_parallel_size",
                f"{n_gpus} GPUs are not divisible by tensor x data x pipeline parallel = {tp * dp * pp}",
            )
        )
    if tp > per_node and tp % per_node:
        out.append(
            error(
                "worker-init",
                f"{R}.tensor_model_parallel_size",
                f"TP {tp} spans nodes of {per_node} GPUs only in whole nodes",
            )
        )
    if not g(f"{A}.use_dynamic_bsz") and n_gpus % sp == 0:
        per_gpu = g(f"{A}.ppo_micro_batch_size_per_gpu")
        normalized = g(f"{A}.ppo_mini_batch_size") * g(f"{R}.n") // (n_gpus // sp)
        if normalized <= 0:
            out.append(
                error(
                    "worker-init",
                    f"{A}.ppo_mini_batch_size",
                    f"ppo_mini_batch_size x n / (GPUs / sp) is {normalized}: too few prompts per GPU",
                )
            )
        elif per_gpu and normalized % per_gpu:
            out.append(
                error(
                    "worker-init",
                    f"{A}.ppo_micro_batch_size_per_gpu",
                    f"the mini-batch per GPU ({normalized}) is not divisible by {per_gpu}",
                )
            )
    length = g("data.max_prompt_length") + g("data.max_response_length")
    for section, flag, key in (
        (A, "use_dynamic_bsz", "ppo_max_token_len_per_gpu"),
        (R, "log_prob_use_dynamic_bsz", "log_prob_max_token_len_per_gpu"),
        (REF, "log_prob_use_dynamic_bsz", "log_prob_max_token_len_per_gpu"),
    ):
        limit = g(f"{section}.{key}")
        if g(f"{section}.{flag}") and isinstance(limit, int) and limit < length:
            too_short = f"{limit} tokens cannot hold one sequence of prompt + response = {length}"
            out.append(error("worker-init", f"{section}.{key}", too_short))
    return out


def warnings(cfg: ComposedConfig, ray_cpus_per_node: float | None = None) -> list[Problem]:
    out: list[Problem] = []
    g = cfg.get
    kl_keys = sorted(k for k in cfg.overridden if k.startswith("algorithm.kl_ctrl."))
    if kl_keys and not g("algorithm.use_kl_in_reward"):
        out.append(
            warning(
                "kit",
                kl_keys[0],
                "has no effect without algorithm.use_kl_in_reward=true; "
                "for GRPO verl recommends actor.use_kl_loss=true with actor.kl_loss_coef",
            )
        )
    if g("algorithm.adv_estimator") == "grpo" and g(f"{R}.n") == 1:
        out.append(
            warning("kit", f"{R}.n", "GRPO compares a group of responses: rollout.n = 1 learns nothing")
        )
    if ray_cpus_per_node is not None:
        per_gpu = verl_release(cfg.version).ray_cpus_per_gpu
        need = per_gpu * g("trainer.n_gpus_per_node")
        if ray_cpus_per_node < need:
            out.append(
                warning(
                    "kit",
                    "worker.cpu",
                    f"{ray_cpus_per_node:g} Ray CPUs per node; verl {cfg.version} places {per_gpu} per GPU "
                    f"({need}) and waits forever without them",
                )
            )
    size = model_billions(str(g("actor_rollout_ref.model.path") or ""))
    micro = g(f"{A}.ppo_micro_batch_size_per_gpu")
    if size and isinstance(micro, int):
        reference = 2 if size >= 30 else 8 if size >= 7 else 32
        if micro > 2 * reference:
            out.append(
                warning(
                    "kit",
                    f"{A}.ppo_micro_batch_size_per_gpu",
                    f"{micro} per GPU is far above verl's recipes for a {size:g}B model ({reference})",
                )
            )
    lr = g(f"{A}.optim.lr")
    if size and size >= 7 and not g("actor_rollout_ref.model.lora_rank") and isinstance(lr, int | float):
        if lr > FULL_FINE_TUNE_LR_WARN:
            out.append(
                warning(
                    "kit",
                    f"{A}.optim.lr",
                    f"{lr:g} for a full fine-tune of a {size:g}B model is far above verl's GRPO recipes "
                    f"({RECIPE_LR:g}; {FULL_FINE_TUNE_LR_WARN:g} only with LoRA)",
                )
            )
    return out


def check(cfg: ComposedConfig, ray_cpus_per_node: float | None = None) -> list[Problem]:
    compose = [error("compose", key, message) for key, message in cfg.compose_errors]
    return [*compose, *startup_rules(cfg), *worker_init_rules(cfg), *warnings(cfg, ray_cpus_per_node)]


def _sp(cfg: ComposedConfig) -> int:
    return int(cfg.get(f"{A}.ulysses_sequence_parallel_size") or 1)


def _uses_reference(cfg: ComposedConfig) -> bool:
    return bool(cfg.get("algorithm.use_kl_in_reward") or cfg.get(f"{A}.use_kl_loss"))
