{{- /* Held by more than one object (constructs/: add_object(shared=...)). */}}
{{- define "verl-grpo.runtimeEnv" -}}
{{- $facts := include "verl-grpo.facts" (list .Values.gpu.type .Values.cluster.mode) | fromJson -}}
{{ printf
    "env_vars:\n  PYTHONPATH: \"%v/%v\"\n  HF_HUB_OFFLINE: \"1\"\n  HF_HOME: \"/tmp/huggingface\"\n  NCCL_DEBUG: \"WARN\"\n  GLOO_SOCKET_IFNAME: \"eth0\"\n%v"
    .Values.storage.mountPath
    .Values.storage.verlDir
    (include "verl-grpo.quotedLines" (list $facts.ncclEnv "  "))
    | toJson }}
{{- end }}
