{{- /* Held by more than one object (constructs/: add_object(shared=...)). */}}
{{- define "verl-grpo.runtimeEnv" -}}
{{- $facts := index (include "verl-grpo.facts" . | fromYaml) .Values.gpu.type .Values.cluster.mode -}}
{{- if (eq .Values.gpu.type "a4x") }}{{ list "env_vars:\n  PYTHONPATH: \"" .Values.storage.mountPath "/" .Values.storage.verlDir "\"\n  HF_HUB_OFFLINE: \"1\"\n  HF_HOME: \"/tmp/huggingface\"\n  NCCL_DEBUG: \"WARN\"\n  GLOO_SOCKET_IFNAME: \"eth0\"\n  NCCL_NET_GDR_LEVEL: \"PHB\"\n  NCCL_NET_GDR_C2C: \"1\"\n  NCCL_NVLS_ENABLE: \"0\"\n  NCCL_IB_MERGE_VFS: \"0\"\n" | join "" | toJson }}{{- else }}{{ list "env_vars:\n  PYTHONPATH: \"" .Values.storage.mountPath "/" .Values.storage.verlDir "\"\n  HF_HUB_OFFLINE: \"1\"\n  HF_HOME: \"/tmp/huggingface\"\n  NCCL_TUNER_CONFIG_PATH: \"" $facts.ncclTunerConfigPath "\"\n  NCCL_DEBUG: \"WARN\"\n  GLOO_SOCKET_IFNAME: \"eth0\"\n" | join "" | toJson }}{{- end }}
{{- end }}
