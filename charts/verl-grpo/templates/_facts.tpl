{{- /* By GPU type and mode: machine facts (data/gpus/), defaults (values/derive.py). */}}
{{- define "verl-grpo.facts" }}
a4x:
  standard:
    gkeAccelerator: nvidia-gb200
    gpu: '4'
    ncclGateMinBusBandwidthGbps: '50'
    rdmaCount: 4
    sidecarCpuLimit: '0'
    sidecarEphemeralStorageLimit: '0'
    sidecarMemoryLimit: '0'
    tolerations: '[{"effect":"NoSchedule","key":"kubernetes.io/arch","operator":"Equal","value":"arm64"},{"effect":"NoSchedule","key":"cloud.google.com/gke-queued","operator":"Equal","value":"true"}]'
    workerCpu: '135'
    workerMemory: 782Gi
  autopilot:
    gkeAccelerator: nvidia-gb200
    gkeAcceleratorCount: '4'
    gpu: '4'
    ncclGateMinBusBandwidthGbps: '50'
    rdmaCount: 4
    sidecarCpuLimit: '2'
    sidecarEphemeralStorageLimit: 200Gi
    sidecarMemoryLimit: 14Gi
    tolerations: '[{"effect":"NoSchedule","key":"kubernetes.io/arch","operator":"Equal","value":"arm64"},{"effect":"NoSchedule","key":"cloud.google.com/gke-queued","operator":"Equal","value":"true"}]'
    workerCpu: '133'
    workerMemory: 769Gi
b200:
  standard:
    gkeAccelerator: nvidia-b200
    gpu: '8'
    ncclGateMinBusBandwidthGbps: '100'
    ncclTunerConfigPath: /usr/local/gib/configs/tuner_config_a4.txtpb
    rdmaCount: 8
    sidecarCpuLimit: '0'
    sidecarEphemeralStorageLimit: '0'
    sidecarMemoryLimit: '0'
    tolerations: '[{"effect":"NoSchedule","key":"cloud.google.com/gke-queued","operator":"Equal","value":"true"}]'
    workerCpu: '218'
    workerMemory: 3597Gi
  autopilot:
    gkeAccelerator: nvidia-b200
    gkeAcceleratorCount: '8'
    gpu: '8'
    ncclGateMinBusBandwidthGbps: '100'
    ncclTunerConfigPath: /usr/local/gib/configs/tuner_config_a4.txtpb
    rdmaCount: 8
    sidecarCpuLimit: '2'
    sidecarEphemeralStorageLimit: 200Gi
    sidecarMemoryLimit: 14Gi
    tolerations: '[{"effect":"NoSchedule","key":"cloud.google.com/gke-queued","operator":"Equal","value":"true"}]'
    workerCpu: '217'
    workerMemory: 3583Gi
h200:
  standard:
    gkeAccelerator: nvidia-h200-141gb
    gpu: '8'
    ncclGateMinBusBandwidthGbps: '100'
    ncclTunerConfigPath: /usr/local/gib/configs/tuner_config_a3u.txtpb
    rdmaCount: 8
    sidecarCpuLimit: '0'
    sidecarEphemeralStorageLimit: '0'
    sidecarMemoryLimit: '0'
    tolerations: '[{"effect":"NoSchedule","key":"cloud.google.com/gke-queued","operator":"Equal","value":"true"}]'
    workerCpu: '218'
    workerMemory: 2670Gi
  autopilot:
    gkeAccelerator: nvidia-h200-141gb
    gkeAcceleratorCount: '8'
    gpu: '8'
    ncclGateMinBusBandwidthGbps: '100'
    ncclTunerConfigPath: /usr/local/gib/configs/tuner_config_a3u.txtpb
    rdmaCount: 8
    sidecarCpuLimit: '2'
    sidecarEphemeralStorageLimit: 200Gi
    sidecarMemoryLimit: 14Gi
    tolerations: '[{"effect":"NoSchedule","key":"cloud.google.com/gke-queued","operator":"Equal","value":"true"}]'
    workerCpu: '217'
    workerMemory: 2656Gi
{{ end }}
