"""The GRPO entrypoint and its Ray runtime environment: one code path for RayJob and `ray job submit`."""

from __future__ import annotations

from ..values.decisions import join, join_prefixed, text
from ..values.derive import DeploySpec

NVIDIA_LIB = "/usr/local/nvidia/lib64"
GIB_LIB = "/usr/local/gib/lib64"
# gIB's NCCL plugin first, then the driver's libraries (Google's RDMA pods set the driver's:
# container-engine-accelerators@992db81 gpudirect-rdma/nccl-test.yaml), then whatever the image set.
LD_LIBRARY_PATH = f"{GIB_LIB}:{NVIDIA_LIB}"

# gIB's NCCL settings come from the script the RDMA installer puts on the node, which Google updates
# with each gIB release; every GKE workload sources it (container-engine-accelerators@992db81
# gpudirect-rdma/nccl-test*.yaml; cluster-toolkit@1047080 examples/gke-a3-ultragpu, gke-a4, gke-a4x
# nccl-jobset-example.yaml), and Cluster Toolkit tells users to "Replace any NCCL env hard coding/caches
# with set_nccl_env.sh sourcing" (modules/management/kubectl-apply/variables.tf@1047080). The worker
# container sources it before `ray start` (VerlRayCluster), so the raylet and every Ray worker it
# spawns inherit the exports; runtime_env carries only the overrides below, which Ray applies on top.
GIB_NCCL_ENV_SCRIPT = "/usr/local/gib/scripts/set_nccl_env.sh"


def worker_setup() -> str:
    """The worker container's args: KubeRay runs `<args> && ulimit -n 65536; ray start ...`
    (ray-operator/controllers/ray/common/pod.go BuildPod, v1.6.1), so the raylet and every Ray worker
    inherit what they export. LD_LIBRARY_PATH is prepended to the image's own (a container `env`
    entry would replace it). A bare failed `source` would skip only the ulimit and start Ray without
    gIB: the script is missing until the RDMA installer has run on the node, so the container exits
    with that message in its log and is restarted."""
    return (
        # (`case`, not ${VAR:+...}: no `${` in a manifest, tests/test_tutorial_defects.py)
        'case "$LD_LIBRARY_PATH" in "") image= ;; *) image=":$LD_LIBRARY_PATH" ;; esac;'
        f' export LD_LIBRARY_PATH="{LD_LIBRARY_PATH}$image";'
        f' source {GIB_NCCL_ENV_SCRIPT} || {{ echo "verl-grpo: {GIB_NCCL_ENV_SCRIPT} not found:'
        ' the gIB RDMA installer has not run on this node"; exit 1; }'
    )


def env_vars(spec: DeploySpec) -> dict[str, str]:
    """Environment for the driver and every Ray worker; all values are strings. NCCL: only deliberate
    overrides of set_nccl_env.sh (see GIB_NCCL_ENV_SCRIPT), each with its reason."""
    # The machine's NCCL settings (GpuProfile.nccl_env), after the common ones: its own tuner file,
    # exported after sourcing the script as Google's recipes do (gpu-recipes@2e1fd5e
    # src/helm-charts/a4/job/templates/workload-job.yaml: tuner_config_a4; cluster-toolkit@1047080
    # examples/machine-learning/a3-ultragpu-8g/nemo-framework/Dockerfile: "Use A3 Ultra tuner config"),
    # none where gIB publishes none (data/gpus/ ncclTunerConfig); and what Google's Ray pages set
    # beyond the script (data/gpus/ ncclEnv cites them).
    return {**common_env(spec), **dict(spec.gpu.nccl_env)}


def common_env(spec: DeploySpec) -> dict[str, str]:
    """The run's own settings, the same on every machine."""
    v = spec.values
    return {
        "PYTHONPATH": f"{v.storage.mount_path}/{v.storage.verl_dir}",
        # The model sits in the bucket: never reach for the hub, keep HF caches off the read-only mount.
        "HF_HUB_OFFLINE": "1",
        "HF_HOME": "/tmp/huggingface",
        # NCCL prints nothing by default; WARN puts its warnings in the Ray logs the log shipper keeps
        # and `explain` reads (postmortem/causes.py), as Cluster Toolkit's NeMo image does (same Dockerfile).
        "NCCL_DEBUG": "WARN",
        # Gloo (torch's CPU collectives) on the pod's default interface, not an RDMA NIC.
        "GLOO_SOCKET_IFNAME": "eth0",
    }


def runtime_env(spec: DeploySpec) -> dict[str, object]:
    return {"env_vars": env_vars(spec)}


def runtime_env_yaml(spec: DeploySpec) -> str:
    """runtime_env as YAML with every value double-quoted (values are path- and name-shaped)."""
    lines = ["env_vars:"]
    for key, value in common_env(spec).items():
        assert '"' not in value and "\\" not in value, f"{key}: unquotable value {value!r}"
        lines.append(f'  {key}: "{value}"')
    return "\n".join(lines) + "\n" + spec.decide.quoted_lines(spec.gpu.nccl_env, "  ")


def hydra_settings(spec: DeploySpec) -> list[tuple[str, str, str | None]]:
    """(verl key, value, the values key it comes from or None): problems verl's rules find in a
    key name the values key first (verl_check), the command line gets `key=value`."""
    v, t, s = spec.values, spec.values.training, spec.values.storage
    data = f"{s.mount_path}/{s.data_dir}"
    return [
        ("algorithm.adv_estimator", "grpo", None),
        ("algorithm.use_kl_in_reward", "false", None),
        ("data.train_files", f"{data}/train.parquet", "storage.dataDir"),
        ("data.val_files", f"{data}/test.parquet", "storage.dataDir"),
        ("data.train_batch_size", text(t.train_batch_size), "training.trainBatchSize"),
        ("data.max_prompt_length", text(t.max_prompt_length), "training.maxPromptLength"),
        ("data.max_response_length", text(t.max_response_length), "training.maxResponseLength"),
        ("data.filter_overlong_prompts", "true", None),
        ("data.truncation", "error", None),
        ("actor_rollout_ref.model.path", f"{s.mount_path}/{s.model_dir}", "storage.modelDir"),
        (
            "actor_rollout_ref.model.enable_gradient_checkpointing",
            text(t.gradient_checkpointing),
            "training.gradientCheckpointing",
        ),
        ("actor_rollout_ref.model.use_remove_padding", "true", None),
        ("actor_rollout_ref.actor.strategy", str(t.strategy), "training.strategy"),
        ("actor_rollout_ref.actor.optim.lr", text(t.learning_rate), "training.learningRate"),
        (
            "actor_rollout_ref.actor.ppo_mini_batch_size",
            text(t.ppo_mini_batch_size),
            "training.ppoMiniBatchSize",
        ),
        (
            "actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu",
            text(t.ppo_micro_batch_size_per_gpu),
            "training.ppoMicroBatchSizePerGpu",
        ),
        ("actor_rollout_ref.actor.use_kl_loss", text(t.use_kl_loss), "training.useKlLoss"),
        ("actor_rollout_ref.actor.kl_loss_coef", text(t.kl_loss_coef), "training.klLossCoef"),
        ("actor_rollout_ref.actor.kl_loss_type", "low_var_kl", None),
        ("actor_rollout_ref.actor.entropy_coeff", text(t.entropy_coeff), "training.entropyCoeff"),
        ("actor_rollout_ref.rollout.name", str(t.rollout_name), "training.rolloutName"),
        (
            "actor_rollout_ref.rollout.tensor_model_parallel_size",
            text(t.tensor_parallel_size),
            "training.tensorParallelSize",
        ),
        (
            "actor_rollout_ref.rollout.gpu_memory_utilization",
            text(t.gpu_memory_utilization),
            "training.gpuMemoryUtilization",
        ),
        ("actor_rollout_ref.rollout.n", text(t.rollout_n), "training.rolloutN"),
        (
            "actor_rollout_ref.rollout.log_prob_micro_batch_size_per_gpu",
            text(t.log_prob_micro_batch_size_per_gpu),
            "training.logProbMicroBatchSizePerGpu",
        ),
        (
            "actor_rollout_ref.ref.log_prob_micro_batch_size_per_gpu",
            text(t.log_prob_micro_batch_size_per_gpu),
            "training.logProbMicroBatchSizePerGpu",
        ),
        (
            "actor_rollout_ref.ref.fsdp_config.param_offload",
            text(t.ref_param_offload),
            "training.refParamOffload",
        ),
        ("trainer.critic_warmup", "0", None),
        ("trainer.logger", f"[{join(t.logger, ',')}]", "training.logger"),
        ("trainer.project_name", str(t.project_name), "training.projectName"),
        ("trainer.experiment_name", str(spec.derived.experiment_name), None),
        ("trainer.n_gpus_per_node", text(spec.gpu.gpus_per_node), None),
        ("trainer.nnodes", text(spec.decide.total_workers(v)), "workerGroups"),
        ("trainer.save_freq", text(t.save_freq), "training.saveFreq"),
        # verl deletes the oldest actor checkpoint beyond this many (trainer.max_actor_ckpt_to_keep,
        # verl/trainer/config/ppo_trainer.yaml, 0.6.1 and 0.9.1): the bucket does not grow without end.
        ("trainer.max_actor_ckpt_to_keep", text(t.checkpoints_to_keep), "training.checkpointsToKeep"),
        ("trainer.test_freq", text(t.test_freq), "training.testFreq"),
        ("trainer.total_epochs", text(t.total_epochs), "training.totalEpochs"),
        ("trainer.default_local_dir", str(checkpoint_dir(spec)), None),
        ("trainer.resume_mode", "auto", None),
    ]


def hydra_overrides(spec: DeploySpec) -> list[str]:
    return [f"{key}={value}" for key, value, _ in hydra_settings(spec)]


def all_overrides(spec: DeploySpec) -> list[str]:
    """What verl receives: our overrides, then the user's extras (concrete values only)."""
    return [*hydra_overrides(spec), *spec.values.training.extra_args]


def checkpoint_dir(spec: DeploySpec) -> str:
    s, t = spec.values.storage, spec.values.training
    return f"{s.checkpoint_mount_path}/{t.project_name}/{spec.derived.experiment_name}"


def logs_folder(spec: DeploySpec) -> str:
    """Where the log shipper copies each pod's Ray logs: the run's checkpoint folder's logs/."""
    return f"{checkpoint_dir(spec)}/logs"


def logs_url(spec: DeploySpec) -> str:
    """The same folder in the bucket (the checkpoint volume mounts only-dir=storage.checkpointDir)."""
    s, t = spec.values.storage, spec.values.training
    return f"gs://{s.bucket}/{s.checkpoint_dir}/{t.project_name}/{spec.derived.experiment_name}/logs"


def preflight_command(spec: DeploySpec) -> str:
    v, s, t = spec.values, spec.values.storage, spec.values.training
    data = f"{s.mount_path}/{s.data_dir}"
    return (
        f"python3 {v.preflight.mount_path}/preflight.py --model {s.mount_path}/{s.model_dir}"
        f" --train {data}/train.parquet --val {data}/test.parquet --checkpoints {checkpoint_dir(spec)}"
        f" --checkpoint-mount {s.checkpoint_mount_path}"
        f" --gpus-per-node {text(spec.gpu.gpus_per_node)} --nodes {text(spec.decide.total_workers(v))}"
        f" --tensor-parallel {text(v.training.tensor_parallel_size)}"
        f" --sequence-length {text(spec.decide.plus(t.max_prompt_length, t.max_response_length))}"
        f" --rollout {text(v.training.rollout_name)}"
        f" --keep {text(v.training.checkpoints_to_keep)}"
        f" --ray-version {text(v.ray.version)} --ray-auth {text(v.ray.auth)}"
        f" --verl-version {text(t.verl_version)}"
        f" --imports {text(spec.decide.release_fact(t.verl_version, 'imageImports'))}"
        # 0: `auto`, sized from the model by the pre-flight itself (preflight.wait_seconds).
        f" --wait {text(spec.decide.or_default(v.preflight.wait_seconds, 'auto'))}"
        f" {nccl_gate_flags(spec)}"
    )


def nccl_gate_flags(spec: DeploySpec) -> str:
    g = spec.values.preflight.nccl_gate
    threshold = spec.decide.or_default(g.min_bus_bandwidth_gbps, spec.gpu.nccl_gate_min_bus_gbps)
    return (
        f"--nccl-gate {text(g.enabled)} --nccl-gate-size {text(g.size)}"
        f" --nccl-gate-min-busbw {text(threshold)} --nccl-gate-timeout {text(g.timeout_seconds)}"
    )


def _verl_command(spec: DeploySpec, before: list[str], after: str) -> str:
    """One quoted override per line, user extras last and verbatim."""
    lines = [*before, f"python3 -m {spec.values.training.module}"]
    lines += [f"'{o}'" for o in hydra_overrides(spec)]
    return " \\\n  ".join(lines) + join_prefixed(spec.values.training.extra_args, " ") + after + "\n"


def entrypoint(spec: DeploySpec) -> str:
    """ONE command: the pre-flight, which execs verl (the words after `--`) once its checks pass.

    No `&&`: KubeRay's K8sJobMode submitter pastes spec.entrypoint unquoted into a `bash -ce`
    string after `ray job submit ... --` (ray-operator/controllers/ray/common/job.go, v1.4-v1.7),
    so a shell operator would end the submit there and run the rest inside the submitter pod.
    """
    return _verl_command(spec, [f"{preflight_command(spec)} --"], "")


def compose_entrypoint(spec: DeploySpec) -> str:
    """verl's Hydra stage only (`--cfg job`): the same overrides composed and printed, no GPUs needed."""
    return _verl_command(spec, [], " --cfg job")
