{{- /* The spec of the object named after its digest (Decisions.spec_digest). */}}
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
backoffLimit: {{ (ternary
      (ternary 10 1 (contains "|spot|" (include "verl-grpo.groupCapacities" .)))
      (int .Values.job.backoffLimit)
      (lt (int .Values.job.backoffLimit) 0))
    | toJson }}
rayClusterSpec:
  {{- include "verl-grpo.rayClusterSpec" . | trimPrefix "\n" | nindent 2 }}
{{- if eq .Values.job.submissionMode "K8sJobMode" }}
submitterPodTemplate:
  metadata:
    labels:
      app.kubernetes.io/name: verl-grpo
      app.kubernetes.io/instance: {{ .Release.Name | toJson }}
      app.kubernetes.io/component: submitter
  spec:
    automountServiceAccountToken: false
    securityContext:
      seccompProfile:
        type: RuntimeDefault
    restartPolicy: Never
    containers:
    - name: ray-job-submitter
      image: {{ (include "verl-grpo.image" .) | toJson }}
      imagePullPolicy: {{ .Values.image.pullPolicy | toJson }}
      resources:
        requests:
          cpu: 500m
          memory: 200Mi
        limits:
          cpu: '1'
          memory: 1Gi
      securityContext:
        allowPrivilegeEscalation: false
        capabilities:
          drop:
          - ALL
{{- end }}
{{- end }}

{{- define "verl-grpo.rayJob.digest" -}}
{{ include "verl-grpo.rayJob.spec" . | fromYaml | toJson | sha256sum | trunc 8 }}
{{- end }}
