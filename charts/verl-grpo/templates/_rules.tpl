{{- /* The kit's cross-field rules (values/cross_rules.py), as `verl-grpo check` runs them. */}}
{{- define "verl-grpo.quantity" }}{{- $n := regexFind "^[0-9]+(\\.[0-9]+)?" (toString .) }}{{- mulf (float64 $n) (index (dict "" 1 "m" 0.001 "k" 1000 "M" 1000000 "G" 1000000000 "T" 1000000000000 "Ki" 1024 "Mi" 1048576 "Gi" 1073741824 "Ti" 1099511627776) (trimPrefix $n (toString .))) }}{{- end }}
{{- define "verl-grpo.workerCount" }}{{- $n := 0 }}{{- range .Values.workerGroups }}{{- $n = add $n .replicas }}{{- end }}{{- $n }}{{- end }}
{{- define "verl-grpo.groupCapacities" }}{{- range .Values.workerGroups }}|{{ .capacity | default $.Values.cluster.capacity }}{{- end }}|{{- end }}
{{- define "verl-grpo.oneCapacity" }}{{- eq (replace (print "|" .Values.cluster.capacity) "" (include "verl-grpo.groupCapacities" .)) "|" }}{{- end }}
{{- define "verl-grpo.repeatedGroups" }}{{- $seen := dict }}{{- range .Values.workerGroups }}{{- if hasKey $seen .name }}{{ .name }} {{ end }}{{- $_ := set $seen .name true }}{{- end }}{{- end }}
{{- define "verl-grpo.rules" }}
{{- if (and (eq .Values.cluster.mode "autopilot") (eq .Values.cluster.zone "")) }}
{{- fail (print "cluster.zone: " "required on Autopilot: the RDMA network profile is zonal and the workers must be pinned to its zone (e.g. us-central1-b)" " [zone-on-autopilot]") }}
{{- end }}
{{- if (and (contains "|reservation|" (include "verl-grpo.groupCapacities" .)) (eq .Values.cluster.reservation "")) }}
{{- fail (print "cluster.reservation: " "required with capacity 'reservation' (the reservation's name)" " [reservation-named]") }}
{{- end }}
{{- if (and (not (contains "|reservation|" (include "verl-grpo.groupCapacities" .))) (ne .Values.cluster.reservation "")) }}
{{- fail (print "cluster.reservation: " "'" .Values.cluster.reservation "' is only used with capacity 'reservation' (cluster.capacity is '" .Values.cluster.capacity "' and no worker group names 'reservation')" " [reservation-only-reserved]") }}
{{- end }}
{{- if (ne (include "verl-grpo.repeatedGroups" . | trimSuffix " ") "") }}
{{- fail (print "workerGroups.name: " "'" (include "verl-grpo.repeatedGroups" . | trimSuffix " ") "' names more than one worker group (KubeRay needs each groupName once)" " [group-names-unique]") }}
{{- end }}
{{- range $group := .Values.workerGroups }}
{{- if ((gt (int ($group.minReplicas | default 0)) (int ($group.replicas | default ""))) | default (and (gt (int ($group.maxReplicas | default 0)) (int 0)) (gt (int ($group.replicas | default "")) (int ($group.maxReplicas | default 0))))) }}
{{- fail (print "workerGroups.replicas: " "group '" ($group.name | default "") "': replicas " ($group.replicas | default "") " must lie within minReplicas " ($group.minReplicas | default 0) " and maxReplicas " ($group.maxReplicas | default 0) " (0: replicas)" " [group-replicas-in-bounds]") }}
{{- end }}
{{- end }}
{{- if (and (gt (int .Values.job.ttlSecondsAfterFinished) (int 0)) (not .Values.job.shutdownAfterJobFinishes)) }}
{{- fail (print "job.ttlSecondsAfterFinished: " "> 0 needs job.shutdownAfterJobFinishes: true (or set it to 0)" " [ttl-needs-shutdown]") }}
{{- end }}
{{- if (and (eq .Values.ray.auth "token") (not (semverCompare ">=2.52.0" .Values.ray.version))) }}
{{- fail (print "ray.auth: " "'token' needs Ray 2.52.0 or newer; ray.version is '" .Values.ray.version "' (an image with a newer Ray, or ray.auth: disabled)" " [ray-auth-needs-ray]") }}
{{- end }}
{{- if (and (eq .Values.ray.auth "token") (not (semverCompare ">=1.6.0" .Values.kuberay.version))) }}
{{- fail (print "ray.auth: " "'token' needs KubeRay 1.6.0 or newer; kuberay.version is '" .Values.kuberay.version "' (authOptions.secretName)" " [ray-auth-needs-kuberay]") }}
{{- end }}
{{- if (and (eq .Values.run.kind "RayJob") (eq .Values.job.submissionMode "SidecarMode") (not (semverCompare ">=1.5.0" .Values.kuberay.version))) }}
{{- fail (print "job.submissionMode: " "'SidecarMode' needs KubeRay 1.5.0 or newer; kuberay.version is '" .Values.kuberay.version "' (use K8sJobMode or HTTPMode)" " [sidecar-mode-needs-kuberay]") }}
{{- end }}
{{- if (and (eq .Values.run.kind "RayJob") (gt (int (add (len (print .Release.Name "-" .Values.run.name)) 9)) (int 47))) }}
{{- fail (print "run.name: " "RayJob name '" .Release.Name "-" .Values.run.name "-<8 hex digits>' is " (add (len (print .Release.Name "-" .Values.run.name)) 9) " characters; KubeRay allows 47" " [rayjob-name-length]") }}
{{- end }}
{{- if (ne (mod (int (index (dict "a4x" 4 "b200" 8 "h200" 8) .Values.gpu.type)) (int .Values.training.tensorParallelSize)) 0) }}
{{- fail (print "training.tensorParallelSize: " .Values.training.tensorParallelSize " must divide the " (index (dict "a4x" 4 "b200" 8 "h200" 8) .Values.gpu.type) " GPUs of a node" " [tp-divides-node]") }}
{{- end }}
{{- if (eq .Values.storage.bucket "") }}
{{- fail (print "storage.bucket: " "not set: bucket names are global, so there is no default; choose yours (-f my.yaml with storage: {bucket: NAME}, or --set storage.bucket=NAME)" " [bucket-named]") }}
{{- end }}
{{- range $group := .Values.workerGroups }}
{{- if (not (regexMatch (print "(?m)^linux/" (index (dict "a4x" "arm64" "b200" "amd64" "h200" "amd64") (($group.machine | default "") | default $.Values.gpu.type)) "$") (join "\n" $.Values.image.platforms))) }}
{{- fail (print "image.platforms: " "lacks linux/" (index (dict "a4x" "arm64" "b200" "amd64" "h200" "amd64") (($group.machine | default "") | default $.Values.gpu.type)) ", the platform of the " (($group.machine | default "") | default $.Values.gpu.type) " nodes group '" ($group.name | default "") "' runs on (verl publishes x86 images only): build verl's image for it (docker/Dockerfile.stable.vllm on such a machine), push it as a multi-arch image and set image.repository, image.tag and image.platforms" " [image-carries-arch]") }}
{{- end }}
{{- end }}
{{- if (and (eq .Values.image.repository "verlai/verl") (regexMatch "^vllm" (join "\n" .Values.image.tag)) (eq .Values.training.rolloutName "sglang")) }}
{{- fail (print "training.rolloutName: " "'sglang' but " .Values.image.repository ":" .Values.image.tag " is verl's vLLM image, built on vLLM's release image with no SGLang (verl docker/README.md); use verl's sglang image (an sgl* tag) or rolloutName vllm" " [image-has-rollout]") }}
{{- end }}
{{- if (regexMatch "(^|[._-])latest$" (join "\n" .Values.image.tag)) }}
{{- fail (print "image.tag: " "'" .Values.image.tag "' is a floating tag: nodes pulling at different times can run different images; use a fixed tag (such as vllm011.dev7)" " [image-tag-pinned]") }}
{{- end }}
{{- if ((not (regexMatch "^[a-z]([-a-z0-9]*[a-z0-9])?$" (join "\n" .Release.Name))) | default (gt (int (len (print .Release.Name))) (int 30))) }}
{{- fail (print "release name: " "'" .Release.Name "' must be DNS-1035 (a-z, 0-9, '-'), at most 30 characters" " [release-name]") }}
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
{{- if (or (eq .Values.storage.dataDir .Values.storage.modelDir) (hasPrefix (print .Values.storage.modelDir "/") .Values.storage.dataDir) (hasPrefix (print .Values.storage.dataDir "/") .Values.storage.modelDir)) }}
{{- fail (print "storage.dataDir: " "'" .Values.storage.dataDir "' overlaps storage.modelDir ('" .Values.storage.modelDir "'); bucket folders must be disjoint" " [bucket-folders-disjoint]") }}
{{- end }}
{{- if (or (eq .Values.storage.verlDir .Values.storage.modelDir) (hasPrefix (print .Values.storage.modelDir "/") .Values.storage.verlDir) (hasPrefix (print .Values.storage.verlDir "/") .Values.storage.modelDir)) }}
{{- fail (print "storage.verlDir: " "'" .Values.storage.verlDir "' overlaps storage.modelDir ('" .Values.storage.modelDir "'); bucket folders must be disjoint" " [bucket-folders-disjoint]") }}
{{- end }}
{{- if (or (eq .Values.storage.verlDir .Values.storage.dataDir) (hasPrefix (print .Values.storage.dataDir "/") .Values.storage.verlDir) (hasPrefix (print .Values.storage.verlDir "/") .Values.storage.dataDir)) }}
{{- fail (print "storage.verlDir: " "'" .Values.storage.verlDir "' overlaps storage.dataDir ('" .Values.storage.dataDir "'); bucket folders must be disjoint" " [bucket-folders-disjoint]") }}
{{- end }}
{{- if (or (eq .Values.storage.checkpointDir .Values.storage.modelDir) (hasPrefix (print .Values.storage.modelDir "/") .Values.storage.checkpointDir) (hasPrefix (print .Values.storage.checkpointDir "/") .Values.storage.modelDir)) }}
{{- fail (print "storage.checkpointDir: " "'" .Values.storage.checkpointDir "' overlaps storage.modelDir ('" .Values.storage.modelDir "'); bucket folders must be disjoint" " [bucket-folders-disjoint]") }}
{{- end }}
{{- if (or (eq .Values.storage.checkpointDir .Values.storage.dataDir) (hasPrefix (print .Values.storage.dataDir "/") .Values.storage.checkpointDir) (hasPrefix (print .Values.storage.checkpointDir "/") .Values.storage.dataDir)) }}
{{- fail (print "storage.checkpointDir: " "'" .Values.storage.checkpointDir "' overlaps storage.dataDir ('" .Values.storage.dataDir "'); bucket folders must be disjoint" " [bucket-folders-disjoint]") }}
{{- end }}
{{- if (or (eq .Values.storage.checkpointDir .Values.storage.verlDir) (hasPrefix (print .Values.storage.verlDir "/") .Values.storage.checkpointDir) (hasPrefix (print .Values.storage.checkpointDir "/") .Values.storage.verlDir)) }}
{{- fail (print "storage.checkpointDir: " "'" .Values.storage.checkpointDir "' overlaps storage.verlDir ('" .Values.storage.verlDir "'); bucket folders must be disjoint" " [bucket-folders-disjoint]") }}
{{- end }}
{{- range $group := .Values.workerGroups }}
{{- if (gt (float64 (addf (include "verl-grpo.quantity" ($.Values.worker.cpu | default (index (dict "a4x/standard" "135" "a4x/autopilot" "133" "b200/standard" "218" "b200/autopilot" "217" "h200/standard" "218" "h200/autopilot" "217") (print (($group.machine | default "") | default $.Values.gpu.type) "/" $.Values.cluster.mode))) | float64) (addf 4.0 ((include "verl-grpo.quantity" ($.Values.storage.sidecar.cpuLimit | default (index (dict "standard" "0" "autopilot" "2") $.Values.cluster.mode)) | float64) | default 0.25) 0.05 0.1))) (float64 (index (dict "a4x" 139.58 "b200" 223.37 "h200" 223.37) (($group.machine | default "") | default $.Values.gpu.type)))) }}
{{- fail (print "worker.cpu: " "'" ($.Values.worker.cpu | default (index (dict "a4x/standard" "135" "a4x/autopilot" "133" "b200/standard" "218" "b200/autopilot" "217" "h200/standard" "218" "h200/autopilot" "217") (print (($group.machine | default "") | default $.Values.gpu.type) "/" $.Values.cluster.mode))) "' plus the sidecars (GCS FUSE, log shipper) and GKE's DaemonSets (" (printf "%.2f" (float64 (addf 4.0 ((include "verl-grpo.quantity" ($.Values.storage.sidecar.cpuLimit | default (index (dict "standard" "0" "autopilot" "2") $.Values.cluster.mode)) | float64) | default 0.25) 0.05 0.1))) " CPUs) exceeds what " (index (dict "a4x" "a4x-highgpu-4g" "b200" "a4-highgpu-8g" "h200" "a3-ultragpu-8g") (($group.machine | default "") | default $.Values.gpu.type)) " can allocate (" (printf "%.2f" (float64 (index (dict "a4x" 139.58 "b200" 223.37 "h200" 223.37) (($group.machine | default "") | default $.Values.gpu.type)))) " CPUs); at most " (printf "%.2f" (float64 (subf (index (dict "a4x" 139.58 "b200" 223.37 "h200" 223.37) (($group.machine | default "") | default $.Values.gpu.type)) (addf 4.0 ((include "verl-grpo.quantity" ($.Values.storage.sidecar.cpuLimit | default (index (dict "standard" "0" "autopilot" "2") $.Values.cluster.mode)) | float64) | default 0.25) 0.05 0.1)))) " CPUs" " [worker-fits-node]") }}
{{- end }}
{{- end }}
{{- range $group := .Values.workerGroups }}
{{- if (gt (float64 (addf (include "verl-grpo.quantity" ($.Values.worker.memory | default (index (dict "a4x/standard" "782Gi" "a4x/autopilot" "769Gi" "b200/standard" "3597Gi" "b200/autopilot" "3583Gi" "h200/standard" "2670Gi" "h200/autopilot" "2656Gi") (print (($group.machine | default "") | default $.Values.gpu.type) "/" $.Values.cluster.mode))) | float64) (addf 17179869184.0 ((include "verl-grpo.quantity" ($.Values.storage.sidecar.memoryLimit | default (index (dict "standard" "0" "autopilot" "14Gi") $.Values.cluster.mode)) | float64) | default 268435456.0) 262144000.0 268435456.0))) (float64 (index (dict "a4x" 858689260789.76 "b200" 3881009260789.76 "h200" 2885329260789.76) (($group.machine | default "") | default $.Values.gpu.type)))) }}
{{- fail (print "worker.memory: " "'" ($.Values.worker.memory | default (index (dict "a4x/standard" "782Gi" "a4x/autopilot" "769Gi" "b200/standard" "3597Gi" "b200/autopilot" "3583Gi" "h200/standard" "2670Gi" "h200/autopilot" "2656Gi") (print (($group.machine | default "") | default $.Values.gpu.type) "/" $.Values.cluster.mode))) "' plus the sidecars (GCS FUSE, log shipper) and GKE's DaemonSets (" (printf "%.2f" (float64 (mulf (addf 17179869184.0 ((include "verl-grpo.quantity" ($.Values.storage.sidecar.memoryLimit | default (index (dict "standard" "0" "autopilot" "14Gi") $.Values.cluster.mode)) | float64) | default 268435456.0) 262144000.0 268435456.0) 9.313225746154785e-10))) "Gi) exceeds what " (index (dict "a4x" "a4x-highgpu-4g" "b200" "a4-highgpu-8g" "h200" "a3-ultragpu-8g") (($group.machine | default "") | default $.Values.gpu.type)) " can allocate (" (printf "%.2f" (float64 (mulf (index (dict "a4x" 858689260789.76 "b200" 3881009260789.76 "h200" 2885329260789.76) (($group.machine | default "") | default $.Values.gpu.type)) 9.313225746154785e-10))) "Gi); at most " (printf "%.2f" (float64 (mulf (subf (index (dict "a4x" 858689260789.76 "b200" 3881009260789.76 "h200" 2885329260789.76) (($group.machine | default "") | default $.Values.gpu.type)) (addf 17179869184.0 ((include "verl-grpo.quantity" ($.Values.storage.sidecar.memoryLimit | default (index (dict "standard" "0" "autopilot" "14Gi") $.Values.cluster.mode)) | float64) | default 268435456.0) 262144000.0 268435456.0)) 9.313225746154785e-10))) "Gi" " [worker-fits-node]") }}
{{- end }}
{{- end }}
{{- range $group := .Values.workerGroups }}
{{- if (gt (float64 (addf (include "verl-grpo.quantity" ($.Values.worker.ephemeralStorage | default (index (dict "a4x/standard" "10507Gi" "a4x/autopilot" "10507Gi" "b200/standard" "10507Gi" "b200/autopilot" "10507Gi" "h200/standard" "10507Gi" "h200/autopilot" "10507Gi") (print (($group.machine | default "") | default $.Values.gpu.type) "/" $.Values.cluster.mode))) | float64) (addf 21474836480.0 (((include "verl-grpo.quantity" ($.Values.storage.sidecar.ephemeralStorageLimit | default "0") | float64) | default (addf (include "verl-grpo.quantity" $.Values.storage.fileCacheCapacity | float64) 5368709120.0)) | default 5368709120.0) 10485760.0 0.0))) (float64 (index (dict "a4x" 11416519927808.0 "b200" 11416519927808.0 "h200" 11416519927808.0) (($group.machine | default "") | default $.Values.gpu.type)))) }}
{{- fail (print "worker.ephemeralStorage: " "'" ($.Values.worker.ephemeralStorage | default (index (dict "a4x/standard" "10507Gi" "a4x/autopilot" "10507Gi" "b200/standard" "10507Gi" "b200/autopilot" "10507Gi" "h200/standard" "10507Gi" "h200/autopilot" "10507Gi") (print (($group.machine | default "") | default $.Values.gpu.type) "/" $.Values.cluster.mode))) "' plus the sidecars (GCS FUSE, log shipper) and GKE's DaemonSets (" (printf "%.2f" (float64 (mulf (addf 21474836480.0 (((include "verl-grpo.quantity" ($.Values.storage.sidecar.ephemeralStorageLimit | default "0") | float64) | default (addf (include "verl-grpo.quantity" $.Values.storage.fileCacheCapacity | float64) 5368709120.0)) | default 5368709120.0) 10485760.0 0.0) 9.313225746154785e-10))) "Gi) exceeds what " (index (dict "a4x" "a4x-highgpu-4g" "b200" "a4-highgpu-8g" "h200" "a3-ultragpu-8g") (($group.machine | default "") | default $.Values.gpu.type)) " can allocate (" (printf "%.2f" (float64 (mulf (index (dict "a4x" 11416519927808.0 "b200" 11416519927808.0 "h200" 11416519927808.0) (($group.machine | default "") | default $.Values.gpu.type)) 9.313225746154785e-10))) "Gi); at most " (printf "%.2f" (float64 (mulf (subf (index (dict "a4x" 11416519927808.0 "b200" 11416519927808.0 "h200" 11416519927808.0) (($group.machine | default "") | default $.Values.gpu.type)) (addf 21474836480.0 (((include "verl-grpo.quantity" ($.Values.storage.sidecar.ephemeralStorageLimit | default "0") | float64) | default (addf (include "verl-grpo.quantity" $.Values.storage.fileCacheCapacity | float64) 5368709120.0)) | default 5368709120.0) 10485760.0 0.0)) 9.313225746154785e-10))) "Gi" " [worker-fits-node]") }}
{{- end }}
{{- end }}
{{- if (and (gt (float64 (include "verl-grpo.quantity" (.Values.storage.sidecar.ephemeralStorageLimit | default "0") | float64)) (float64 0)) (not (gt (float64 (include "verl-grpo.quantity" (.Values.storage.sidecar.ephemeralStorageLimit | default "0") | float64)) (float64 (include "verl-grpo.quantity" .Values.storage.fileCacheCapacity | float64))))) }}
{{- fail (print "storage.sidecar.ephemeralStorageLimit: " "'" .Values.storage.sidecar.ephemeralStorageLimit "' must be larger than storage.fileCacheCapacity '" .Values.storage.fileCacheCapacity "': the file cache lives in the sidecar's volume (gcs-fuse-csi-driver docs/troubleshooting.md)" " [sidecar-holds-file-cache]") }}
{{- end }}
{{- range $group := .Values.workerGroups }}
{{- if (gt (float64 (mulf 3 (index (dict "a4x" 4 "b200" 8 "h200" 8) $.Values.gpu.type))) (float64 (include "verl-grpo.quantity" ($.Values.worker.cpu | default (index (dict "a4x/standard" "135" "a4x/autopilot" "133" "b200/standard" "218" "b200/autopilot" "217" "h200/standard" "218" "h200/autopilot" "217") (print (($group.machine | default "") | default $.Values.gpu.type) "/" $.Values.cluster.mode))) | float64))) }}
{{- fail (print "worker.cpu: " "'" ($.Values.worker.cpu | default (index (dict "a4x/standard" "135" "a4x/autopilot" "133" "b200/standard" "218" "b200/autopilot" "217" "h200/standard" "218" "h200/autopilot" "217") (print (($group.machine | default "") | default $.Values.gpu.type) "/" $.Values.cluster.mode))) "' is below " (mul 3 (index (dict "a4x" 4 "b200" 8 "h200" 8) $.Values.gpu.type)) ": verl (0.7 and newer) places 3 CPUs per GPU bundle and waits forever without them" " [worker-cpus-for-verl]") }}
{{- end }}
{{- end }}
{{- if (and (eq .Values.cluster.mode "autopilot") (eq (float64 (include "verl-grpo.quantity" (.Values.storage.sidecar.cpuLimit | default (index (dict "standard" "0" "autopilot" "2") .Values.cluster.mode)) | float64)) (float64 0))) }}
{{- fail (print "storage.sidecar.cpuLimit: " "'" (.Values.storage.sidecar.cpuLimit | default "") "' (unlimited) is not allowed on Autopilot; give a real limit" " [autopilot-sidecar-limited]") }}
{{- end }}
{{- if (and (eq .Values.cluster.mode "autopilot") (gt (float64 (include "verl-grpo.quantity" (.Values.storage.sidecar.cpuLimit | default (index (dict "standard" "0" "autopilot" "2") .Values.cluster.mode)) | float64)) (float64 (include "verl-grpo.quantity" "2" | float64)))) }}
{{- fail (print "storage.sidecar.cpuLimit: " "'" (.Values.storage.sidecar.cpuLimit | default "") "' exceeds what Autopilot gives a GCS FUSE sidecar on GPU nodes (2; gcs-fuse-csi-driver docs/troubleshooting.md); the pod would never schedule" " [autopilot-sidecar-limited]") }}
{{- end }}
{{- if (and (eq .Values.cluster.mode "autopilot") (eq (float64 (include "verl-grpo.quantity" (.Values.storage.sidecar.memoryLimit | default (index (dict "standard" "0" "autopilot" "14Gi") .Values.cluster.mode)) | float64)) (float64 0))) }}
{{- fail (print "storage.sidecar.memoryLimit: " "'" (.Values.storage.sidecar.memoryLimit | default "") "' (unlimited) is not allowed on Autopilot; give a real limit" " [autopilot-sidecar-limited]") }}
{{- end }}
{{- if (and (eq .Values.cluster.mode "autopilot") (gt (float64 (include "verl-grpo.quantity" (.Values.storage.sidecar.memoryLimit | default (index (dict "standard" "0" "autopilot" "14Gi") .Values.cluster.mode)) | float64)) (float64 (include "verl-grpo.quantity" "14Gi" | float64)))) }}
{{- fail (print "storage.sidecar.memoryLimit: " "'" (.Values.storage.sidecar.memoryLimit | default "") "' exceeds what Autopilot gives a GCS FUSE sidecar on GPU nodes (14Gi; gcs-fuse-csi-driver docs/troubleshooting.md); the pod would never schedule" " [autopilot-sidecar-limited]") }}
{{- end }}
{{- if (and (eq .Values.cluster.mode "autopilot") (eq (float64 (include "verl-grpo.quantity" (.Values.storage.sidecar.ephemeralStorageLimit | default (index (dict "standard" "0" "autopilot" "200Gi") .Values.cluster.mode)) | float64)) (float64 0))) }}
{{- fail (print "storage.sidecar.ephemeralStorageLimit: " "'" (.Values.storage.sidecar.ephemeralStorageLimit | default "") "' (unlimited) is not allowed on Autopilot; give a real limit" " [autopilot-sidecar-limited]") }}
{{- end }}
{{- if (and (not (regexMatch "(?m)^[+~]*(data\\.train_batch_size|actor_rollout_ref\\.rollout\\.n|trainer\\.(n_gpus_per_node|nnodes)|actor_rollout_ref\\.actor\\.(use_dynamic_bsz|ppo_mini_batch_size|ppo_micro_batch_size(_per_gpu)?|ulysses_sequence_parallel_size))=" (join "\n" .Values.training.extraArgs))) (ne (mod (int (mul .Values.training.trainBatchSize .Values.training.rolloutN)) (int (mul (include "verl-grpo.workerCount" . | atoi) (index (dict "a4x" 4 "b200" 8 "h200" 8) .Values.gpu.type)))) 0)) }}
{{- fail (print "training.trainBatchSize: " "trainBatchSize x rolloutN = " (mul .Values.training.trainBatchSize .Values.training.rolloutN) " is not divisible by the " (mul (include "verl-grpo.workerCount" . | atoi) (index (dict "a4x" 4 "b200" 8 "h200" 8) .Values.gpu.type)) " GPUs (verl refuses it at start-up)" " [verl-batch-divisible]") }}
{{- end }}
{{- if (and (not (regexMatch "(?m)^[+~]*(data\\.train_batch_size|actor_rollout_ref\\.rollout\\.n|trainer\\.(n_gpus_per_node|nnodes)|actor_rollout_ref\\.actor\\.(use_dynamic_bsz|ppo_mini_batch_size|ppo_micro_batch_size(_per_gpu)?|ulysses_sequence_parallel_size))=" (join "\n" .Values.training.extraArgs))) (and .Values.dataPrep.enabled (gt (int .Values.training.trainBatchSize) (int 7473)))) }}
{{- fail (print "training.trainBatchSize: " .Values.training.trainBatchSize " exceeds the 7473 GSM8K training rows the data-prep Job writes: verl's dataloader drops the partial batch, so the run would train 0 steps" " [batch-within-dataset]") }}
{{- end }}
{{- if (and (not (regexMatch "(?m)^[+~]*(data\\.train_batch_size|actor_rollout_ref\\.rollout\\.n|trainer\\.(n_gpus_per_node|nnodes)|actor_rollout_ref\\.actor\\.(use_dynamic_bsz|ppo_mini_batch_size|ppo_micro_batch_size(_per_gpu)?|ulysses_sequence_parallel_size))=" (join "\n" .Values.training.extraArgs))) (gt (int .Values.training.ppoMiniBatchSize) (int .Values.training.trainBatchSize))) }}
{{- fail (print "training.ppoMiniBatchSize: " .Values.training.ppoMiniBatchSize " exceeds trainBatchSize " .Values.training.trainBatchSize " (verl refuses it at start-up)" " [verl-mini-within-train]") }}
{{- end }}
{{- if (and (not (regexMatch "(?m)^[+~]*(data\\.train_batch_size|actor_rollout_ref\\.rollout\\.n|trainer\\.(n_gpus_per_node|nnodes)|actor_rollout_ref\\.actor\\.(use_dynamic_bsz|ppo_mini_batch_size|ppo_micro_batch_size(_per_gpu)?|ulysses_sequence_parallel_size))=" (join "\n" .Values.training.extraArgs))) (and (not (gt (int .Values.training.ppoMiniBatchSize) (int .Values.training.trainBatchSize))) (eq (div (mul .Values.training.ppoMiniBatchSize .Values.training.rolloutN) (mul (include "verl-grpo.workerCount" . | atoi) (index (dict "a4x" 4 "b200" 8 "h200" 8) .Values.gpu.type))) 0))) }}
{{- fail (print "training.ppoMiniBatchSize: " "ppoMiniBatchSize x rolloutN / GPUs is 0: too few prompts per GPU (verl fails at worker init)" " [verl-mini-batch-per-gpu]") }}
{{- end }}
{{- if (and (not (regexMatch "(?m)^[+~]*(data\\.train_batch_size|actor_rollout_ref\\.rollout\\.n|trainer\\.(n_gpus_per_node|nnodes)|actor_rollout_ref\\.actor\\.(use_dynamic_bsz|ppo_mini_batch_size|ppo_micro_batch_size(_per_gpu)?|ulysses_sequence_parallel_size))=" (join "\n" .Values.training.extraArgs))) (and (not (gt (int .Values.training.ppoMiniBatchSize) (int .Values.training.trainBatchSize))) (gt (int (div (mul .Values.training.ppoMiniBatchSize .Values.training.rolloutN) (mul (include "verl-grpo.workerCount" . | atoi) (index (dict "a4x" 4 "b200" 8 "h200" 8) .Values.gpu.type)))) (int 0)) (ne (mod (int (div (mul .Values.training.ppoMiniBatchSize .Values.training.rolloutN) (mul (include "verl-grpo.workerCount" . | atoi) (index (dict "a4x" 4 "b200" 8 "h200" 8) .Values.gpu.type)))) (int .Values.training.ppoMicroBatchSizePerGpu)) 0))) }}
{{- fail (print "training.ppoMicroBatchSizePerGpu: " "the mini-batch per GPU (" (div (mul .Values.training.ppoMiniBatchSize .Values.training.rolloutN) (mul (include "verl-grpo.workerCount" . | atoi) (index (dict "a4x" 4 "b200" 8 "h200" 8) .Values.gpu.type))) ") is not divisible by " .Values.training.ppoMicroBatchSizePerGpu " (verl fails at worker init, after the GPUs are allocated)" " [verl-micro-divides-mini]") }}
{{- end }}
{{- if (and .Values.queue.enabled (eq .Values.run.kind "RayJob") (not .Values.job.shutdownAfterJobFinishes)) }}
{{- fail (print "job.shutdownAfterJobFinishes: " "must be true with queue.enabled: Kueue's webhook refuses a queued RayJob that keeps its cluster" " [queue-needs-shutdown]") }}
{{- end }}
{{- if (and (not .Values.queue.enabled) (ne .Values.queue.topology.mode "none")) }}
{{- fail (print "queue.topology.mode: " "'" .Values.queue.topology.mode "' needs queue.enabled: Kueue places the workers" " [topology-needs-queue]") }}
{{- end }}
{{- if (and (not .Values.queue.enabled) .Values.queue.createObjects) }}
{{- fail (print "queue.createObjects: " "needs queue.enabled: Kueue's objects are rendered for a queued run" " [objects-need-queue]") }}
{{- end }}
{{- if (and .Values.queue.enabled .Values.queue.createObjects (gt (int (mul (include "verl-grpo.workerCount" . | atoi) (index (dict "a4x" 4 "b200" 8 "h200" 8) .Values.gpu.type))) (int .Values.queue.gpuQuota))) }}
{{- fail (print "queue.gpuQuota: " "" .Values.queue.gpuQuota " GPUs, but the run needs " (mul (include "verl-grpo.workerCount" . | atoi) (index (dict "a4x" 4 "b200" 8 "h200" 8) .Values.gpu.type)) " at once (the groups' replicas x GPUs per node): Kueue would never admit it" " [queue-quota-fits]") }}
{{- end }}
{{- range $group := .Values.workerGroups }}
{{- if (and $.Values.queue.enabled (eq $.Values.queue.topology.mode "required") (eq $.Values.queue.topology.level "kubernetes.io/hostname") (gt (int ($group.replicas | default "")) (int 1))) }}
{{- fail (print "queue.topology.level: " "'kubernetes.io/hostname' names one node, but queue.topology.mode 'required' puts all " ($group.replicas | default "") " workers of group '" ($group.name | default "") "' under one value of it: Kueue would never admit the run (choose a GCE block or sub-block)" " [topology-level-holds-workers]") }}
{{- end }}
{{- end }}
{{- range $group := .Values.workerGroups }}
{{- if (and $.Values.queue.enabled ((eq $.Values.network.rdma "dranet") | default (eq (index (dict "a4x" "imex" "b200" "" "h200" "") (($group.machine | default "") | default $.Values.gpu.type)) "imex"))) }}
{{- fail (print "queue.enabled: " "Kueue v0.19 cannot admit group '" ($group.name | default "") "': its pods claim devices through DRA (network.rdma 'dranet': every RDMA NIC, allocationMode All; A4X: an IMEX channel), which Kueue refuses unless its own Configuration maps their DeviceClasses; run it without queue.enabled, or use network.rdma 'multi-network' on A4 and A3 Ultra" " [queue-without-device-claims]") }}
{{- end }}
{{- end }}
{{- range $group := .Values.workerGroups }}
{{- if (and $.Values.queue.enabled (ne $.Values.queue.topology.mode "none") (ne (($group.capacity | default "") | default $.Values.cluster.capacity) "reservation")) }}
{{- fail (print "queue.topology.mode: " "'" $.Values.queue.topology.mode "' places workers by GCE's topology labels, which only reservation nodes carry, but group '" ($group.name | default "") "' uses capacity '" (($group.capacity | default "") | default $.Values.cluster.capacity) "': Kueue would find no domain; use a reservation or queue.topology.mode 'none'" " [topology-needs-reservation]") }}
{{- end }}
{{- end }}
{{- if (and .Values.queue.enabled .Values.queue.createObjects (contains "|flex-start|" (include "verl-grpo.groupCapacities" .)) (not (eq (include "verl-grpo.oneCapacity" .) "true"))) }}
{{- fail (print "queue.createObjects: " "renders one GPU flavor for every group, and GKE's queued provisioning for all of them when cluster.capacity is flex-start: flex-start groups cannot be mixed with others (cluster.capacity '" .Values.cluster.capacity "'); set cluster.capacity flex-start for every group, or give the platform's ClusterQueue a flavor and admission check of its own for them (createObjects: false)" " [queue-objects-flex-start-alone]") }}
{{- end }}
{{- if (and (contains "|flex-start|" (include "verl-grpo.groupCapacities" .)) (eq .Values.run.kind "RayJob") (gt (int .Values.job.activeDeadlineSeconds) (int 604800))) }}
{{- fail (print "job.activeDeadlineSeconds: " "" .Values.job.activeDeadlineSeconds " is longer than a flex-start VM runs (604800 s, 7 days): the nodes go before the run ends" " [flex-start-run-length]") }}
{{- end }}
{{- if (not (regexMatch (index (dict "a4x" "^(standard)$" "b200" "^(standard|autopilot)$" "h200" "^(standard|autopilot)$") .Values.gpu.type) (join "\n" .Values.cluster.mode))) }}
{{- fail (print "cluster.mode: " "'" .Values.cluster.mode "': gpu.type '" .Values.gpu.type "' (" (index (dict "a4x" "a4x-highgpu-4g" "b200" "a4-highgpu-8g" "h200" "a3-ultragpu-8g") .Values.gpu.type) ") comes only with " (index (dict "a4x" "standard" "b200" "standard, autopilot" "h200" "standard, autopilot") .Values.gpu.type) " [gpu-mode-offered]") }}
{{- end }}
{{- if (not (regexMatch (index (dict "a4x" "^(reservation)$" "b200" "^(spot|reservation|flex-start|on-demand)$" "h200" "^(spot|reservation|flex-start|on-demand)$") .Values.gpu.type) (join "\n" .Values.cluster.capacity))) }}
{{- fail (print "cluster.capacity: " "'" .Values.cluster.capacity "': gpu.type '" .Values.gpu.type "' (" (index (dict "a4x" "a4x-highgpu-4g" "b200" "a4-highgpu-8g" "h200" "a3-ultragpu-8g") .Values.gpu.type) ") comes only with " (index (dict "a4x" "reservation" "b200" "spot, reservation, flex-start, on-demand" "h200" "spot, reservation, flex-start, on-demand") .Values.gpu.type) " [gpu-capacity-offered]") }}
{{- end }}
{{- range $group := .Values.workerGroups }}
{{- if (and ((ne ($group.capacity | default "") "") | default (ne ($group.machine | default "") "")) (not (regexMatch (index (dict "a4x" "^(reservation)$" "b200" "^(spot|reservation|flex-start|on-demand)$" "h200" "^(spot|reservation|flex-start|on-demand)$") (($group.machine | default "") | default $.Values.gpu.type)) (join "\n" (($group.capacity | default "") | default $.Values.cluster.capacity))))) }}
{{- fail (print "workerGroups.capacity: " "'" (($group.capacity | default "") | default $.Values.cluster.capacity) "': group '" ($group.name | default "") "' runs on " (($group.machine | default "") | default $.Values.gpu.type) " (" (index (dict "a4x" "a4x-highgpu-4g" "b200" "a4-highgpu-8g" "h200" "a3-ultragpu-8g") (($group.machine | default "") | default $.Values.gpu.type)) "), which comes only with " (index (dict "a4x" "reservation" "b200" "spot, reservation, flex-start, on-demand" "h200" "spot, reservation, flex-start, on-demand") (($group.machine | default "") | default $.Values.gpu.type)) " [group-capacity-offered]") }}
{{- end }}
{{- end }}
{{- range $group := .Values.workerGroups }}
{{- if (and ((ne ($group.capacity | default "") "") | default (ne ($group.machine | default "") "")) (not (regexMatch (index (dict "a4x" "^(standard)$" "b200" "^(standard|autopilot)$" "h200" "^(standard|autopilot)$") (($group.machine | default "") | default $.Values.gpu.type)) (join "\n" $.Values.cluster.mode)))) }}
{{- fail (print "workerGroups.machine: " "'" $.Values.cluster.mode "': group '" ($group.name | default "") "' runs on " (($group.machine | default "") | default $.Values.gpu.type) " (" (index (dict "a4x" "a4x-highgpu-4g" "b200" "a4-highgpu-8g" "h200" "a3-ultragpu-8g") (($group.machine | default "") | default $.Values.gpu.type)) "), which comes only with " (index (dict "a4x" "standard" "b200" "standard, autopilot" "h200" "standard, autopilot") (($group.machine | default "") | default $.Values.gpu.type)) " [group-mode-offered]") }}
{{- end }}
{{- end }}
{{- range $group := .Values.workerGroups }}
{{- if (ne (index (dict "a4x" "4 GPUs per node, arm64, 4 RDMA NICs, multi-node NVLink" "b200" "8 GPUs per node, amd64, 8 RDMA NICs, no multi-node NVLink" "h200" "8 GPUs per node, amd64, 8 RDMA NICs, no multi-node NVLink") (($group.machine | default "") | default $.Values.gpu.type)) (index (dict "a4x" "4 GPUs per node, arm64, 4 RDMA NICs, multi-node NVLink" "b200" "8 GPUs per node, amd64, 8 RDMA NICs, no multi-node NVLink" "h200" "8 GPUs per node, amd64, 8 RDMA NICs, no multi-node NVLink") $.Values.gpu.type)) }}
{{- fail (print "workerGroups.machine: " "group '" ($group.name | default "") "' runs on " (($group.machine | default "") | default $.Values.gpu.type) " (" (index (dict "a4x" "4 GPUs per node, arm64, 4 RDMA NICs, multi-node NVLink" "b200" "8 GPUs per node, amd64, 8 RDMA NICs, no multi-node NVLink" "h200" "8 GPUs per node, amd64, 8 RDMA NICs, no multi-node NVLink") (($group.machine | default "") | default $.Values.gpu.type)) "), but every worker joins one verl and NCCL world made for gpu.type '" $.Values.gpu.type "' (" (index (dict "a4x" "4 GPUs per node, arm64, 4 RDMA NICs, multi-node NVLink" "b200" "8 GPUs per node, amd64, 8 RDMA NICs, no multi-node NVLink" "h200" "8 GPUs per node, amd64, 8 RDMA NICs, no multi-node NVLink") $.Values.gpu.type) "); use a machine that matches it, or gpu.type" " [group-machine-joins-run]") }}
{{- end }}
{{- end }}
{{- range $group := .Values.workerGroups }}
{{- if (and (ne (($group.machine | default "") | default $.Values.gpu.type) $.Values.gpu.type) (eq (($group.capacity | default "") | default $.Values.cluster.capacity) "reservation")) }}
{{- fail (print "workerGroups.machine: " "group '" ($group.name | default "") "' runs on " ($group.machine | default "") ", but its capacity is reservation '" $.Values.cluster.reservation "', which holds gpu.type's machine (" (index (dict "a4x" "a4x-highgpu-4g" "b200" "a4-highgpu-8g" "h200" "a3-ultragpu-8g") $.Values.gpu.type) "); give the group capacity of its own (spot, flex-start, on-demand)" " [group-machine-reserved]") }}
{{- end }}
{{- end }}
{{- range $group := .Values.workerGroups }}
{{- if (and $.Values.queue.enabled $.Values.queue.createObjects (ne (($group.machine | default "") | default $.Values.gpu.type) $.Values.gpu.type)) }}
{{- fail (print "queue.createObjects: " "renders one GPU flavor, for gpu.type '" $.Values.gpu.type "', but group '" ($group.name | default "") "' runs on " ($group.machine | default "") ": Kueue would never admit it; give the platform's ClusterQueue a flavor per group (createObjects: false)" " [queue-objects-one-machine]") }}
{{- end }}
{{- end }}
{{- if (and (eq .Values.network.rdma "dranet") (eq .Values.cluster.mode "autopilot")) }}
{{- fail (print "network.rdma: " "'dranet' is rendered for Standard clusters (Autopilot needs a custom ComputeClass)" " [dranet-on-standard]") }}
{{- end }}
{{- range $group := .Values.workerGroups }}
{{- if (and (gt (int (index (dict "a4x" 18 "b200" 0 "h200" 0) (($group.machine | default "") | default $.Values.gpu.type))) (int 0)) (gt (int ($group.replicas | default "")) (int (index (dict "a4x" 18 "b200" 0 "h200" 0) (($group.machine | default "") | default $.Values.gpu.type)))) ((ne (index (dict "a4x" "1x72" "b200" "" "h200" "") (($group.machine | default "") | default $.Values.gpu.type)) "") | default (and $.Values.queue.enabled (eq $.Values.queue.topology.mode "required") (eq $.Values.queue.topology.level "cloud.google.com/gce-topology-subblock")))) }}
{{- fail (print "workerGroups.replicas: " "group '" ($group.name | default "") "' has " ($group.replicas | default "") " workers, but a sub-block of " (index (dict "a4x" "a4x-highgpu-4g" "b200" "a4-highgpu-8g" "h200" "a3-ultragpu-8g") (($group.machine | default "") | default $.Values.gpu.type)) " holds " (index (dict "a4x" 18 "b200" 0 "h200" 0) (($group.machine | default "") | default $.Values.gpu.type)) " nodes, and its node pool's placement policy or queue.topology keeps a group in one" " [sub-block-holds-workers]") }}
{{- end }}
{{- end }}
{{- end }}
