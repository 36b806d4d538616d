"""constructs/grpo_ray_job.py: the RayJob's settings, entrypoint and name."""

from __future__ import annotations

import re

import pytest
import yaml

from ..conftest import objects_of_kind, render_one


def test_ray_job_settings(shipped):
    (job,) = objects_of_kind(shipped["h200-standard"], "RayJob")
    s = job["spec"]
    assert job["metadata"]["name"].startswith("verl-grpo-001-")
    assert s["shutdownAfterJobFinishes"] is True and s["ttlSecondsAfterFinished"] > 0
    assert s["backoffLimit"] >= 1 and s["submissionMode"] == "K8sJobMode"
    env = yaml.safe_load(s["runtimeEnvYAML"])
    assert set(env) == {"env_vars"}
    assert all(isinstance(v, str) for v in env["env_vars"].values())
    # gIB's settings come from the node's set_nccl_env.sh, sourced by the workers: the run keeps only
    # its deliberate overrides (the machine's tuner file, NCCL's warnings in the logs).
    nccl = {k: v for k, v in env["env_vars"].items() if k.startswith("NCCL_")}
    assert nccl == {
        "NCCL_TUNER_CONFIG_PATH": "/usr/local/gib/configs/tuner_config_a3u.txtpb",
        "NCCL_DEBUG": "WARN",
    }
    # One command: the pre-flight, which execs verl (the words after its `--`).
    preflight, verl = s["entrypoint"].split(" -- \\\n  ", 1)
    assert preflight.startswith(
        "python3 /opt/verl-grpo/preflight.py --model /data/models/Qwen2.5-32B-Instruct"
    )
    assert (
        "--gpus-per-node 8 --nodes 2 --tensor-parallel 8 --sequence-length 1024 --rollout vllm --keep 2"
        in preflight
    )
    assert "--keep 2 --ray-version 2.49.2 --ray-auth disabled --verl-version 0.6.1" in preflight
    # what verl 0.6.1 imports from the image (data/verl/0.6.1.yaml), then the wait sized from the model
    assert "--imports ray,torch,transformers --wait auto" in preflight
    # The NCCL gate on, its threshold a quarter of an A3 Ultra node's 3200 Gbps (400 GB/s).
    assert preflight.endswith(
        "--nccl-gate true --nccl-gate-size 256Mi --nccl-gate-min-busbw 100 --nccl-gate-timeout 300"
    )
    assert verl.startswith("python3 -m verl.trainer.main_ppo")
    assert "&&" not in s["entrypoint"] and ";" not in s["entrypoint"]
    assert s["ttlSecondsAfterFinished"] == 300  # minutes, not an hour of idle GPUs


def test_entrypoint_carries_training_values(tmp_path):
    values = tmp_path / "v.yaml"
    values.write_text("training: {learningRate: 2.0e-07, gpuMemoryUtilization: 0.55}\n")
    r = render_one(
        "training.extraArgs={trainer.val_before_train=false}",
        "training.logger={console,wandb}",
        "workerGroups.gpu-group.replicas=4",
        "run.name=exp-7",
        files=[values],
    )
    (job,) = objects_of_kind(r, "RayJob")
    ep = job["spec"]["entrypoint"]
    assert "'trainer.nnodes=4'" in ep
    assert "'actor_rollout_ref.actor.optim.lr=2e-7'" in ep  # Go's JSON number format, as Helm prints it
    assert "'actor_rollout_ref.rollout.gpu_memory_utilization=0.55'" in ep
    assert "'trainer.logger=[console,wandb]'" in ep
    assert "'trainer.experiment_name=exp-7'" in ep
    assert "'trainer.default_local_dir=/checkpoints/verl-grpo/exp-7'" in ep
    assert ep.rstrip().endswith("'trainer.resume_mode=auto' trainer.val_before_train=false")
    assert job["metadata"]["name"].startswith("verl-exp-7-")


def test_the_ray_job_name_follows_its_spec_only():
    """KubeRay ignores changes to an existing RayJob: a changed run must be a new RayJob."""

    def name(*sets: str) -> str:
        (job,) = objects_of_kind(render_one(*sets), "RayJob")
        return job["metadata"]["name"]

    base = name()
    assert re.fullmatch(r"verl-grpo-001-[0-9a-f]{8}", base)
    for change in (
        "training.totalEpochs=3",
        "workerGroups.gpu-group.replicas=4",
        "image.digest=sha256:" + "a" * 64,
        "job.backoffLimit=2",
    ):
        assert name(change) != base, change
    # Values that do not reach the RayJob's spec keep the run.
    for same in ("cluster.cpuNodeCount=3", "dataPrep.backoffLimit=5", "network.createObjects=true"):
        assert name(same) == base, same


@pytest.mark.parametrize(
    ("version", "has_deadline"), [("1.4.2", False), ("1.5.1", False), ("1.6.0", True), ("1.7.0", True)]
)
def test_rayjob_fields_follow_the_kuberay_version(version, has_deadline):
    # preRunningDeadlineSeconds is in ray-operator/apis/ray/v1/rayjob_types.go from v1.6.0 on; an
    # older CRD prunes it silently (a strict apply refuses it). tests/render/test_chart_property.py checks
    # that Helm's semverCompare gate agrees with this for drawn versions.
    (job,) = objects_of_kind(
        render_one(f"kuberay.version={version}", "job.preRunningDeadlineSeconds=600"), "RayJob"
    )
    assert ("preRunningDeadlineSeconds" in job["spec"]) is has_deadline
    if has_deadline:
        assert job["spec"]["preRunningDeadlineSeconds"] == 600


@pytest.mark.parametrize(
    ("sets", "retries"),
    [
        ((), 10),  # Spot, the default capacity: a retry per preemption to survive
        (("cluster.capacity=reservation", "cluster.reservation=r"), 1),
        (
            (
                "cluster.capacity=on-demand",
                "workerGroups.gpu-group=null",
                "workerGroups.g.replicas=2",
                "workerGroups.g.capacity=spot",
            ),
            10,
        ),
        (("job.backoffLimit=0",), 0),
        (("job.backoffLimit=3", "cluster.capacity=on-demand"), 3),
    ],
)
def test_retries_follow_the_capacity_unless_set(sets, retries):
    """KubeRay retries a failed RayJob backoffLimit times on a new cluster; on Spot each retry is a
    preemption survived (values/worker_groups.py backoff_limit). Helm renders the same (parity)."""
    from ..helm_tools import helm_template

    (job,) = objects_of_kind(render_one(*sets), "RayJob")
    assert job["spec"]["backoffLimit"] == retries
    helm_args = [a for s in sets for a in ("--set", s)]
    (helm_job,) = [o for o in helm_template(*helm_args) if o["kind"] == "RayJob"]
    assert helm_job["spec"]["backoffLimit"] == retries
