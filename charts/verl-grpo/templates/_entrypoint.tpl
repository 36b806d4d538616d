{{- /* Held by more than one object (constructs/: add_object(shared=...)). */}}
{{- define "verl-grpo.entrypoint" -}}
{{- $facts := include "verl-grpo.facts" (list .Values.gpu.type .Values.cluster.mode) | fromJson -}}
{{ print
    (printf "python3 %v/preflight.py --model %v/%v --train " .Values.preflight.mountPath .Values.storage.mountPath .Values.storage.modelDir)
    (printf
      "%v/%v/train.parquet --val %v/%v/test.parquet --checkpoints "
      .Values.storage.mountPath
      .Values.storage.dataDir
      .Values.storage.mountPath
      .Values.storage.dataDir)
    (printf
      "%v/%v/%v --checkpoint-mount %v --gpus-per-node %v --nodes "
      .Values.storage.checkpointMountPath
      .Values.training.projectName
      (.Values.training.experimentName | default .Values.run.name)
      .Values.storage.checkpointMountPath
      ($facts.gpusPerNode | toJson))
    (printf
      "%v --tensor-parallel %v --sequence-length %v --rollout %v "
      ((include "verl-grpo.workerCount" . | atoi) | toJson)
      (.Values.training.tensorParallelSize | toJson)
      ((add .Values.training.maxPromptLength .Values.training.maxResponseLength) | toJson)
      .Values.training.rolloutName)
    (printf
      "--keep %v --ray-version %v --ray-auth %v --verl-version %v "
      (.Values.training.checkpointsToKeep | toJson)
      .Values.ray.version
      .Values.ray.auth
      .Values.training.verlVersion)
    (printf
      "--imports %v --wait %v --nccl-gate %v --nccl-gate-size %v "
      (index (include "verl-grpo.verlRelease" .Values.training.verlVersion | fromJson) "imageImports")
      (.Values.preflight.waitSeconds | default "auto")
      (.Values.preflight.ncclGate.enabled | toJson)
      .Values.preflight.ncclGate.size)
    (printf
      "--nccl-gate-min-busbw %v --nccl-gate-timeout %v -- \\\n"
      ((.Values.preflight.ncclGate.minBusBandwidthGbps | default $facts.ncclGateMinBusGbps) | toJson)
      (.Values.preflight.ncclGate.timeoutSeconds | toJson))
    (printf "  python3 -m %v \\\n" .Values.training.module)
    ("  'algorithm.adv_estimator=grpo' \\\n")
    ("  'algorithm.use_kl_in_reward=false' \\\n")
    (printf "  'data.train_files=%v/%v/train.parquet' \\\n" .Values.storage.mountPath .Values.storage.dataDir)
    (printf "  'data.val_files=%v/%v/test.parquet' \\\n" .Values.storage.mountPath .Values.storage.dataDir)
    (printf "  'data.train_batch_size=%v' \\\n" (.Values.training.trainBatchSize | toJson))
    (printf "  'data.max_prompt_length=%v' \\\n" (.Values.training.maxPromptLength | toJson))
    (printf "  'data.max_response_length=%v' \\\n" (.Values.training.maxResponseLength | toJson))
    ("  'data.filter_overlong_prompts=true' \\\n")
    ("  'data.truncation=error' \\\n")
    (printf "  'actor_rollout_ref.model.path=%v/%v' \\\n" .Values.storage.mountPath .Values.storage.modelDir)
    (printf "  'actor_rollout_ref.model.enable_gradient_checkpointing=%v' \\\n" (.Values.training.gradientCheckpointing | toJson))
    ("  'actor_rollout_ref.model.use_remove_padding=true' \\\n")
    (printf "  'actor_rollout_ref.actor.strategy=%v' \\\n" .Values.training.strategy)
    (printf "  'actor_rollout_ref.actor.optim.lr=%v' \\\n" (.Values.training.learningRate | toJson))
    (printf "  'actor_rollout_ref.actor.ppo_mini_batch_size=%v' \\\n" (.Values.training.ppoMiniBatchSize | toJson))
    (printf "  'actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu=%v' \\\n" (.Values.training.ppoMicroBatchSizePerGpu | toJson))
    (printf "  'actor_rollout_ref.actor.use_kl_loss=%v' \\\n" (.Values.training.useKlLoss | toJson))
    (printf "  'actor_rollout_ref.actor.kl_loss_coef=%v' \\\n" (.Values.training.klLossCoef | toJson))
    ("  'actor_rollout_ref.actor.kl_loss_type=low_var_kl' \\\n")
    (printf "  'actor_rollout_ref.actor.entropy_coeff=%v' \\\n" (.Values.training.entropyCoeff | toJson))
    (printf "  'actor_rollout_ref.rollout.name=%v' \\\n" .Values.training.rolloutName)
    (printf "  'actor_rollout_ref.rollout.tensor_model_parallel_size=%v' \\\n" (.Values.training.tensorParallelSize | toJson))
    (printf "  'actor_rollout_ref.rollout.gpu_memory_utilization=%v' \\\n" (.Values.training.gpuMemoryUtilization | toJson))
    (printf "  'actor_rollout_ref.rollout.n=%v' \\\n" (.Values.training.rolloutN | toJson))
    (printf "  'actor_rollout_ref.rollout.log_prob_micro_batch_size_per_gpu=%v' \\\n" (.Values.training.logProbMicroBatchSizePerGpu | toJson))
    (printf "  'actor_rollout_ref.ref.log_prob_micro_batch_size_per_gpu=%v' \\\n" (.Values.training.logProbMicroBatchSizePerGpu | toJson))
    (printf "  'actor_rollout_ref.ref.fsdp_config.param_offload=%v' \\\n" (.Values.training.refParamOffload | toJson))
    ("  'trainer.critic_warmup=0' \\\n")
    (printf "  'trainer.logger=[%v]' \\\n" (join "," .Values.training.logger))
    (printf "  'trainer.project_name=%v' \\\n" .Values.training.projectName)
    (printf "  'trainer.experiment_name=%v' \\\n" (.Values.training.experimentName | default .Values.run.name))
    (printf "  'trainer.n_gpus_per_node=%v' \\\n" ($facts.gpusPerNode | toJson))
    (printf "  'trainer.nnodes=%v' \\\n" ((include "verl-grpo.workerCount" . | atoi) | toJson))
    (printf "  'trainer.save_freq=%v' \\\n" (.Values.training.saveFreq | toJson))
    (printf "  'trainer.max_actor_ckpt_to_keep=%v' \\\n" (.Values.training.checkpointsToKeep | toJson))
    (printf "  'trainer.test_freq=%v' \\\n" (.Values.training.testFreq | toJson))
    (printf "  'trainer.total_epochs=%v' \\\n" (.Values.training.totalEpochs | toJson))
    (printf
      "  'trainer.default_local_dir=%v/%v/%v' \\\n"
      .Values.storage.checkpointMountPath
      .Values.training.projectName
      (.Values.training.experimentName | default .Values.run.name))
    (printf "  'trainer.resume_mode=auto'%v\n" (ternary "" (printf "%s%s" " " (join " " .Values.training.extraArgs)) (empty .Values.training.extraArgs)))
    | toJson }}
{{- end }}
