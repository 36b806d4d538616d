{{- /* Held by more than one object (constructs/: add_object(shared=...)). */}}
{{- define "verl-grpo.runtimeEnv" -}}
{{- $facts := index (include "verl-grpo.facts" . | fromYaml) .Values.gpu.type .Values.cluster.mode -}}
{{ list "env_vars:\n  PYTHONPATH: \"" .Values.storage.mountPath "/" .Values.storage.verlDir "\"\n  LD_LIBRARY_PATH: \"/usr/local/gib/lib64:/usr/local/nvidia/lib64\"\n  HF_HUB_OFFLINE: \"1\"\n  HF_HOME: \"/tmp/huggingface\"\n  NCCL_NET: \"gIB\"\n  NCCL_TUNER_CONFIG_PATH: \"" $facts.ncclTunerConfigPath "\"\n  NCCL_CROSS_NIC: \"0\"\n  NCCL_NET_GDR_LEVEL: \"PIX\"\n  NCCL_P2P_NET_CHUNKSIZE: \"131072\"\n  NCCL_NVLS_CHUNKSIZE: \"524288\"\n  NCCL_IB_ADAPTIVE_ROUTING: \"1\"\n  NCCL_IB_QPS_PER_CONNECTION: \"4\"\n  NCCL_IB_TC: \"52\"\n  NCCL_IB_FIFO_TC: \"84\"\n  NCCL_DEBUG: \"WARN\"\n  GLOO_SOCKET_IFNAME: \"eth0\"\n" | join "" | toJson }}
{{- end }}
