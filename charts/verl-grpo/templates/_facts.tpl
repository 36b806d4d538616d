{{- /* By GPU type: data/gpus/*.yaml; defaults by cluster mode: values/derive.py. */}}
{{- define "verl-grpo.machines" }}
a4x:
  name: a4x
  machineType: a4x-highgpu-4g
  accelerator: nvidia-gb200
  gpusPerNode: 4
  vcpu: 140
  memoryGb: 884
  gpuMemoryGb: 186
  ncclTunerConfig: ''
  minGkeVersion: 1.33.4-gke.1036000
  gpuNetworkGbps: 1600
  rdmaNics: 4
  arch: arm64
  modes:
  - standard
  capacities:
  - reservation
  subBlockNodes: 18
  bootDiskType: hyperdisk-balanced
  localSsds: 32
  acceleratorTopology: 1x72
  imex: true
  ncclEnv:
    NCCL_IB_MERGE_VFS: '0'
    NCCL_NET_GDR_C2C: '1'
    NCCL_NET_GDR_LEVEL: PHB
    NCCL_NVLS_ENABLE: '0'
  ncclGateMinBusGbps: 50
  quotaFamily: ''
  allocatableCpu: 139.58
  allocatableMemory: 858689260789.76
  allocatableEphemeralStorage: 11416519927808.0
  imexWord: imex
  subBlockNodesOrZero: 18
  modesPattern: ^(standard)$
  modesListed: standard
  capacitiesPattern: ^(reservation)$
  capacitiesListed: reservation
  runTraits: 4 GPUs per node, arm64, 4 RDMA NICs, multi-node NVLink
  defaults:
    standard:
      workerCpu: '135'
      workerMemory: 782Gi
      workerEphemeralStorage: 10507Gi
      sidecarCpuLimit: '0'
      sidecarMemoryLimit: '0'
      sidecarEphemeralStorageLimit: '0'
    autopilot:
      workerCpu: '133'
      workerMemory: 769Gi
      workerEphemeralStorage: 10507Gi
      sidecarCpuLimit: '2'
      sidecarMemoryLimit: 14Gi
      sidecarEphemeralStorageLimit: 200Gi
b200:
  name: b200
  machineType: a4-highgpu-8g
  accelerator: nvidia-b200
  gpusPerNode: 8
  vcpu: 224
  memoryGb: 3968
  gpuMemoryGb: 180
  ncclTunerConfig: /usr/local/gib/configs/tuner_config_a4.txtpb
  minGkeVersion: 1.32.2-gke.1475000
  gpuNetworkGbps: 3200
  rdmaNics: 8
  arch: amd64
  modes:
  - standard
  - autopilot
  capacities:
  - spot
  - reservation
  - flex-start
  - on-demand
  subBlockNodes: null
  bootDiskType: ''
  localSsds: 32
  acceleratorTopology: ''
  imex: false
  ncclEnv:
    NCCL_TUNER_CONFIG_PATH: /usr/local/gib/configs/tuner_config_a4.txtpb
  ncclGateMinBusGbps: 100
  quotaFamily: NVIDIA_B200
  allocatableCpu: 223.37
  allocatableMemory: 3881009260789.76
  allocatableEphemeralStorage: 11416519927808.0
  imexWord: ''
  subBlockNodesOrZero: 0
  modesPattern: ^(standard|autopilot)$
  modesListed: standard, autopilot
  capacitiesPattern: ^(spot|reservation|flex-start|on-demand)$
  capacitiesListed: spot, reservation, flex-start, on-demand
  runTraits: 8 GPUs per node, amd64, 8 RDMA NICs, no multi-node NVLink
  defaults:
    standard:
      workerCpu: '218'
      workerMemory: 3597Gi
      workerEphemeralStorage: 10507Gi
      sidecarCpuLimit: '0'
      sidecarMemoryLimit: '0'
      sidecarEphemeralStorageLimit: '0'
    autopilot:
      workerCpu: '217'
      workerMemory: 3583Gi
      workerEphemeralStorage: 10507Gi
      sidecarCpuLimit: '2'
      sidecarMemoryLimit: 14Gi
      sidecarEphemeralStorageLimit: 200Gi
h200:
  name: h200
  machineType: a3-ultragpu-8g
  accelerator: nvidia-h200-141gb
  gpusPerNode: 8
  vcpu: 224
  memoryGb: 2952
  gpuMemoryGb: 141
  ncclTunerConfig: /usr/local/gib/configs/tuner_config_a3u.txtpb
  minGkeVersion: 1.31.4-gke.1183000
  gpuNetworkGbps: 3200
  rdmaNics: 8
  arch: amd64
  modes:
  - standard
  - autopilot
  capacities:
  - spot
  - reservation
  - flex-start
  - on-demand
  subBlockNodes: null
  bootDiskType: ''
  localSsds: 32
  acceleratorTopology: ''
  imex: false
  ncclEnv:
    NCCL_TUNER_CONFIG_PATH: /usr/local/gib/configs/tuner_config_a3u.txtpb
  ncclGateMinBusGbps: 100
  quotaFamily: NVIDIA_H200
  allocatableCpu: 223.37
  allocatableMemory: 2885329260789.76
  allocatableEphemeralStorage: 11416519927808.0
  imexWord: ''
  subBlockNodesOrZero: 0
  modesPattern: ^(standard|autopilot)$
  modesListed: standard, autopilot
  capacitiesPattern: ^(spot|reservation|flex-start|on-demand)$
  capacitiesListed: spot, reservation, flex-start, on-demand
  runTraits: 8 GPUs per node, amd64, 8 RDMA NICs, no multi-node NVLink
  defaults:
    standard:
      workerCpu: '218'
      workerMemory: 2670Gi
      workerEphemeralStorage: 10507Gi
      sidecarCpuLimit: '0'
      sidecarMemoryLimit: '0'
      sidecarEphemeralStorageLimit: '0'
    autopilot:
      workerCpu: '217'
      workerMemory: 2656Gi
      workerEphemeralStorage: 10507Gi
      sidecarCpuLimit: '2'
      sidecarMemoryLimit: 14Gi
      sidecarEphemeralStorageLimit: 200Gi
{{- end }}

{{- /* One machine's facts (by gpu type), as JSON. */}}
{{- define "verl-grpo.machine" -}}
{{- index (include "verl-grpo.machines" . | fromYaml) . | toJson }}
{{- end }}

{{- /* One machine's facts in one cluster mode: (list gpuType clusterMode), as JSON. */}}
{{- define "verl-grpo.facts" -}}
{{- $machine := index (include "verl-grpo.machines" . | fromYaml) (index . 0) }}
{{- toJson (merge (index $machine.defaults (index . 1)) (omit $machine "defaults")) }}
{{- end }}
