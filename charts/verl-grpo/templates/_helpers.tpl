{{- /* The labels of every object (assembly.top_labels). */}}
{{- define "verl-grpo.labels" }}
app.kubernetes.io/instance: {{ .Release.Name | toJson }}
app.kubernetes.io/managed-by: Helm
app.kubernetes.io/name: verl-grpo
app.kubernetes.io/part-of: verl-grpo
helm.sh/chart: verl-grpo-0.1.0
{{- end }}

{{- /* A folder's PersistentVolumeClaim: <release>-<role>-<storage digest> (gcs_fuse_storage.py). */}}
{{- define "verl-grpo.claimName" -}}
{{- $root := index . 0 }}
{{- printf "%s-%s-%s" $root.Release.Name (index . 1) (include "verl-grpo.storageDigest" $root) }}
{{- end }}

{{- /* The verl image every container runs (constructs/base.py image). */}}
{{- define "verl-grpo.image" -}}
{{- printf "%s:%s" .Values.image.repository .Values.image.tag }}
{{- with .Values.image.digest }}@{{ . }}{{ end }}
{{- end }}

{{- /* A worker pod's networking.gke.io/interfaces (facts/networks.py pod_interfaces). */}}
{{- define "verl-grpo.podInterfaces" -}}
{{- $prefix := index . 0 }}
{{- $interfaces := list (dict "interfaceName" "eth0" "network" "default") }}
{{- $interfaces = append $interfaces (dict "interfaceName" "eth1" "network" (printf "%s-gvnic" $prefix)) }}
{{- range $i := until (int (index . 1)) }}
{{- $rdma := dict "interfaceName" (printf "eth%d" (add $i 2)) "network" (printf "%s-rdma-%d" $prefix $i) }}
{{- $interfaces = append $interfaces $rdma }}
{{- end }}
{{- toJson $interfaces }}
{{- end }}

{{- /* A Kueue object of the kit's queue: <queue.clusterQueue>-<role> (kueue_queue.py). */}}
{{- define "verl-grpo.queueObjectName" -}}
{{- printf "%s-%s" (index . 0).Values.queue.clusterQueue (index . 1) }}
{{- end }}

{{- /* Decisions.quoted_lines: a string map's entries as double-quoted YAML lines, sorted by key. */}}
{{- define "verl-grpo.quotedLines" -}}
{{- $indent := index . 1 }}
{{- range $key, $value := index . 0 }}
{{- printf "%s%s: %q\n" $indent $key $value }}
{{- end }}
{{- end }}

{{- /* The PV and PVC names' suffix: a digest of storage.bucket and storage.capacity (Derived.storage_digest). */}}
{{- define "verl-grpo.storageDigest" -}}
{{- list .Values.storage.bucket .Values.storage.capacity | toJson | sha256sum | trunc 8 }}
{{- end }}

{{- /* A folder's PersistentVolume, cluster-wide: <namespace>-<its claim's name> (gcs_fuse_storage.py). */}}
{{- define "verl-grpo.volumeName" -}}
{{- printf "%s-%s" (index . 0).Release.Namespace (include "verl-grpo.claimName" .) }}
{{- end }}

{{- /* The worker groups as their pods see the values (values/worker_groups.py group_views). */}}
{{- define "verl-grpo.workerGroups" -}}
{{- $groups := list }}
{{- range $name, $g := .Values.workerGroups }}
{{- $groups = append $groups (dict
    "name" $name
    "replicas" $g.replicas
    "minReplicas" ($g.minReplicas | default $g.replicas)
    "maxReplicas" ($g.maxReplicas | default $g.replicas)
    "pool" (ternary "gpu-pool" (printf "gpu-pool-%s" $name) (eq $name "gpu-group"))
    "pinned" (gt (len $.Values.workerGroups) 1)
    "capacity" ($g.capacity | default $.Values.cluster.capacity)
    "machine" ($g.machine | default $.Values.gpu.type)) }}
{{- end }}
{{- toJson $groups }}
{{- end }}
