{{- /* By GPU type and mode: machine facts (data/gpus/), defaults (values/derive.py). */}}
{{- define "verl-grpo.facts" }}
a4x:
  standard:
    gkeAccelerator: nvidia-gb200
    gpusPerNode: '4'
    ncclGateMinBusBandwidthGbps: '50'
    rdmaCount: 4
    sidecarCpuLimit: '0'
    sidecarEphemeralStorageLimit: '0'
    sidecarMemoryLimit: '0'
    workerCpu: '135'
    workerMemory: 782Gi
  autopilot:
    gkeAccelerator: nvidia-gb200
    gpusPerNode: '4'
    ncclGateMinBusBandwidthGbps: '50'
    rdmaCount: 4
    sidecarCpuLimit: '2'
    sidecarEphemeralStorageLimit: 200Gi
    sidecarMemoryLimit: 14Gi
    workerCpu: '133'
    workerMemory: 769Gi
b200:
  standard:
    gkeAccelerator: nvidia-b200
    gpusPerNode: '8'
    ncclGateMinBusBandwidthGbps: '100'
    rdmaCount: 8
    sidecarCpuLimit: '0'
    sidecarEphemeralStorageLimit: '0'
    sidecarMemoryLimit: '0'
    workerCpu: '218'
    workerMemory: 3597Gi
  autopilot:
    gkeAccelerator: nvidia-b200
    gpusPerNode: '8'
    ncclGateMinBusBandwidthGbps: '100'
    rdmaCount: 8
    sidecarCpuLimit: '2'
    sidecarEphemeralStorageLimit: 200Gi
    sidecarMemoryLimit: 14Gi
    workerCpu: '217'
    workerMemory: 3583Gi
h200:
  standard:
    gkeAccelerator: nvidia-h200-141gb
    gpusPerNode: '8'
    ncclGateMinBusBandwidthGbps: '100'
    rdmaCount: 8
    sidecarCpuLimit: '0'
    sidecarEphemeralStorageLimit: '0'
    sidecarMemoryLimit: '0'
    workerCpu: '218'
    workerMemory: 2670Gi
  autopilot:
    gkeAccelerator: nvidia-h200-141gb
    gpusPerNode: '8'
    ncclGateMinBusBandwidthGbps: '100'
    rdmaCount: 8
    sidecarCpuLimit: '2'
    sidecarEphemeralStorageLimit: 200Gi
    sidecarMemoryLimit: 14Gi
    workerCpu: '217'
    workerMemory: 2656Gi
{{ end }}
