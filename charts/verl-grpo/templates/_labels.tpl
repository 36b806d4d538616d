{{- /* The labels of every object (app.top_labels). */}}
{{- define "verl-grpo.labels" }}
app.kubernetes.io/instance: {{ .Release.Name | toJson }}
app.kubernetes.io/managed-by: Helm
app.kubernetes.io/name: verl-grpo
app.kubernetes.io/part-of: verl-grpo
helm.sh/chart: verl-grpo-0.1.0
{{- end }}
