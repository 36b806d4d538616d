{{- /* By GPU type and mode: machine facts (data/gpus/), defaults (values/derive.py). */}}
{{- define "verl-grpo.facts" }}
b200:
  standard:
    gkeAccelerator: nvidia-b200
    ncclTunerConfigPath: /usr/local/gib/configs/tuner_config_a4.txtpb
    sidecarCpuLimit: '0'
    sidecarEphemeralStorageLimit: '0'
    sidecarMemoryLimit: '0'
    workerCpu: '218'
    workerMemory: 3597Gi
  autopilot:
    gkeAccelerator: nvidia-b200
    ncclTunerConfigPath: /usr/local/gib/configs/tuner_config_a4.txtpb
    sidecarCpuLimit: '2'
    sidecarEphemeralStorageLimit: 200Gi
    sidecarMemoryLimit: 14Gi
    workerCpu: '217'
    workerMemory: 3583Gi
h200:
  standard:
    gkeAccelerator: nvidia-h200-141gb
    ncclTunerConfigPath: /usr/local/gib/configs/tuner_config_a3u.txtpb
    sidecarCpuLimit: '0'
    sidecarEphemeralStorageLimit: '0'
    sidecarMemoryLimit: '0'
    workerCpu: '218'
    workerMemory: 2670Gi
  autopilot:
    gkeAccelerator: nvidia-h200-141gb
    ncclTunerConfigPath: /usr/local/gib/configs/tuner_config_a3u.txtpb
    sidecarCpuLimit: '2'
    sidecarEphemeralStorageLimit: 200Gi
    sidecarMemoryLimit: 14Gi
    workerCpu: '217'
    workerMemory: 2656Gi
{{ end }}
