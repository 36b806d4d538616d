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

{{- /* By verl release: data/verl/*.yaml (facts/verl_releases.py release_row). */}}
{{- define "verl-grpo.verlReleases" }}
0.6.1:
  wheelUrl: https://files.pythonhosted.org/packages/c2/56/21bc9c0b0532cd5d94a151d084817080f5597af93755f79c899c61894be8/verl-0.6.1-py3-none-any.whl
  wheelSha256: a67dd50fb99b402db0c990d4c92710be9a728cb18607515daa0f1e8552e47983
  gsm8kScriptUrl: https://raw.githubusercontent.com/verl-project/verl/d62da4950573d7a4b7ef2362337952e7ab59e78d/examples/data_preprocess/gsm8k.py
  gsm8kScriptSha256: b67a4b58eb97a1a8c5f4157072296798668af13d2db0958b921cfff1f4938975
  imageTag: vllm011.dev7
  sglangImageTag: sgl055.dev2
  imageRay: 2.49.2
  rayCpusPerGpu: 1
  imageImports: ray,torch,transformers
0.9.1:
  wheelUrl: https://files.pythonhosted.org/packages/16/aa/e17148c766467a63f527f2da971321074b9b96773b43c398ff96b9a795ab/verl-0.9.1-py3-none-any.whl
  wheelSha256: db6e6f2a8d9d5808d9ec32d357a42319fdc6967df688ff9d9810050f49bfdd14
  gsm8kScriptUrl: https://raw.githubusercontent.com/verl-project/verl/v0.9.1/examples/data_preprocess/gsm8k.py
  gsm8kScriptSha256: b67a4b58eb97a1a8c5f4157072296798668af13d2db0958b921cfff1f4938975
  imageTag: vllm024.dev2
  sglangImageTag: sgl0512.dev4
  imageRay: ''
  rayCpusPerGpu: 3
  imageImports: ray,torch,transformers,transfer_queue
{{- end }}

{{- /* One verl release's facts (by training.verlVersion), as JSON. */}}
{{- define "verl-grpo.verlRelease" -}}
{{- index (include "verl-grpo.verlReleases" . | fromYaml) . | toJson }}
{{- end }}
