{{- /* The spec of the object named after its digest (Ops.spec_digest). */}}
{{- define "verl-grpo.rayJob.spec" }}
entrypoint: {{ include "verl-grpo.entrypoint" . }}
runtimeEnvYAML: {{ include "verl-grpo.runtimeEnv" . }}
submissionMode: {{ .Values.job.submissionMode | toJson }}
shutdownAfterJobFinishes: {{ .Values.job.shutdownAfterJobFinishes | toJson }}
ttlSecondsAfterFinished: {{ .Values.job.ttlSecondsAfterFinished | toJson }}
activeDeadlineSeconds: {{ .Values.job.activeDeadlineSeconds | toJson }}
{{- if semverCompare ">=1.6.0" .Values.kuberay.version }}
preRunningDeadlineSeconds: {{ .Values.job.preRunningDeadlineSeconds | toJson }}
{{- end }}
backoffLimit: {{ .Values.job.backoffLimit | toJson }}
rayClusterSpec:
  {{- include "verl-grpo.rayClusterSpec" . | trimPrefix "\n" | nindent 2 }}
{{- end }}

{{- define "verl-grpo.rayJob.digest" -}}
{{ include "verl-grpo.rayJob.spec" . | fromYaml | toJson | sha256sum | trunc 8 }}
{{- end }}
