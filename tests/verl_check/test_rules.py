"""verl config checks, and verl itself as the oracle for its start-up validation."""

from __future__ import annotations

import json
import random
import subprocess

import pytest

from verl_grpo.verl_check.config import compose, defaults, supported_versions
from verl_grpo.verl_check.rules import check

from ..conftest import DIST_VALUES, REPO, oracle_python

BASE = [
    "algorithm.adv_estimator=grpo",
    "actor_rollout_ref.rollout.name=vllm",
    "actor_rollout_ref.model.path=/data/models/Qwen2.5-32B-Instruct",
    "data.train_files=/data/train.parquet",
    "data.val_files=/data/test.parquet",
]
STARTUP = {"verl compose", "verl startup"}


def corpus(version: str, size: int = 150) -> list[list[str]]:
    """Configs around the decisions verl's start-up validation makes, valid and invalid."""
    rng = random.Random(f"verl-{version}")
    configs = []
    a, r, ref = "actor_rollout_ref.actor", "actor_rollout_ref.rollout", "actor_rollout_ref.ref"
    for _ in range(size):
        o = list(BASE)
        o += [
            f"data.train_batch_size={rng.choice([16, 32, 60, 64, 64, 99, 256, 256])}",
            f"{r}.n={rng.choice([1, 2, 3, 4, 8, 8])}",
            f"trainer.nnodes={rng.choice([1, 2])}",
            f"trainer.n_gpus_per_node={rng.choice([4, 8])}",
            f"{a}.ppo_mini_batch_size={rng.choice([8, 16, 16, 32, 64, 512])}",
            f"{a}.use_kl_loss={rng.choice(['true', 'false'])}",
            f"algorithm.use_kl_in_reward={rng.choice(['true', 'false', 'false'])}",
        ]
        for section, param in (
            (a, "ppo_micro_batch_size"),
            (r, "log_prob_micro_batch_size"),
            (ref, "log_prob_micro_batch_size"),
        ):
            choice = rng.choice(["per_gpu"] * 12 + ["legacy", "both", "neither"])
            if choice in ("per_gpu", "both"):
                o.append(f"{section}.{param}_per_gpu={rng.choice([1, 2, 4])}")
            if choice in ("legacy", "both"):
                o.append(f"{section}.{param}={rng.choice([4, 8, 16, 32])}")
        if rng.random() < 0.15:
            o.append(f"{a}.use_dynamic_bsz=true")
        if rng.random() < 0.25:
            o += [
                f"{a}.ulysses_sequence_parallel_size=2",
                f"actor_rollout_ref.model.use_remove_padding={rng.choice(['true', 'false'])}",
            ]
        if rng.random() < 0.2:
            o += [f"{r}.val_kwargs.do_sample=true", f"{r}.temperature={rng.choice([0, 0.7])}"]
        if rng.random() < 0.12:  # not a mode; token-sum only from verl 0.9 (verl_check/rules.py)
            o.append(f"{a}.loss_agg_mode={rng.choice(['seq-mean', 'token-sum'])}")
        if rng.random() < 0.08:
            o.append(f"{a}.ppo_mini_batchsize=8")  # a typo: struct mode rejects it
        if rng.random() < 0.05:
            o.append("+data.train_batch_size=8")  # '+' on an existing key
        if rng.random() < 0.05:
            o.append("+trainer.my_note=1")  # '+' on a new key is fine
        configs.append(o)
    return configs


def ours(version: str, overrides: list[str]) -> list:
    return [p for p in check(compose(version, overrides)) if p.rule in STARTUP and p.severity == "error"]


def test_shipped_profiles_pass_every_check(shipped):
    from verl_grpo.constructs.runtime_env import hydra_overrides

    for name, r in shipped.items():
        for version in supported_versions():
            problems = check(compose(version, hydra_overrides(r.spec)), ray_cpus_per_node=215)
            assert problems == [], (name, version, [p.line() for p in problems])


@pytest.mark.parametrize(
    ("extra", "stage", "key"),
    [
        (
            ["data.train_batch_size=99", "actor_rollout_ref.actor.ppo_mini_batch_size=99"],
            "startup",
            "data.train_batch_size",
        ),
        (
            ["actor_rollout_ref.actor.ppo_mini_batch_size=512"],
            "startup",
            "actor_rollout_ref.actor.ppo_mini_batch_size",
        ),
        (
            ["actor_rollout_ref.actor.ppo_micro_batch_size=4"],
            "startup",
            "actor_rollout_ref.actor.ppo_micro_batch_size",
        ),
        (
            ["actor_rollout_ref.rollout.log_prob_micro_batch_size_per_gpu=null"],
            "startup",
            "actor_rollout_ref.rollout.log_prob_micro_batch_size_per_gpu",
        ),
        (
            [
                "actor_rollout_ref.actor.ulysses_sequence_parallel_size=2",
                "actor_rollout_ref.model.use_remove_padding=false",
            ],
            "startup",
            "actor_rollout_ref.model.use_remove_padding",
        ),
        (
            [
                "actor_rollout_ref.rollout.val_kwargs.do_sample=true",
                "actor_rollout_ref.rollout.temperature=0",
            ],
            "startup",
            "actor_rollout_ref.rollout.temperature",
        ),
        (
            ["actor_rollout_ref.actor.ppo_mini_batchsize=8"],
            "compose",
            "actor_rollout_ref.actor.ppo_mini_batchsize",
        ),
        (
            ["actor_rollout_ref.rollout.tensor_model_parallel_size=3"],
            "worker-init",
            "actor_rollout_ref.rollout.tensor_model_parallel_size",
        ),
        (
            ["actor_rollout_ref.rollout.tensor_model_parallel_size=12"],
            "worker-init",
            "actor_rollout_ref.rollout.tensor_model_parallel_size",
        ),
        (["actor_rollout_ref.rollout.name=hf"], "worker-init", "actor_rollout_ref.rollout.name"),
        (
            ["actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu=48"],
            "worker-init",
            "actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu",
        ),
        (
            [
                "actor_rollout_ref.actor.use_dynamic_bsz=true",
                "actor_rollout_ref.actor.ppo_max_token_len_per_gpu=800",
            ],
            "worker-init",
            "actor_rollout_ref.actor.ppo_max_token_len_per_gpu",
        ),
        (["actor_rollout_ref.actor.strategy=megatron"], "kit", "actor_rollout_ref.actor.strategy"),
    ],
)
def test_rules_name_the_key_and_stage(shipped, extra, stage, key):
    from verl_grpo.constructs.runtime_env import hydra_overrides

    overrides = hydra_overrides(shipped["h200-standard"].spec) + extra
    problems = check(compose("0.9.1", overrides))
    assert any(p.rule == f"verl {stage}" and p.key == key for p in problems), [p.line() for p in problems]


def test_sync_rollout_mode_is_gone_from_0_7():
    base = [*BASE, "actor_rollout_ref.rollout.mode=sync"]
    assert not [p for p in check(compose("0.6.1", base)) if p.key.endswith("rollout.mode")]
    assert [p for p in check(compose("0.9.1", base)) if p.key.endswith("rollout.mode")]


def test_token_sum_loss_aggregation_is_verl_0_9s():
    """verl 0.6.1's ActorConfig lists four loss_agg_modes, 0.9.1's five (the oracle agrees:
    test_checker_agrees_with_verl draws token-sum)."""
    base = [*BASE, "actor_rollout_ref.actor.loss_agg_mode=token-sum"]
    (problem,) = [p for p in check(compose("0.6.1", base)) if p.key.endswith("loss_agg_mode")]
    assert problem.rule == "verl startup" and "verl 0.6.1 allows" in problem.message
    assert not [p for p in check(compose("0.9.1", base)) if p.key.endswith("loss_agg_mode")]


@pytest.mark.parametrize(
    ("extra", "refused"),
    [
        (["data.max_prompt_length=8192", "data.max_response_length=512"], True),
        (["data.max_prompt_length=4096", "data.max_response_length=4096"], False),  # 8192: fits
        (["data.max_prompt_length=8192", "data.max_response_length=1"], True),
        (["data.max_prompt_length=8192", "actor_rollout_ref.rollout.enable_chunked_prefill=false"], False),
        (["data.max_prompt_length=8192", "actor_rollout_ref.rollout.max_num_batched_tokens=16384"], False),
        (["actor_rollout_ref.rollout.max_model_len=9000"], True),
    ],
)
def test_a_sequence_above_vllms_batched_tokens_with_chunked_prefill(extra, refused):
    """vLLMRollout refuses it at worker init (vllm_rollout_spmd.py@v0.6.1); 0.9.1 has no such check."""
    key = "actor_rollout_ref.rollout.max_num_batched_tokens"
    found = [p for p in check(compose("0.6.1", [*BASE, *extra])) if p.key == key]
    assert [p.rule for p in found] == (["verl worker-init"] if refused else [])
    assert not [p for p in check(compose("0.9.1", [*BASE, *extra])) if p.key == key]


def test_a_full_fine_tune_far_above_the_recipes_learning_rate_is_warned():
    """verl's GRPO recipes train with 1e-6 (3e-6 only with LoRA): 1e-5 on a 32B model is warned,
    the recipes' rates and LoRA are not, nor is a small model."""
    lr = "actor_rollout_ref.actor.optim.lr"

    def warned(*extra: str, model: str = "Qwen2.5-32B-Instruct") -> bool:
        overrides = [*BASE, f"actor_rollout_ref.model.path=/data/models/{model}", *extra]
        return any(p.key == lr and p.severity == "warning" for p in check(compose("0.6.1", overrides)))

    assert warned(f"{lr}=1e-5")
    assert not warned(f"{lr}=1e-6") and not warned(f"{lr}=3e-6")
    assert not warned(f"{lr}=1e-5", "actor_rollout_ref.model.lora_rank=32")
    assert not warned(f"{lr}=1e-5", model="Qwen2.5-3B-Instruct")


def test_warnings_for_settings_that_do_nothing_or_hurt():
    overrides = [
        *BASE,
        "algorithm.kl_ctrl.kl_coef=0.001",
        "actor_rollout_ref.rollout.n=1",
        "actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu=64",
    ]
    keys = {
        p.key for p in check(compose("0.9.1", overrides), ray_cpus_per_node=16) if p.severity == "warning"
    }
    assert keys == {
        "algorithm.kl_ctrl.kl_coef",
        "actor_rollout_ref.rollout.n",
        "worker.cpu",
        "actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu",
    }
    low_cpu = check(compose("0.6.1", BASE), ray_cpus_per_node=16)
    assert "worker.cpu" not in {p.key for p in low_cpu}  # 0.6.1 asks 1 CPU per GPU


def test_cli_check_and_synth_refuse_a_bad_training_config(tmp_path, capsys):
    from verl_grpo.cli import main

    assert main(["check", "--profile", "h200-standard"]) == 0
    # The kit's values: its own rule (the one helm runs too), in the JSON report.
    bad = ["--set", "training.trainBatchSize=99", "--set", "training.ppoMiniBatchSize=96"]
    assert main(["check", "--profile", "h200-standard", "-o", "json", *bad]) == 1
    report = json.loads(capsys.readouterr().out)
    assert [(p["key"], p["rule"]) for p in report["h200-standard"]] == [
        ("training.trainBatchSize", "verl-batch-divisible")
    ]
    # Set through extra overrides, the same mistake is verl's rule on the composed config.
    override = ["--set", "training.extraArgs={data.train_batch_size=99}"]
    assert main(["check", "--profile", "h200-standard", "-o", "json", *override]) == 1
    report = json.loads(capsys.readouterr().out)
    assert report["h200-standard"][0]["key"] == "data.train_batch_size"
    for args in (bad, override):
        assert (
            main(
                [
                    "synth",
                    "-f",
                    str(DIST_VALUES),
                    "--profile",
                    "h200-standard",
                    "-o",
                    str(tmp_path / "out"),
                    *args,
                ]
            )
            == 1
        )
        assert "train_batch" in capsys.readouterr().err.replace("trainBatch", "train_batch")
        assert not (tmp_path / "out").exists()


@pytest.mark.slow
@pytest.mark.parametrize("version", ["0.6.1", "0.9.1"])
def test_checker_agrees_with_verl(version):
    configs = corpus(version)
    done = subprocess.run(
        [str(oracle_python(version)), str(REPO / "tests" / "oracle" / "verl_oracle.py")],
        input=json.dumps(configs),
        capture_output=True,
        text=True,
        check=True,
    )
    report = json.loads(done.stdout)
    assert report["version"] == version
    disagreements = []
    for overrides, verdict in zip(configs, report["results"], strict=True):
        mine = ours(version, overrides)
        if verdict["ok"] != (not mine):
            disagreements.append((overrides[len(BASE) :], verdict["error"], [p.line() for p in mine]))
    refused = sum(not v["ok"] for v in report["results"])
    summary = f"{len(configs)} configs, {refused} refused by verl, {len(disagreements)} disagreements"
    print(f"\nverl {version}: {summary}")
    assert refused >= len(configs) // 5 and len(configs) - refused >= len(configs) // 5  # both kinds present
    assert disagreements == []


@pytest.mark.slow
@pytest.mark.parametrize("version", ["0.6.1", "0.9.1"])
def test_committed_verl_facts_match_verl(version, tmp_path):
    subprocess.run(
        [str(oracle_python(version)), str(REPO / "tools" / "extract_verl_facts.py"), str(tmp_path)],
        check=True,
        capture_output=True,
    )
    assert json.loads((tmp_path / f"{version}.json").read_text())["defaults"] == defaults(version)


def test_unset_micro_batches_are_allowed_with_dynamic_batch_sizes(capsys):
    """verl asks for a micro batch size only without dynamic batch sizes (the oracle test checks
    this against verl itself); `check` allows what verl allows."""
    from verl_grpo.cli import main

    unset = "actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu=null"
    assert main(["check", "--profile", "h200-standard", "--set", f"training.extraArgs={{{unset}}}"]) == 1
    assert "set one of ppo_micro_batch_size" in capsys.readouterr().out
    dynamic = f"training.extraArgs={{actor_rollout_ref.actor.use_dynamic_bsz=true,{unset}}}"
    assert main(["check", "--profile", "h200-standard", "--set", dynamic]) == 0


def test_a_problem_names_the_values_key_first_and_verl_key_second(capsys):
    """The user edits training.ppoMicroBatchSizePerGpu, not verl's key; through extraArgs the verl key
    is what they wrote, so it stays."""
    from verl_grpo.cli import main

    main(["check", "--profile", "h200-standard", "--set", "training.ppoMicroBatchSizePerGpu=8"])
    (line,) = [x for x in capsys.readouterr().out.splitlines() if x.startswith("warning")]
    assert line.startswith(
        "warning: h200-standard: training.ppoMicroBatchSizePerGpu: "
        "(verl actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu) 8 per GPU"
    )
    extra = "training.extraArgs={actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu=8}"
    main(["check", "--profile", "h200-standard", "--set", extra])
    (line,) = [x for x in capsys.readouterr().out.splitlines() if x.startswith("warning")]
    assert line.startswith("warning: h200-standard: actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu: 8")
