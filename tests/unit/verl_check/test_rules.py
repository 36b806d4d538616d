"""verl_check/rules.py: verl's own rules by the stage where verl would enforce them (compose,
startup, worker-init) and the kit's warnings, on a config composed without verl (the oracle tests
under tests/verl_check/ hold them to the real verl)."""

from __future__ import annotations

from verl_grpo.verl_check.config import compose
from verl_grpo.verl_check.rules import check, loss_agg_modes

A, R, REF = "actor_rollout_ref.actor", "actor_rollout_ref.rollout", "actor_rollout_ref.ref"
# A GRPO run of 2 nodes x 8 GPUs as the kit would pass it: 256 prompts x 8 responses.
CLEAN = [
    "algorithm.adv_estimator=grpo",
    f"{R}.name=vllm",
    f"{R}.n=8",
    f"{R}.tensor_model_parallel_size=8",
    "actor_rollout_ref.model.path=/data/models/Qwen2.5-32B-Instruct",
    "trainer.nnodes=2",
    "trainer.n_gpus_per_node=8",
    "data.train_batch_size=256",
    f"{A}.ppo_mini_batch_size=256",
    f"{A}.ppo_micro_batch_size_per_gpu=2",
    f"{A}.use_kl_loss=true",
    f"{R}.log_prob_micro_batch_size_per_gpu=2",
    f"{REF}.log_prob_micro_batch_size_per_gpu=2",
]


def problems(*extra: str, version: str = "0.9.1", cpus: float | None = None) -> list[tuple[str, str, str]]:
    return [(p.rule, p.key, p.message) for p in check(compose(version, [*CLEAN, *extra]), cpus)]


def errors(*extra: str, version: str = "0.9.1") -> list[tuple[str, str, str]]:
    return [
        (p.rule, p.key, p.message) for p in check(compose(version, [*CLEAN, *extra])) if p.severity == "error"
    ]


def test_a_clean_grpo_config_passes_on_every_recorded_verl() -> None:
    """The baseline the other tests break one setting of: no error, no warning on either verl."""
    assert problems(version="0.6.1") == [] and problems(version="0.9.1") == []


def test_startup_refuses_batches_that_do_not_split_over_the_gpus() -> None:
    """verl's validate_config: train_batch_size x rollout.n must divide over the GPUs, the
    mini-batch may not exceed the batch, and a micro-batch is set one way, not both."""
    ((rule, key, message),) = errors("data.train_batch_size=60", f"{R}.n=1", f"{A}.ppo_mini_batch_size=32")
    assert (rule, key) == ("verl startup", "data.train_batch_size")
    assert message == "train_batch_size x rollout.n = 60 is not divisible by the 16 GPUs"
    assert ("verl startup", f"{A}.ppo_mini_batch_size", "512 exceeds data.train_batch_size 256") in errors(
        f"{A}.ppo_mini_batch_size=512"
    )
    both = errors(f"{A}.ppo_micro_batch_size=16")
    assert [(r, k) for r, k, _ in both] == [("verl startup", f"{A}.ppo_micro_batch_size")]
    assert "not both" in both[0][2]


def test_worker_init_refuses_parallelism_that_does_not_fit_the_nodes() -> None:
    """Tensor parallelism across nodes must take whole nodes, and the rollout must be one verl has."""
    three_nodes = ["trainer.nnodes=3", "data.train_batch_size=192", f"{A}.ppo_mini_batch_size=192"]
    spans = errors(*three_nodes, f"{R}.tensor_model_parallel_size=12")  # 24 GPUs: 2 x 12
    assert [(r, k) for r, k, _ in spans] == [("verl worker-init", f"{R}.tensor_model_parallel_size")]
    assert "TP 12 spans nodes of 8 GPUs only in whole nodes" in spans[0][2]
    ((rule, key, message),) = errors(f"{R}.name=hf", version="0.6.1")
    assert (rule, key) == ("verl worker-init", f"{R}.name")
    assert message.endswith("allowed: sglang, vllm")
    assert errors(f"{R}.name=trtllm") == []  # a rollout of verl 0.7 and newer


def test_compose_errors_come_first_as_verl_compose_errors() -> None:
    """A key Hydra would refuse is reported as a compose error, before what startup would say."""
    found = errors("trainer.nnode=2", "data.train_batch_size=60", f"{R}.n=1", f"{A}.ppo_mini_batch_size=32")
    assert found[0][:2] == ("verl compose", "trainer.nnode")
    assert [r for r, _, _ in found] == ["verl compose", "verl startup"]


def test_token_sum_loss_aggregation_exists_from_verl_0_9() -> None:
    """ActorConfig lists token-sum from verl 0.9 on; versions compare as numbers (0.10 after 0.9)."""
    assert "token-sum" in loss_agg_modes("0.9.0") and "token-sum" in loss_agg_modes("0.10.0")
    assert "token-sum" not in loss_agg_modes("0.8.9")
    assert "token-mean" in loss_agg_modes("0.6.1")


def test_warnings_name_settings_that_do_nothing_or_starve_verl() -> None:
    """GRPO with one response per prompt learns nothing; verl 0.7+ places 3 CPUs per GPU bundle,
    so an 8-GPU node with fewer than 24 Ray CPUs waits forever; a 32B full fine-tune at 1e-5 is far
    above the recipes' 1e-6."""
    warned = [(r, k) for r, k, _ in problems(f"{R}.n=1", cpus=23)]
    assert warned == [("verl kit", f"{R}.n"), ("verl kit", "worker.cpu")]
    assert problems(cpus=24) == []
    assert problems(cpus=8, version="0.6.1") == []  # verl 0.6 asks 1 CPU per GPU
    assert [k for _, k, _ in problems(f"{A}.optim.lr=1e-5")] == [f"{A}.optim.lr"]
