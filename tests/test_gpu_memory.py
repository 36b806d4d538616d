"""gpu_memory.py, plan's per-GPU memory model: its terms against numbers worked out by hand, the
setting its warning names (in `plan` and in `check`), and bench/gpu_memory.py's code on the CPU."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from pytest import approx

from verl_grpo.plan import gpu_memory
from verl_grpo.plan.gpu_memory import ADAM, GRADS, WEIGHTS, Run

from .conftest import REPO

# The shipped H200 run: Qwen2.5-32B on 2 x 8 GPUs, micro-batches of 2 sequences of 512 + 512
# tokens for both the update and the log-probs, gradient checkpointing, vLLM at 0.4 of 141 GB.
H200_DEFAULT = Run(
    billions=32,
    gpus=16,
    gpu_memory_gb=141,
    train_tokens=2 * 1024,
    log_prob_tokens=2 * 1024,
    gradient_checkpointing=True,
    param_offload=False,
    optimizer_offload=False,
    gpu_memory_utilization=0.4,
    tensor_parallel=8,
)


def test_every_term_of_the_default_h200_run_by_hand():
    est = gpu_memory.estimate(H200_DEFAULT)
    # Qwen2.5-32B's config.json: hidden 5120, 64 layers, intermediate 27648, 40 heads, 8 KV heads
    # of 128 (KV width 1024), vocab 152064, embedding and lm_head not tied. Embedding and lm_head
    # 152064 x 5120 = 778,567,680 each; final norm 5120. A layer: q 5120 x 5120 + 5120 bias =
    # 26,219,520; k and v 5120 x 1024 + 1024 = 5,243,904 each; o 26,214,400; gate, up, down
    # 3 x 5120 x 27648 = 424,673,280; two norms 10,240: 487,605,248, x 64 = 31,206,735,872.
    assert est.params == 2 * 778_567_680 + 5120 + 31_206_735_872 == 32_763_876_352
    update = {t.name: t.gb for t in est.phases["update"]}
    assert update[WEIGHTS] == approx(8.190969088)  # 32,763,876,352 x 4 B / 16 GPUs
    assert update[GRADS] == approx(8.190969088)  # fp32 gradients, as the weights
    assert update[ADAM] == approx(16.381938176)  # x 8 B / 16
    # The root unit (lm_head 778,567,680 + norm 5120) in bf16, whole: 778,572,800 x 2 B.
    assert update["FSDP gathered units"] == approx(1.5571456)
    # 2048 tokens x (2 B x 5120 x 64 layers kept x 1.045 (measured) = 684,851.2; the final norm's
    # fp32 input and bf16 output 6 x 5120 = 30,720) = 2048 x 715,571.2.
    assert update["activations (checkpointed)"] == approx(1.4654898176)
    assert update["logits (flash log-probs)"] == approx(0.622854144)  # 2048 x 152064 x 2 B (bf16)
    assert update["logits backward"] == approx(1.868562432)  # 2048 x 152064 x 6 B (measured)
    backward = 8.190969088 * 2 + 16.381938176 + 1.5571456 + 1.4654898176 + 0.622854144 + 1.868562432
    assert update["allocator slack"] == approx(0.026 * backward)
    assert (update["CUDA context"], update["NCCL buffers"], update["vLLM asleep"]) == (0.65, 1.0, 1.0)
    assert est.total("update") == approx(1.026 * backward + 2.65)
    # AdamW's step: the state and one fp32 temporary per parameter, 32,763,876,352 x 4 B / 16.
    step = {t.name: t.gb for t in est.phases["optimizer step"]}
    assert step["AdamW step temporaries"] == approx(8.190969088)
    assert est.total("optimizer step") == approx(1.026 * (8.190969088 * 3 + 16.381938176) + 2.65)
    # Rollout: weights and Adam stay (gradients were zeroed to None), vLLM takes 0.4 x 141 GB.
    rollout = {t.name: t.gb for t in est.phases["rollout"]}
    assert rollout == approx(
        {WEIGHTS: 8.190969088, ADAM: 16.381938176, "vLLM pool (weights + KV cache)": 56.4}
        | {"CUDA context": 0.65, "NCCL buffers": 1.0}
    )
    # Log-probs: no gradients; lm_head and two layers gathered in bf16: (778,572,800 + 2 x
    # 487,605,248) x 2 B; one layer's activations at a time, 2048 x 337,920; bf16 logits.
    log_prob = {t.name: t.gb for t in est.phases["log-prob"]}
    assert log_prob["FSDP gathered units"] == approx(3.507566592)
    assert log_prob["activations (one layer, no grad)"] == approx(0.69206016)
    assert log_prob["logits (log-prob)"] == approx(0.622854144)
    assert est.total("log-prob") == approx(
        1.026 * (8.190969088 + 16.381938176 + 3.507566592 + 1.314914304) + 2.65
    )
    assert est.peak_phase == "rollout" and est.peak_gb == approx(82.622907264)
    assert est.vllm_weights_gb == approx(32.763876352 * 2 / 8)  # bf16 over the TP group of 8


def test_without_checkpointing_every_layer_keeps_its_activations():
    run = Run(**{**H200_DEFAULT.__dict__, "gradient_checkpointing": False})
    update = {t.name: t for t in gpu_memory.estimate(run).phases["update"]}
    # 2048 tokens x (64 layers x 337,920 x 0.972 (measured) + 6 x 5120) = 2048 x 21,052,047.36.
    assert update["activations"].gb == approx(43.11459299328)
    assert update["activations"].key == ""  # plan passes the keys; none given here


def test_torch_log_probs_keep_an_fp32_log_softmax_beside_the_bf16_logits():
    run = Run(**{**H200_DEFAULT.__dict__, "logprobs": "torch"})
    update = {t.name: t.gb for t in gpu_memory.estimate(run).phases["update"]}
    assert update["logits (torch log-probs)"] == approx(2048 * 152064 * 6 / 1e9)


def test_offload_empties_the_rollout_and_a_vllm_that_never_sleeps_stays():
    run = Run(**{**H200_DEFAULT.__dict__, "param_offload": True, "optimizer_offload": True})
    rollout = {t.name: t.gb for t in gpu_memory.estimate(run).phases["rollout"]}
    assert rollout[WEIGHTS] == rollout[ADAM] == 0.0
    awake = gpu_memory.estimate(Run(**{**H200_DEFAULT.__dict__, "vllm_sleeps": False}))
    update = {t.name: t.gb for t in awake.phases["update"]}
    assert update["vLLM pool (awake: free_cache_engine off)"] == approx(56.4)


def test_a_size_qwen25_lacks_takes_the_nearest_shape_scaled():
    shape, params, how = gpu_memory.shape_for(8)
    assert params == 8e9 and "Qwen2.5-7B's shape scaled to 8B" in how
    assert shape.layers == 28 and shape.hidden == round(3584 * (8 / 7) ** 0.5) == 3831
    assert gpu_memory.shape_for(0.5)[1] == 494_032_768  # Qwen2.5-0.5B: 0.49B (its model card)


def test_every_coefficient_says_where_it_comes_from():
    for name, coefficient in gpu_memory.COEFFICIENTS.items():
        assert coefficient.source, name
    # What one GPU measures is measured (bench/results); the rest stays an estimate, and says so.
    kinds = {n: c.source.split(":")[0] for n, c in gpu_memory.COEFFICIENTS.items()}
    assert {n for n, kind in kinds.items() if kind == "measured"} == {
        "adam_step_bytes",
        "root_unit_bytes",
        "activation_scale",
        "checkpoint_scale",
        "logits_bytes_flash",
        "logits_backward_bytes_flash",
        "cuda_context_gb",
        "allocator_slack",
    }
    assert {n for n, kind in kinds.items() if kind == "estimate"} == {
        "logits_bytes_torch",
        "logits_backward_bytes_torch",
        "log_prob_logits_bytes",
        "nccl_gb",
        "vllm_asleep_gb",
    }


# --- the warning: `plan` and `check` name the setting whose terms weigh most -------------------


def plan_json(capsys, *args: str) -> dict:
    from verl_grpo.cli import main

    assert main(["plan", "--profile", "h200-standard", *args, "-o", "json"]) == 0
    return json.loads(capsys.readouterr().out)


def memory_warning(plan: dict) -> dict:
    (warning,) = [w for w in plan["warnings"] if w["stage"] == "plan"]
    return warning


def test_the_shipped_runs_fit_without_a_warning(capsys):
    for profile in ("h200-standard", "b200-standard"):
        from verl_grpo.cli import main

        assert main(["plan", "--profile", profile, "-o", "json"]) == 0
        assert [w for w in json.loads(capsys.readouterr().out)["warnings"] if w["stage"] == "plan"] == []


def test_a_large_micro_batch_names_the_micro_batch(capsys):
    sets = ["--set", "training.ppoMicroBatchSizePerGpu=16", "--set", "training.maxResponseLength=4096"]
    plan = plan_json(capsys, *sets)
    warning = memory_warning(plan)
    assert warning["key"] == "training.ppoMicroBatchSizePerGpu" and "lower it (now 16)" in warning["message"]
    assert plan["memory_per_gpu_gb"]["peak_phase"] == "update"
    assert "'activations (checkpointed)' + 'logits (flash log-probs)'" in warning["message"]


def test_a_large_vllm_share_names_gpu_memory_utilization(capsys):
    plan = plan_json(capsys, "--set-json", "training.gpuMemoryUtilization=0.85")
    warning = memory_warning(plan)
    assert warning["key"] == "training.gpuMemoryUtilization"
    assert "exceeds the 141 GB" in warning["message"] and "lower it (now 0.85)" in warning["message"]
    assert plan["memory_per_gpu_gb"]["peak_phase"] == "rollout"


def test_no_checkpointing_names_gradient_checkpointing(capsys):
    sets = ["--set", "training.gradientCheckpointing=false", "--set", "training.ppoMicroBatchSizePerGpu=4"]
    warning = memory_warning(plan_json(capsys, *sets))
    assert warning["key"] == "training.gradientCheckpointing" and "set it to true" in warning["message"]


def test_an_actor_state_that_outweighs_vllm_in_the_rollout_names_offload():
    from verl_grpo.plan import MEMORY_KEYS

    # Qwen2.5-72B (72.71e9 parameters) on 16 GPUs of 110 GB, vLLM at 0.45: the rollout holds fp32
    # weights 18.2 GB and Adam 36.4 GB (54.5 GB, what offloading frees) beside vLLM's 49.5 GB.
    run = Run(
        **{**H200_DEFAULT.__dict__, "billions": 72, "gpu_memory_gb": 110, "gpu_memory_utilization": 0.45}
    )
    est = gpu_memory.estimate(Run(**{**run.__dict__, "keys": MEMORY_KEYS}))
    assert est.peak_phase == "rollout" and est.peak_gb > 0.9 * 110
    lever = gpu_memory.lever(est)
    assert lever.key == "training.extraArgs" and lever.terms == (WEIGHTS, ADAM)
    assert lever.gb == approx(72_706_203_648 * 12 / 16 / 1e9)


def test_offload_in_extra_args_reaches_the_estimate(capsys):
    offload = '["actor_rollout_ref.actor.fsdp_config.param_offload=true"]'
    plan = plan_json(
        capsys,
        "--set",
        "storage.modelDir=models/Qwen2.5-72B-Instruct",
        "--set-json",
        f"training.extraArgs={offload}",
    )
    rollout = plan["memory_per_gpu_gb"]["phases"]["rollout"]
    assert rollout[WEIGHTS] == 0.0 and rollout[ADAM] == 36.4  # 72.7B x 8 B / 16
    assert [w for w in plan["warnings"] if w["stage"] == "plan"] == []


def test_a_dynamic_batch_names_its_token_budget(capsys):
    extra = (
        '["actor_rollout_ref.actor.use_dynamic_bsz=true",'
        ' "actor_rollout_ref.actor.ppo_max_token_len_per_gpu=65536"]'
    )
    warning = memory_warning(plan_json(capsys, "--set-json", f"training.extraArgs={extra}"))
    assert warning["key"] == "training.extraArgs"
    assert "lower actor_rollout_ref.actor.ppo_max_token_len_per_gpu" in warning["message"]


def test_check_shows_plans_memory_warning(capsys):
    from verl_grpo.cli import main

    sets = ["--set-json", "training.gpuMemoryUtilization=0.85"]
    plan = plan_json(capsys, *sets)
    assert main(["check", "--profile", "h200-standard", *sets, "-o", "json"]) == 0  # a warning, not an error
    (checked,) = [p for p in json.loads(capsys.readouterr().out)["h200-standard"] if p["stage"] == "plan"]
    assert {**checked, "source": ""} == memory_warning(plan)


def test_a_model_folder_without_a_size_has_no_estimate(capsys):
    plan = plan_json(capsys, "--set", "storage.modelDir=models/my-model")
    assert plan["memory_per_gpu_gb"] == {"gpu_gb": 141}
    assert [w for w in plan["warnings"] if w["stage"] == "plan"] == []


# --- bench/gpu_memory.py on the CPU --------------------------------------------------------------


def bench_python() -> Path:
    """The verl venv's Python (torch and transformers; `make oracle` builds it), or
    GPU_MEMORY_BENCH_PYTHON's."""
    path = Path(os.environ.get("GPU_MEMORY_BENCH_PYTHON", REPO / ".venv-verl-0.9.1" / "bin" / "python"))
    if not path.exists():
        pytest.skip(f"{path} missing: `make oracle` builds the verl venv with torch and transformers")
    return path


@pytest.mark.slow
def test_the_benchmark_runs_a_tiny_actor_step_on_the_cpu(tmp_path):
    args = ["--tiny", "--seq-lens", "32", "--micro-batches", "2", "--logprobs", "flash,torch"]
    done = subprocess.run(
        [
            str(bench_python()),
            str(REPO / "bench" / "gpu_memory.py"),
            *args,
            "--device",
            "cpu",
            "--out",
            str(tmp_path),
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    report = json.loads((tmp_path / "gpu_memory.json").read_text())
    tiny = report["models"]["tiny"]
    params = tiny["params"]
    # 2 layers of hidden 64 (q 64x64+64, k and v 64x32+32 each (2 KV heads of 16), o 64x64, MLP
    # 3 x 64 x 128, two norms 128): 37,120 each; the tied embedding 1000 x 64; the final norm 64.
    assert params == 2 * 37_120 + 64_000 + 64 == 138_304
    assert tiny["weights_accounted"] == params * 4  # fp32 master weights
    assert tiny["optimizer_accounted"] == approx(params * 8, rel=0.01)  # two fp32 moments (+ step counts)
    rows = {(r["checkpointing"], r["logprobs"]): r for r in report["rows"]}
    assert set(rows) == {
        (True, "flash-emulated"),
        (False, "flash-emulated"),
        (True, "torch"),
        (False, "torch"),
    }
    for row in rows.values():
        assert row["status"] == "ok" and row["measured"] is None  # no CUDA: tensor sizes only
        counted = row["accounted"]
        assert all(value > 0 for value in counted.values()), counted
        assert counted["grads"] == params * 4
        assert counted["logits"] >= 64 * 1000 * 2  # at least the bf16 logits of 2 x 32 tokens
    assert (
        rows[(True, "torch")]["accounted"]["activations"] < rows[(False, "torch")]["accounted"]["activations"]
    )
    assert (
        rows[(True, "torch")]["accounted"]["logits"] > rows[(True, "flash-emulated")]["accounted"]["logits"]
    )
    table = (tmp_path / "gpu_memory.md").read_text()
    assert "| tiny | on | flash-emulated | 2 x 32 |" in table and "tensor sizes (no CUDA)" in table


# --- the model against the recorded runs (bench/results/, from bench/gpu_memory.py on an H200) ---

RESULTS = sorted((REPO / "bench" / "results").glob("gpu-memory-*/gpu_memory.json"))


def _bench():
    import importlib.util

    spec = importlib.util.spec_from_file_location("gpu_memory_bench", REPO / "bench" / "gpu_memory.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def test_compare_holds_every_recorded_run_within_ten_percent():
    """`bench/gpu_memory.py --compare` (no GPU, no torch) recomputes the current model's update peak
    for every measured row and prints the ratios: every row is within 10%."""
    assert RESULTS, "no recorded runs under bench/results"
    done = subprocess.run(
        [sys.executable, str(REPO / "bench" / "gpu_memory.py"), "--compare", *map(str, RESULTS)],
        capture_output=True,
        text=True,
        check=False,
        env={**os.environ, "PYTHONPATH": str(REPO / "cdk8s")},
    )
    assert done.returncode == 0, done.stderr
    last = done.stdout.strip().splitlines()[-1]
    rows = sum(
        1
        for path in RESULTS
        for r in json.loads(path.read_text())["rows"]
        if r.get("status") == "ok" and r.get("measured")
    )
    assert rows >= 50 and last.startswith(f"{rows} of {rows} within 10%"), last


def test_the_measured_coefficients_are_the_recorded_runs_fit():
    """Each coefficient the model calls measured is what the benchmark's fit gives on the recorded
    runs (the median over their rows), not a number chosen by hand."""
    bench = _bench()
    fitted: dict[str, list[float]] = {}
    for path in RESULTS:
        for name, value in bench.fit(json.loads(path.read_text())).items():
            if isinstance(value, float):
                fitted.setdefault(name, []).append(value)
    measured = {n: c.value for n, c in gpu_memory.COEFFICIENTS.items() if c.source.startswith("measured")}
    for name, value in measured.items():
        assert fitted[name], name
        assert min(fitted[name]) * 0.98 <= value <= max(fitted[name]) * 1.02, (name, value, fitted[name])
