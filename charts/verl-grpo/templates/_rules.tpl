{{- /* The kit's cross-field rules (values/cross_rules.py), as `verl-grpo check` runs them. */}}
{{- define "verl-grpo.rules" }}
{{- if (and (eq .Values.cluster.mode "autopilot") (eq .Values.cluster.zone "")) }}
{{- fail (print "cluster.zone: " "required on Autopilot: the RDMA network profile is zonal and the workers must be pinned to its zone (e.g. us-central1-b)" " [zone-on-autopilot]") }}
{{- end }}
{{- if (and (eq .Values.cluster.capacity "reservation") (eq .Values.cluster.reservation "")) }}
{{- fail (print "cluster.reservation: " "required with cluster.capacity 'reservation' (the reservation's name)" " [reservation-named]") }}
{{- end }}
{{- if (and (ne .Values.cluster.capacity "reservation") (ne .Values.cluster.reservation "")) }}
{{- fail (print "cluster.reservation: " "'" .Values.cluster.reservation "' is only used with cluster.capacity 'reservation' (capacity is '" .Values.cluster.capacity "')" " [reservation-only-reserved]") }}
{{- end }}
{{- if (and (gt (int .Values.job.ttlSecondsAfterFinished) (int 0)) (not .Values.job.shutdownAfterJobFinishes)) }}
{{- fail (print "job.ttlSecondsAfterFinished: " "> 0 needs job.shutdownAfterJobFinishes: true (or set it to 0)" " [ttl-needs-shutdown]") }}
{{- end }}
{{- if (and (eq .Values.run.kind "RayJob") (eq .Values.job.submissionMode "SidecarMode") (not (semverCompare ">=1.5.0" .Values.kuberay.version))) }}
{{- fail (print "job.submissionMode: " "'SidecarMode' needs KubeRay 1.5.0 or newer; kuberay.version is '" .Values.kuberay.version "' (use K8sJobMode or HTTPMode)" " [sidecar-mode-needs-kuberay]") }}
{{- end }}
{{- if (and (eq .Values.run.kind "RayJob") (gt (int (add (len (print .Release.Name "-" .Values.run.name)) 9)) (int 47))) }}
{{- fail (print "run.name: " "RayJob name '" .Release.Name "-" .Values.run.name "-<8 hex digits>' is " (add (len (print .Release.Name "-" .Values.run.name)) 9) " characters; KubeRay allows 47" " [rayjob-name-length]") }}
{{- end }}
{{- if (ne (mod (int (index (dict "b200" 8 "h200" 8) .Values.gpu.type)) (int .Values.training.tensorParallelSize)) 0) }}
{{- fail (print "training.tensorParallelSize: " .Values.training.tensorParallelSize " must divide the " (index (dict "b200" 8 "h200" 8) .Values.gpu.type) " GPUs of a node" " [tp-divides-node]") }}
{{- end }}
{{- if (and (eq .Values.run.kind "RayCluster") (gt (int (len (print .Release.Name "-" .Values.gpu.type))) (int 53))) }}
{{- fail (print "release name: " "RayCluster name '" .Release.Name "-" .Values.gpu.type "' exceeds 53 characters" " [raycluster-name-length]") }}
{{- end }}
{{- if (or (eq .Values.storage.mountPath .Values.storage.checkpointMountPath) (hasPrefix (print .Values.storage.checkpointMountPath "/") .Values.storage.mountPath) (hasPrefix (print .Values.storage.mountPath "/") .Values.storage.checkpointMountPath)) }}
{{- fail (print "storage.mountPath: " "'" .Values.storage.mountPath "' overlaps storage.checkpointMountPath ('" .Values.storage.checkpointMountPath "'); mount paths must be disjoint" " [mounts-disjoint]") }}
{{- end }}
{{- if (or (eq .Values.storage.mountPath .Values.preflight.mountPath) (hasPrefix (print .Values.preflight.mountPath "/") .Values.storage.mountPath) (hasPrefix (print .Values.storage.mountPath "/") .Values.preflight.mountPath)) }}
{{- fail (print "storage.mountPath: " "'" .Values.storage.mountPath "' overlaps preflight.mountPath ('" .Values.preflight.mountPath "'); mount paths must be disjoint" " [mounts-disjoint]") }}
{{- end }}
{{- if (or (eq .Values.storage.mountPath "/usr/local/nvidia") (hasPrefix (print "/usr/local/nvidia" "/") .Values.storage.mountPath) (hasPrefix (print .Values.storage.mountPath "/") "/usr/local/nvidia")) }}
{{- fail (print "storage.mountPath: " "'" .Values.storage.mountPath "' overlaps the NVIDIA driver ('" "/usr/local/nvidia" "'); mount paths must be disjoint" " [mounts-disjoint]") }}
{{- end }}
{{- if (or (eq .Values.storage.mountPath "/usr/local/gib") (hasPrefix (print "/usr/local/gib" "/") .Values.storage.mountPath) (hasPrefix (print .Values.storage.mountPath "/") "/usr/local/gib")) }}
{{- fail (print "storage.mountPath: " "'" .Values.storage.mountPath "' overlaps the gIB plugin ('" "/usr/local/gib" "'); mount paths must be disjoint" " [mounts-disjoint]") }}
{{- end }}
{{- if (or (eq .Values.storage.mountPath "/tmp") (hasPrefix (print "/tmp" "/") .Values.storage.mountPath) (hasPrefix (print .Values.storage.mountPath "/") "/tmp")) }}
{{- fail (print "storage.mountPath: " "'" .Values.storage.mountPath "' overlaps /tmp ('" "/tmp" "'); mount paths must be disjoint" " [mounts-disjoint]") }}
{{- end }}
{{- if (or (eq .Values.storage.checkpointMountPath .Values.storage.mountPath) (hasPrefix (print .Values.storage.mountPath "/") .Values.storage.checkpointMountPath) (hasPrefix (print .Values.storage.checkpointMountPath "/") .Values.storage.mountPath)) }}
{{- fail (print "storage.checkpointMountPath: " "'" .Values.storage.checkpointMountPath "' overlaps storage.mountPath ('" .Values.storage.mountPath "'); mount paths must be disjoint" " [mounts-disjoint]") }}
{{- end }}
{{- if (or (eq .Values.storage.checkpointMountPath .Values.preflight.mountPath) (hasPrefix (print .Values.preflight.mountPath "/") .Values.storage.checkpointMountPath) (hasPrefix (print .Values.storage.checkpointMountPath "/") .Values.preflight.mountPath)) }}
{{- fail (print "storage.checkpointMountPath: " "'" .Values.storage.checkpointMountPath "' overlaps preflight.mountPath ('" .Values.preflight.mountPath "'); mount paths must be disjoint" " [mounts-disjoint]") }}
{{- end }}
{{- if (or (eq .Values.storage.checkpointMountPath "/usr/local/nvidia") (hasPrefix (print "/usr/local/nvidia" "/") .Values.storage.checkpointMountPath) (hasPrefix (print .Values.storage.checkpointMountPath "/") "/usr/local/nvidia")) }}
{{- fail (print "storage.checkpointMountPath: " "'" .Values.storage.checkpointMountPath "' overlaps the NVIDIA driver ('" "/usr/local/nvidia" "'); mount paths must be disjoint" " [mounts-disjoint]") }}
{{- end }}
{{- if (or (eq .Values.storage.checkpointMountPath "/usr/local/gib") (hasPrefix (print "/usr/local/gib" "/") .Values.storage.checkpointMountPath) (hasPrefix (print .Values.storage.checkpointMountPath "/") "/usr/local/gib")) }}
{{- fail (print "storage.checkpointMountPath: " "'" .Values.storage.checkpointMountPath "' overlaps the gIB plugin ('" "/usr/local/gib" "'); mount paths must be disjoint" " [mounts-disjoint]") }}
{{- end }}
{{- if (or (eq .Values.storage.checkpointMountPath "/tmp") (hasPrefix (print "/tmp" "/") .Values.storage.checkpointMountPath) (hasPrefix (print .Values.storage.checkpointMountPath "/") "/tmp")) }}
{{- fail (print "storage.checkpointMountPath: " "'" .Values.storage.checkpointMountPath "' overlaps /tmp ('" "/tmp" "'); mount paths must be disjoint" " [mounts-disjoint]") }}
{{- end }}
{{- if (or (eq .Values.preflight.mountPath .Values.storage.mountPath) (hasPrefix (print .Values.storage.mountPath "/") .Values.preflight.mountPath) (hasPrefix (print .Values.preflight.mountPath "/") .Values.storage.mountPath)) }}
{{- fail (print "preflight.mountPath: " "'" .Values.preflight.mountPath "' overlaps storage.mountPath ('" .Values.storage.mountPath "'); mount paths must be disjoint" " [mounts-disjoint]") }}
{{- end }}
{{- if (or (eq .Values.preflight.mountPath .Values.storage.checkpointMountPath) (hasPrefix (print .Values.storage.checkpointMountPath "/") .Values.preflight.mountPath) (hasPrefix (print .Values.preflight.mountPath "/") .Values.storage.checkpointMountPath)) }}
{{- fail (print "preflight.mountPath: " "'" .Values.preflight.mountPath "' overlaps storage.checkpointMountPath ('" .Values.storage.checkpointMountPath "'); mount paths must be disjoint" " [mounts-disjoint]") }}
{{- end }}
{{- if (or (eq .Values.preflight.mountPath "/usr/local/nvidia") (hasPrefix (print "/usr/local/nvidia" "/") .Values.preflight.mountPath) (hasPrefix (print .Values.preflight.mountPath "/") "/usr/local/nvidia")) }}
{{- fail (print "preflight.mountPath: " "'" .Values.preflight.mountPath "' overlaps the NVIDIA driver ('" "/usr/local/nvidia" "'); mount paths must be disjoint" " [mounts-disjoint]") }}
{{- end }}
{{- if (or (eq .Values.preflight.mountPath "/usr/local/gib") (hasPrefix (print "/usr/local/gib" "/") .Values.preflight.mountPath) (hasPrefix (print .Values.preflight.mountPath "/") "/usr/local/gib")) }}
{{- fail (print "preflight.mountPath: " "'" .Values.preflight.mountPath "' overlaps the gIB plugin ('" "/usr/local/gib" "'); mount paths must be disjoint" " [mounts-disjoint]") }}
{{- end }}
{{- if (or (eq .Values.preflight.mountPath "/tmp") (hasPrefix (print "/tmp" "/") .Values.preflight.mountPath) (hasPrefix (print .Values.preflight.mountPath "/") "/tmp")) }}
{{- fail (print "preflight.mountPath: " "'" .Values.preflight.mountPath "' overlaps /tmp ('" "/tmp" "'); mount paths must be disjoint" " [mounts-disjoint]") }}
{{- end }}
{{- end }}
