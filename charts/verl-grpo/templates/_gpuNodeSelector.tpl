{{- /* A worker group's node selector: its machine's labels, its capacity's, its pool's. */}}
{{- define "verl-grpo.gpuNodeSelector" }}
{{- $facts := include "verl-grpo.facts" (list .group.machine .Values.cluster.mode) | fromJson }}
cloud.google.com/gke-accelerator: {{ $facts.accelerator | toJson }}
{{- if eq .Values.cluster.mode "autopilot" }}
cloud.google.com/gke-accelerator-count: {{ ($facts.gpusPerNode | toJson) | toJson }}
{{- end }}
{{- if not (eq $facts.arch "amd64") }}
kubernetes.io/arch: {{ $facts.arch | toJson }}
{{- end }}
{{- if eq .Values.network.rdma "dranet" }}
cloud.google.com/gke-networking-dra-driver: 'true'
{{- end }}
{{- if eq .group.capacity "spot" }}
cloud.google.com/gke-spot: 'true'
{{- end }}
{{- if and (eq .Values.cluster.mode "autopilot") (eq .group.capacity "reservation") }}
cloud.google.com/reservation-name: {{ .Values.cluster.reservation | toJson }}
cloud.google.com/reservation-affinity: specific
{{- end }}
{{- if eq .group.capacity "flex-start" }}
cloud.google.com/gke-flex-start: 'true'
{{- end }}
{{- if eq .Values.cluster.mode "autopilot" }}
topology.kubernetes.io/zone: {{ .Values.cluster.zone | toJson }}
{{- end }}
{{- if and (eq .Values.cluster.mode "standard") (.group.pinned) }}
cloud.google.com/gke-nodepool: {{ .group.pool | toJson }}
{{- end }}
{{- end }}
