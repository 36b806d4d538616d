{{- /* Rule pool-matches-workers (rules/cluster_pools.py): each worker group's selector matches the
labels of a GPU pool the scripts recorded in kube-public/verl-grpo-pools. */}}
{{- define "verl-grpo.poolGuard" }}
{{- if eq .Values.cluster.mode "standard" }}
{{- $records := dict }}
{{- range $pool, $text := (lookup "v1" "ConfigMap" "kube-public" "verl-grpo-pools").data }}
{{- $_ := set $records $pool ($text | fromJson) }}
{{- end }}
{{- if $records }}
{{- $made := list }}
{{- range $pool, $record := $records }}
{{- $made = append $made
    (printf "%s for profile %s" $pool $record.profile) }}
{{- end }}
{{- range $group := include "verl-grpo.workerGroups" . | fromJsonArray }}
{{- $selector := include "verl-grpo.gpuNodeSelector"
    (dict "Values" $.Values "Release" $.Release "group" $group) | fromYaml }}
{{- $found := false }}
{{- range $records }}
{{- $labels := .labels }}
{{- $all := true }}
{{- range $key, $value := $selector }}
{{- if ne (toString (get $labels $key)) (toString $value) }}{{ $all = false }}{{ end }}
{{- end }}
{{- if $all }}{{ $found = true }}{{ end }}
{{- end }}
{{- if not $found }}
{{- $wanted := list }}
{{- range $key := keys $selector | sortAlpha }}
{{- $wanted = append $wanted (printf "%s=%s" $key (toString (get $selector $key))) }}
{{- end }}
{{- fail (printf "workerGroups.%s: %s%s%s%s%s [pool-matches-workers]" $group.name
    "its workers select " (join ", " $wanted)
    ", which no GPU pool of this cluster gives (the pools scripts/up.sh made: " (join ", " $made)
    "): its workers would stay Pending until the deadline. Install with the overlay of the profile the cluster was made for (overlays/<profile>/values.yaml), or make this group's pool first: scripts/30-gpu-pool.sh and scripts/40-rdma.sh with these values") }}
{{- end }}
{{- end }}
{{- end }}
{{- end }}
{{- end }}
