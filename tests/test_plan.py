"""`verl-grpo plan`: goldens for both overlays, and arithmetic checked independently."""

from __future__ import annotations

import json

import pytest

from .plan_goldens import GOLDENS, PROFILES, render


@pytest.mark.parametrize("profile", PROFILES)
@pytest.mark.parametrize(("output", "suffix"), [("text", "txt"), ("json", "json")])
def test_plan_matches_the_reviewed_golden(profile, output, suffix, capsys):
    assert render(profile, output, capsys) == (GOLDENS / f"{profile}.{suffix}").read_text(), "make goldens"


def test_batch_arithmetic(capsys):
    plan = json.loads(render("h200-standard", "json", capsys))
    b = plan["batches"]
    # 256 prompts x 8 responses over 16 GPUs; micro-batch 2; GSM8K train split of 7473 rows, 2 epochs.
    assert b["rollouts_per_step"] == 2048
    assert b["responses_per_gpu_per_mini_batch"] == 128 and b["grad_accumulation_steps"] == 64
    assert b["steps_per_epoch"] == 29 and b["total_steps"] == 58
    assert b["checkpoints"] == 6  # steps 10, 20, 30, 40, 50 and the last one (58)
    assert plan["cost"]["per_hour"] == 160.0
    assert plan["memory_per_gpu_gb"]["total_gb"] < plan["memory_per_gpu_gb"]["gpu_gb"]


def test_plan_shows_checker_warnings(capsys):
    from verl_grpo.cli import main

    assert main(["plan", "--profile", "h200-standard", "--set", "training.rolloutN=1"]) == 0
    assert "rollout.n = 1 learns nothing" in capsys.readouterr().out


def test_plan_warns_when_memory_does_not_fit(capsys, tmp_path):
    from verl_grpo.cli import main

    values = tmp_path / "v.yaml"
    values.write_text(
        "training: {gpuMemoryUtilization: 0.6, refParamOffload: false}\n"
        "workerGroups: {gpu-group: {replicas: 1}}\n"
    )
    assert main(["plan", "--profile", "h200-standard", "-f", str(values), "-o", "json"]) == 0
    plan = json.loads(capsys.readouterr().out)
    # Rollout, the largest phase: Qwen2.5-32B's 32.76e9 parameters over 8 GPUs, fp32 weights
    # 16.4 GB and Adam 32.8 GB (gradients are gone outside the update), vLLM 0.6 x 141 = 84.6 GB,
    # CUDA context 0.65 (measured) and NCCL 1.0: 135.4 GB, less than 141 but inside the 10% margin.
    memory = plan["memory_per_gpu_gb"]
    assert (memory["peak_phase"], memory["total_gb"]) == ("rollout", 135.4)
    (warning,) = [w for w in plan["warnings"] if w["stage"] == "plan"]
    assert warning["key"] == "training.gpuMemoryUtilization"
    assert "leaves 5.6 GB of the 141 GB of a h200, less than the 10% margin" in warning["message"]
    # verl forces CPU offload on the reference model (fsdp_workers.py): refParamOffload moves nothing.
    values.write_text("training: {gpuMemoryUtilization: 0.6}\nworkerGroups: {gpu-group: {replicas: 1}}\n")
    assert main(["plan", "--profile", "h200-standard", "-f", str(values), "-o", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["memory_per_gpu_gb"] == memory


def test_bucket_space_and_idle_cost(capsys):
    from verl_grpo.cli import main

    plan = json.loads(render("h200-standard", "json", capsys))
    # 32e9 parameters x (4 B fp32 weights + 8 B Adam moments); two kept, a third while saving.
    assert plan["storage_gb"]["per_checkpoint_gb"] == 384.0
    assert plan["storage_gb"]["bucket_peak_gb"] == 64.0 + 3 * 384.0
    assert plan["cost"]["idle_per_hour"] == 0.0  # spot: the pool scales to 0
    args = ["plan", "--profile", "h200-standard", "--gpu-hour-price", "10", "-o", "json"]
    assert main([*args, "--set", "cluster.capacity=reservation", "--set", "cluster.reservation=r1"]) == 0
    assert json.loads(capsys.readouterr().out)["cost"]["idle_per_hour"] == 160.0  # billed, used or not


def test_plan_lists_every_pod_of_the_cpu_pool(capsys):
    plan = json.loads(render("h200-standard", "json", capsys))
    names = [p["pod"] for p in plan["pods"]]
    assert names[:3] == ["the Ray head", "the data-prep Job", "the RayJob submitter"]
    # 12 CPUs of head + 250m FUSE sidecar + 50m metadata-prefetch sidecar + 100m log shipper.
    assert plan["pods"][0]["cpu"] == "12.4" and plan["pods"][0]["ephemeral"] == "55Gi"
    assert plan["pods"][1]["cpu"] == "8.3"  # the data-prep Job has no log shipper


def test_the_runs_hours_and_cost_follow_the_measured_step_time(capsys):
    """58 steps x 600 s = 9.67 h on 16 GPUs: 154.7 GPU-hours, at 4 per GPU-hour 618.67."""
    from verl_grpo.cli import main

    args = [
        "plan",
        "--profile",
        "h200-standard",
        "--gpu-hour-price",
        "4",
        "--step-seconds",
        "600",
        "-o",
        "json",
    ]
    assert main(args) == 0
    run = json.loads(capsys.readouterr().out)["run"]
    assert run["model"] == "Qwen2.5-32B-Instruct" and run["step_seconds_assumed"] is False
    assert (run["hours"], run["gpu_hours"], run["cost"]) == (9.7, 154.7, round(58 * 600 / 3600 * 16 * 4, 2))
    main(
        [
            "plan",
            "--profile",
            "h200-standard",
            "--set",
            "workerGroups.gpu-group.replicas=4",
            "--step-seconds",
            "600",
        ]
    )
    assert "309.3 GPU-hours" in capsys.readouterr().out


@pytest.mark.parametrize("bad", ["0", "-5", "nan"])
def test_step_seconds_must_be_a_time(capsys, bad):
    from verl_grpo.cli import main

    with pytest.raises(SystemExit) as done:
        main(["plan", "--profile", "h200-standard", f"--step-seconds={bad}"])
    assert done.value.code == 2 and "--step-seconds" in capsys.readouterr().err


def test_two_profiles_on_plan_are_a_usage_error(capsys):
    from verl_grpo.cli import main

    with pytest.raises(SystemExit) as done:
        main(["plan", "--profile", "h200-standard", "--profile", "b200-standard"])
    assert done.value.code == 2
    assert "--profile given twice (h200-standard, b200-standard)" in capsys.readouterr().err


def test_plan_says_how_a_queued_flex_start_run_is_scheduled_and_its_time_limit(capsys):
    """58 steps x 11000 s = 177 h: longer than the 168 h a flex-start VM runs."""
    from verl_grpo.cli import main

    queued = ["--set", "queue.enabled=true"]
    base = ["plan", "--profile", "h200-standard", "--set", "cluster.capacity=flex-start", "-o", "json"]
    assert main([*base, *queued, "--step-seconds", "11000"]) == 0
    plan = json.loads(capsys.readouterr().out)
    assert plan["gpu"]["max_run_hours"] == 168
    how = plan["gpu"]["scheduling"]
    assert "LocalQueue 'verl'" in how and "ProvisioningRequest, queued provisioning" in how
    assert [w["message"] for w in plan["warnings"]] == [
        "the run's 177.2 h exceed the 168 h a flex-start VM runs"
    ]
    assert main([*base, "--step-seconds", "600"]) == 0
    plan = json.loads(capsys.readouterr().out)
    assert plan["gpu"]["scheduling"].startswith("no queue")
    # Unqueued, flex-start's wait is bounded only by KubeRay's deadline: plan says so.
    (waits,) = plan["warnings"]
    assert waits["key"] == "job.preRunningDeadlineSeconds" and "(7200 s)" in waits["message"]
    placed = ["--set", "cluster.capacity=reservation", "--set", "cluster.reservation=r1"]
    placed += ["--set", "queue.topology.mode=required"]
    assert main(["plan", "--profile", "h200-standard", "-o", "json", *queued, *placed]) == 0
    how = json.loads(capsys.readouterr().out)["gpu"]["scheduling"]
    assert "(ProvisioningRequest, atomic scale-up)" in how
    assert how.endswith("workers required within one cloud.google.com/gce-topology-subblock")


def test_plan_says_which_nccl_each_modes_installer_leaves(capsys):
    """Google's Standard installer copies gIB's plugin only (2da1c92), Autopilot's also gIB's NCCL
    build (155bfa4): the pins row says which, per mode (facts/pins.py)."""
    pins = {
        profile: json.loads(render(profile, "json", capsys))["security"]["pins"]["rdma_installer"]
        for profile in ("h200-standard", "h200-autopilot")
    }
    assert "2da1c92" in pins["h200-standard"] and "the workers run the image's NCCL" in pins["h200-standard"]
    assert "155bfa4" in pins["h200-autopilot"] and "gIB's NCCL build" in pins["h200-autopilot"]


def test_plan_names_the_namespace_the_grants_and_the_install_must_share(capsys):
    """One namespace on every path: plan -n says which Workload Identity subjects the scripts'
    grants name and how to install there (helm -n, scripts -n)."""
    from verl_grpo.cli import main

    assert main(["plan", "--profile", "h200-standard", "-n", "ml", "-o", "json"]) == 0
    row = json.loads(capsys.readouterr().out)["security"]["namespace"]
    assert row.startswith("ml: Workload Identity ns/ml/sa/verl-ksa and ns/ml/sa/verl-ksa-data-prep")
    assert "helm -n ml" in row and "scripts with -n ml" in row
