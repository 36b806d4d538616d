{{- /* The kit's cross-field rules (rules/cross_rules.py), as `verl-grpo check` runs them. */}}
{{- define "verl-grpo.quantity" }}
{{- $n := regexFind "^[0-9]+(\\.[0-9]+)?" (toString .) }}
{{- mulf
    (float64 $n)
    (index
      (dict "" 1 "m" 0.001 "k" 1000 "M" 1000000 "G" 1000000000 "T" 1000000000000 "Ki" 1024 "Mi" 1048576 "Gi" 1073741824 "Ti" 1099511627776)
      (trimPrefix $n (toString .))) }}
{{- end }}
{{- define "verl-grpo.workerCount" }}
{{- $n := 0 }}
{{- range .Values.workerGroups }}
{{- $n = add $n .replicas }}
{{- end }}
{{- $n }}
{{- end }}
{{- define "verl-grpo.groupCapacities" }}
{{- range .Values.workerGroups }}|{{ .capacity | default $.Values.cluster.capacity }}
{{- end }}|{{- end }}
{{- define "verl-grpo.oneCapacity" }}
{{- eq (replace (print "|" .Values.cluster.capacity) "" (include "verl-grpo.groupCapacities" .)) "|" }}
{{- end }}
{{- define "verl-grpo.workerGroupsAsMap" }}
{{- $groups := dict }}
{{- range $i, $g := .Values.workerGroups }}
{{- $_ := set $groups (toString ($g.name | default (printf "group-%d" $i))) (omit $g "name") }}
{{- end }}
{{- printf
    "workerGroups: %s%s%s"
    "a map keyed by group name, not a list: write workerGroups: "
    (toJson $groups)
    " (a map merges with the chart's gpu-group: set gpu-group: null to drop it)" }}
{{- end }}

{{- define "verl-grpo.rule.zone-on-autopilot" }}
{{- if (and (eq .Values.cluster.mode "autopilot") (eq .Values.cluster.zone "")) }}
{{ (print
    "cluster.zone: "
    "required on Autopilot: the RDMA network profile is zonal and the workers "
    "must be pinned to its zone (e.g. us-central1-b)"
    " [zone-on-autopilot]") }}
{{- end }}
{{- end }}
{{- define "verl-grpo.rule.reservation-named" }}
{{- if (and (contains "|reservation|" (include "verl-grpo.groupCapacities" .)) (eq .Values.cluster.reservation "")) }}
{{ (print "cluster.reservation: " "required with capacity 'reservation' (the reservation's name)" " [reservation-named]") }}
{{- end }}
{{- end }}
{{- define "verl-grpo.rule.reservation-only-reserved" }}
{{- if (and (not (contains "|reservation|" (include "verl-grpo.groupCapacities" .))) (ne .Values.cluster.reservation "")) }}
{{ (print
    "cluster.reservation: "
    "'"
    .Values.cluster.reservation
    "' is only used with capacity 'reservation' (cluster.capacity is '"
    .Values.cluster.capacity
    "' and no worker group names 'reservation')"
    " [reservation-only-reserved]") }}
{{- end }}
{{- end }}
{{- define "verl-grpo.rule.group-replicas-in-bounds" }}
{{- range $name, $group := .Values.workerGroups }}
{{- if
    (or
      (gt (int ($group.minReplicas | default 0)) (int ($group.replicas | default "")))
      (and (gt (int ($group.maxReplicas | default 0)) (int 0)) (gt (int ($group.replicas | default "")) (int ($group.maxReplicas | default 0))))) }}
{{ (print
    "workerGroups.replicas: "
    "group '"
    $name
    "': replicas "
    ($group.replicas | default "")
    " must lie within minReplicas "
    ($group.minReplicas | default 0)
    " and maxReplicas "
    ($group.maxReplicas | default 0)
    " (0: replicas)"
    " [group-replicas-in-bounds]") }}
{{- end }}
{{- end }}
{{- end }}
{{- define "verl-grpo.rule.ttl-needs-shutdown" }}
{{- if (and (gt (int .Values.job.ttlSecondsAfterFinished) (int 0)) (not .Values.job.shutdownAfterJobFinishes)) }}
{{ (print "job.ttlSecondsAfterFinished: " "> 0 needs job.shutdownAfterJobFinishes: true (or set it to 0)" " [ttl-needs-shutdown]") }}
{{- end }}
{{- end }}
{{- define "verl-grpo.rule.ray-auth-needs-ray" }}
{{- if (and (eq .Values.ray.auth "token") (not (semverCompare ">=2.52.0" .Values.ray.version))) }}
{{ (print
    "ray.auth: "
    "'token' needs Ray 2.52.0 or newer; ray.version is '"
    .Values.ray.version
    "' (an image with a newer Ray, or ray.auth: disabled)"
    " [ray-auth-needs-ray]") }}
{{- end }}
{{- end }}
{{- define "verl-grpo.rule.ray-auth-needs-kuberay" }}
{{- if (and (eq .Values.ray.auth "token") (not (semverCompare ">=1.6.0" .Values.kuberay.version))) }}
{{ (print
    "ray.auth: "
    "'token' needs KubeRay 1.6.0 or newer; kuberay.version is '"
    .Values.kuberay.version
    "' (authOptions.secretName)"
    " [ray-auth-needs-kuberay]") }}
{{- end }}
{{- end }}
{{- define "verl-grpo.rule.sidecar-mode-needs-kuberay" }}
{{- if (and (eq .Values.run.kind "RayJob") (eq .Values.job.submissionMode "SidecarMode") (not (semverCompare ">=1.5.0" .Values.kuberay.version))) }}
{{ (print
    "job.submissionMode: "
    "'SidecarMode' needs KubeRay 1.5.0 or newer; kuberay.version is '"
    .Values.kuberay.version
    "' (use K8sJobMode or HTTPMode)"
    " [sidecar-mode-needs-kuberay]") }}
{{- end }}
{{- end }}
{{- define "verl-grpo.rule.rayjob-name-length" }}
{{- if (and (eq .Values.run.kind "RayJob") (gt (int (add (len (print .Release.Name "-" .Values.run.name)) 9)) (int 47))) }}
{{ (print
    "run.name: "
    "RayJob name '"
    .Release.Name
    "-"
    .Values.run.name
    "-<8 hex digits>' is "
    (add (len (print .Release.Name "-" .Values.run.name)) 9)
    " characters; KubeRay allows 47"
    " [rayjob-name-length]") }}
{{- end }}
{{- end }}
{{- define "verl-grpo.rule.tp-divides-node" }}
{{- if (ne (mod (int (int (index (include "verl-grpo.machine" .Values.gpu.type | fromJson) "gpusPerNode"))) (int .Values.training.tensorParallelSize)) 0) }}
{{ (print
    "training.tensorParallelSize: "
    .Values.training.tensorParallelSize
    " must divide the "
    (int (index (include "verl-grpo.machine" .Values.gpu.type | fromJson) "gpusPerNode"))
    " GPUs of a node"
    " [tp-divides-node]") }}
{{- end }}
{{- end }}
{{- define "verl-grpo.rule.bucket-named" }}
{{- if (eq .Values.storage.bucket "") }}
{{ (print
    "storage.bucket: "
    "not set: bucket names are global, so there is no default; choose yours "
    "(-f my.yaml with storage: {bucket: NAME}, or --set storage.bucket=NAME)"
    " [bucket-named]") }}
{{- end }}
{{- end }}
{{- define "verl-grpo.rule.image-carries-arch" }}
{{- range $name, $group := .Values.workerGroups }}
{{- if
    (not
      (regexMatch
        (print "(?m)^linux/" (index (include "verl-grpo.machine" (($group.machine | default "") | default $.Values.gpu.type) | fromJson) "arch") "$")
        (join "\n" $.Values.image.platforms))) }}
{{ (print
    "image.platforms: "
    "lacks linux/"
    (index (include "verl-grpo.machine" (($group.machine | default "") | default $.Values.gpu.type) | fromJson) "arch")
    ", the platform of the "
    (($group.machine | default "") | default $.Values.gpu.type)
    " nodes group '"
    $name
    "' runs on (verl publishes x86 images only): build verl's image for it "
    "(docker/Dockerfile.stable.vllm on such a machine), push it as a "
    "multi-arch image and set image.repository, image.tag and image.platforms"
    " [image-carries-arch]") }}
{{- end }}
{{- end }}
{{- end }}
{{- define "verl-grpo.rule.image-has-rollout" }}
{{- if (and (eq .Values.image.repository "verlai/verl") (regexMatch "^vllm" (join "\n" .Values.image.tag)) (eq .Values.training.rolloutName "sglang")) }}
{{ (print
    "training.rolloutName: "
    "'sglang' but "
    .Values.image.repository
    ":"
    .Values.image.tag
    " is verl's vLLM image, built on vLLM's release image with no SGLang "
    "(verl docker/README.md); use verl's sglang image (an sgl* tag) or "
    "rolloutName vllm"
    " [image-has-rollout]") }}
{{- end }}
{{- end }}
{{- define "verl-grpo.rule.image-tag-pinned" }}
{{- if (regexMatch "(^|[._-])latest$" (join "\n" .Values.image.tag)) }}
{{ (print
    "image.tag: "
    "'"
    .Values.image.tag
    "' is a floating tag: nodes pulling at different times can run different "
    "images; use a fixed tag (such as vllm011.dev7)"
    " [image-tag-pinned]") }}
{{- end }}
{{- end }}
{{- define "verl-grpo.rule.release-name" }}
{{- if (or (not (regexMatch "^[a-z]([-a-z0-9]*[a-z0-9])?$" (join "\n" .Release.Name))) (gt (int (len (print .Release.Name))) (int 30))) }}
{{ (print "release name: " "'" .Release.Name "' must be DNS-1035 (a-z, 0-9, '-'), at most 30 characters" " [release-name]") }}
{{- end }}
{{- end }}
{{- define "verl-grpo.rule.mounts-disjoint" }}
{{- if
    (or
      (eq .Values.storage.mountPath .Values.storage.checkpointMountPath)
      (hasPrefix (print .Values.storage.checkpointMountPath "/") .Values.storage.mountPath)
      (hasPrefix (print .Values.storage.mountPath "/") .Values.storage.checkpointMountPath)) }}
{{ (print
    "storage.mountPath: "
    "'"
    .Values.storage.mountPath
    "' overlaps storage.checkpointMountPath ('"
    .Values.storage.checkpointMountPath
    "'); mount paths must be disjoint"
    " [mounts-disjoint]") }}
{{- end }}
{{- end }}
{{- define "verl-grpo.rule.mounts-disjoint.2" }}
{{- if
    (or
      (eq .Values.storage.mountPath .Values.preflight.mountPath)
      (hasPrefix (print .Values.preflight.mountPath "/") .Values.storage.mountPath)
      (hasPrefix (print .Values.storage.mountPath "/") .Values.preflight.mountPath)) }}
{{ (print
    "storage.mountPath: "
    "'"
    .Values.storage.mountPath
    "' overlaps preflight.mountPath ('"
    .Values.preflight.mountPath
    "'); mount paths must be disjoint"
    " [mounts-disjoint]") }}
{{- end }}
{{- end }}
{{- define "verl-grpo.rule.mounts-disjoint.3" }}
{{- if
    (or
      (eq .Values.storage.mountPath "/usr/local/nvidia")
      (hasPrefix (print "/usr/local/nvidia" "/") .Values.storage.mountPath)
      (hasPrefix (print .Values.storage.mountPath "/") "/usr/local/nvidia")) }}
{{ (print
    "storage.mountPath: "
    "'"
    .Values.storage.mountPath
    "' overlaps the NVIDIA driver ('"
    "/usr/local/nvidia"
    "'); mount paths must be disjoint"
    " [mounts-disjoint]") }}
{{- end }}
{{- end }}
{{- define "verl-grpo.rule.mounts-disjoint.4" }}
{{- if
    (or
      (eq .Values.storage.mountPath "/usr/local/gib")
      (hasPrefix (print "/usr/local/gib" "/") .Values.storage.mountPath)
      (hasPrefix (print .Values.storage.mountPath "/") "/usr/local/gib")) }}
{{ (print
    "storage.mountPath: "
    "'"
    .Values.storage.mountPath
    "' overlaps the gIB plugin ('"
    "/usr/local/gib"
    "'); mount paths must be disjoint"
    " [mounts-disjoint]") }}
{{- end }}
{{- end }}
{{- define "verl-grpo.rule.mounts-disjoint.5" }}
{{- if
    (or
      (eq .Values.storage.mountPath "/tmp")
      (hasPrefix (print "/tmp" "/") .Values.storage.mountPath)
      (hasPrefix (print .Values.storage.mountPath "/") "/tmp")) }}
{{ (print "storage.mountPath: " "'" .Values.storage.mountPath "' overlaps /tmp ('" "/tmp" "'); mount paths must be disjoint" " [mounts-disjoint]") }}
{{- end }}
{{- end }}
{{- define "verl-grpo.rule.mounts-disjoint.6" }}
{{- if
    (or
      (eq .Values.storage.checkpointMountPath .Values.storage.mountPath)
      (hasPrefix (print .Values.storage.mountPath "/") .Values.storage.checkpointMountPath)
      (hasPrefix (print .Values.storage.checkpointMountPath "/") .Values.storage.mountPath)) }}
{{ (print
    "storage.checkpointMountPath: "
    "'"
    .Values.storage.checkpointMountPath
    "' overlaps storage.mountPath ('"
    .Values.storage.mountPath
    "'); mount paths must be disjoint"
    " [mounts-disjoint]") }}
{{- end }}
{{- end }}
{{- define "verl-grpo.rule.mounts-disjoint.7" }}
{{- if
    (or
      (eq .Values.storage.checkpointMountPath .Values.preflight.mountPath)
      (hasPrefix (print .Values.preflight.mountPath "/") .Values.storage.checkpointMountPath)
      (hasPrefix (print .Values.storage.checkpointMountPath "/") .Values.preflight.mountPath)) }}
{{ (print
    "storage.checkpointMountPath: "
    "'"
    .Values.storage.checkpointMountPath
    "' overlaps preflight.mountPath ('"
    .Values.preflight.mountPath
    "'); mount paths must be disjoint"
    " [mounts-disjoint]") }}
{{- end }}
{{- end }}
{{- define "verl-grpo.rule.mounts-disjoint.8" }}
{{- if
    (or
      (eq .Values.storage.checkpointMountPath "/usr/local/nvidia")
      (hasPrefix (print "/usr/local/nvidia" "/") .Values.storage.checkpointMountPath)
      (hasPrefix (print .Values.storage.checkpointMountPath "/") "/usr/local/nvidia")) }}
{{ (print
    "storage.checkpointMountPath: "
    "'"
    .Values.storage.checkpointMountPath
    "' overlaps the NVIDIA driver ('"
    "/usr/local/nvidia"
    "'); mount paths must be disjoint"
    " [mounts-disjoint]") }}
{{- end }}
{{- end }}
{{- define "verl-grpo.rule.mounts-disjoint.9" }}
{{- if
    (or
      (eq .Values.storage.checkpointMountPath "/usr/local/gib")
      (hasPrefix (print "/usr/local/gib" "/") .Values.storage.checkpointMountPath)
      (hasPrefix (print .Values.storage.checkpointMountPath "/") "/usr/local/gib")) }}
{{ (print
    "storage.checkpointMountPath: "
    "'"
    .Values.storage.checkpointMountPath
    "' overlaps the gIB plugin ('"
    "/usr/local/gib"
    "'); mount paths must be disjoint"
    " [mounts-disjoint]") }}
{{- end }}
{{- end }}
{{- define "verl-grpo.rule.mounts-disjoint.10" }}
{{- if
    (or
      (eq .Values.storage.checkpointMountPath "/tmp")
      (hasPrefix (print "/tmp" "/") .Values.storage.checkpointMountPath)
      (hasPrefix (print .Values.storage.checkpointMountPath "/") "/tmp")) }}
{{ (print
    "storage.checkpointMountPath: "
    "'"
    .Values.storage.checkpointMountPath
    "' overlaps /tmp ('"
    "/tmp"
    "'); mount paths must be disjoint"
    " [mounts-disjoint]") }}
{{- end }}
{{- end }}
{{- define "verl-grpo.rule.mounts-disjoint.11" }}
{{- if
    (or
      (eq .Values.preflight.mountPath .Values.storage.mountPath)
      (hasPrefix (print .Values.storage.mountPath "/") .Values.preflight.mountPath)
      (hasPrefix (print .Values.preflight.mountPath "/") .Values.storage.mountPath)) }}
{{ (print
    "preflight.mountPath: "
    "'"
    .Values.preflight.mountPath
    "' overlaps storage.mountPath ('"
    .Values.storage.mountPath
    "'); mount paths must be disjoint"
    " [mounts-disjoint]") }}
{{- end }}
{{- end }}
{{- define "verl-grpo.rule.mounts-disjoint.12" }}
{{- if
    (or
      (eq .Values.preflight.mountPath .Values.storage.checkpointMountPath)
      (hasPrefix (print .Values.storage.checkpointMountPath "/") .Values.preflight.mountPath)
      (hasPrefix (print .Values.preflight.mountPath "/") .Values.storage.checkpointMountPath)) }}
{{ (print
    "preflight.mountPath: "
    "'"
    .Values.preflight.mountPath
    "' overlaps storage.checkpointMountPath ('"
    .Values.storage.checkpointMountPath
    "'); mount paths must be disjoint"
    " [mounts-disjoint]") }}
{{- end }}
{{- end }}
{{- define "verl-grpo.rule.mounts-disjoint.13" }}
{{- if
    (or
      (eq .Values.preflight.mountPath "/usr/local/nvidia")
      (hasPrefix (print "/usr/local/nvidia" "/") .Values.preflight.mountPath)
      (hasPrefix (print .Values.preflight.mountPath "/") "/usr/local/nvidia")) }}
{{ (print
    "preflight.mountPath: "
    "'"
    .Values.preflight.mountPath
    "' overlaps the NVIDIA driver ('"
    "/usr/local/nvidia"
    "'); mount paths must be disjoint"
    " [mounts-disjoint]") }}
{{- end }}
{{- end }}
{{- define "verl-grpo.rule.mounts-disjoint.14" }}
{{- if
    (or
      (eq .Values.preflight.mountPath "/usr/local/gib")
      (hasPrefix (print "/usr/local/gib" "/") .Values.preflight.mountPath)
      (hasPrefix (print .Values.preflight.mountPath "/") "/usr/local/gib")) }}
{{ (print
    "preflight.mountPath: "
    "'"
    .Values.preflight.mountPath
    "' overlaps the gIB plugin ('"
    "/usr/local/gib"
    "'); mount paths must be disjoint"
    " [mounts-disjoint]") }}
{{- end }}
{{- end }}
{{- define "verl-grpo.rule.mounts-disjoint.15" }}
{{- if
    (or
      (eq .Values.preflight.mountPath "/tmp")
      (hasPrefix (print "/tmp" "/") .Values.preflight.mountPath)
      (hasPrefix (print .Values.preflight.mountPath "/") "/tmp")) }}
{{ (print "preflight.mountPath: " "'" .Values.preflight.mountPath "' overlaps /tmp ('" "/tmp" "'); mount paths must be disjoint" " [mounts-disjoint]") }}
{{- end }}
{{- end }}
{{- define "verl-grpo.rule.bucket-folders-disjoint" }}
{{- if
    (or
      (eq .Values.storage.dataDir .Values.storage.modelDir)
      (hasPrefix (print .Values.storage.modelDir "/") .Values.storage.dataDir)
      (hasPrefix (print .Values.storage.dataDir "/") .Values.storage.modelDir)) }}
{{ (print
    "storage.dataDir: "
    "'"
    .Values.storage.dataDir
    "' overlaps storage.modelDir ('"
    .Values.storage.modelDir
    "'); bucket folders must be disjoint"
    " [bucket-folders-disjoint]") }}
{{- end }}
{{- end }}
{{- define "verl-grpo.rule.bucket-folders-disjoint.2" }}
{{- if
    (or
      (eq .Values.storage.verlDir .Values.storage.modelDir)
      (hasPrefix (print .Values.storage.modelDir "/") .Values.storage.verlDir)
      (hasPrefix (print .Values.storage.verlDir "/") .Values.storage.modelDir)) }}
{{ (print
    "storage.verlDir: "
    "'"
    .Values.storage.verlDir
    "' overlaps storage.modelDir ('"
    .Values.storage.modelDir
    "'); bucket folders must be disjoint"
    " [bucket-folders-disjoint]") }}
{{- end }}
{{- end }}
{{- define "verl-grpo.rule.bucket-folders-disjoint.3" }}
{{- if
    (or
      (eq .Values.storage.verlDir .Values.storage.dataDir)
      (hasPrefix (print .Values.storage.dataDir "/") .Values.storage.verlDir)
      (hasPrefix (print .Values.storage.verlDir "/") .Values.storage.dataDir)) }}
{{ (print
    "storage.verlDir: "
    "'"
    .Values.storage.verlDir
    "' overlaps storage.dataDir ('"
    .Values.storage.dataDir
    "'); bucket folders must be disjoint"
    " [bucket-folders-disjoint]") }}
{{- end }}
{{- end }}
{{- define "verl-grpo.rule.bucket-folders-disjoint.4" }}
{{- if
    (or
      (eq .Values.storage.checkpointDir .Values.storage.modelDir)
      (hasPrefix (print .Values.storage.modelDir "/") .Values.storage.checkpointDir)
      (hasPrefix (print .Values.storage.checkpointDir "/") .Values.storage.modelDir)) }}
{{ (print
    "storage.checkpointDir: "
    "'"
    .Values.storage.checkpointDir
    "' overlaps storage.modelDir ('"
    .Values.storage.modelDir
    "'); bucket folders must be disjoint"
    " [bucket-folders-disjoint]") }}
{{- end }}
{{- end }}
{{- define "verl-grpo.rule.bucket-folders-disjoint.5" }}
{{- if
    (or
      (eq .Values.storage.checkpointDir .Values.storage.dataDir)
      (hasPrefix (print .Values.storage.dataDir "/") .Values.storage.checkpointDir)
      (hasPrefix (print .Values.storage.checkpointDir "/") .Values.storage.dataDir)) }}
{{ (print
    "storage.checkpointDir: "
    "'"
    .Values.storage.checkpointDir
    "' overlaps storage.dataDir ('"
    .Values.storage.dataDir
    "'); bucket folders must be disjoint"
    " [bucket-folders-disjoint]") }}
{{- end }}
{{- end }}
{{- define "verl-grpo.rule.bucket-folders-disjoint.6" }}
{{- if
    (or
      (eq .Values.storage.checkpointDir .Values.storage.verlDir)
      (hasPrefix (print .Values.storage.verlDir "/") .Values.storage.checkpointDir)
      (hasPrefix (print .Values.storage.checkpointDir "/") .Values.storage.verlDir)) }}
{{ (print
    "storage.checkpointDir: "
    "'"
    .Values.storage.checkpointDir
    "' overlaps storage.verlDir ('"
    .Values.storage.verlDir
    "'); bucket folders must be disjoint"
    " [bucket-folders-disjoint]") }}
{{- end }}
{{- end }}
{{- define "verl-grpo.rule.worker-fits-node" }}
{{- range $name, $group := .Values.workerGroups }}
{{- if
    (gt
      (float64
        (addf
          (include
            "verl-grpo.quantity"
            ($.Values.worker.cpu
              | default
              (index
                (include "verl-grpo.facts" (list (($group.machine | default "") | default $.Values.gpu.type) $.Values.cluster.mode) | fromJson)
                "workerCpu"))
            | float64)
          (addf
            4.0
            ((include
                "verl-grpo.quantity"
                ($.Values.storage.sidecar.cpuLimit | default (index (dict "standard" "0" "autopilot" "2") $.Values.cluster.mode))
                | float64)
              | default
              0.25)
            0.05
            0.1)))
      (float64 (index (include "verl-grpo.machine" (($group.machine | default "") | default $.Values.gpu.type) | fromJson) "allocatableCpu"))) }}
{{ (print
    "worker.cpu: "
    "'"
    ($.Values.worker.cpu
      | default
      (index (include "verl-grpo.facts" (list (($group.machine | default "") | default $.Values.gpu.type) $.Values.cluster.mode) | fromJson) "workerCpu"))
    "' plus the sidecars (GCS FUSE, log shipper) and GKE's DaemonSets ("
    (printf
      "%.2f"
      (float64
        (addf
          4.0
          ((include
              "verl-grpo.quantity"
              ($.Values.storage.sidecar.cpuLimit | default (index (dict "standard" "0" "autopilot" "2") $.Values.cluster.mode))
              | float64)
            | default
            0.25)
          0.05
          0.1)))
    " CPUs) exceeds what "
    (index (include "verl-grpo.machine" (($group.machine | default "") | default $.Values.gpu.type) | fromJson) "machineType")
    " can allocate ("
    (printf "%.2f" (float64 (index (include "verl-grpo.machine" (($group.machine | default "") | default $.Values.gpu.type) | fromJson) "allocatableCpu")))
    " CPUs); at most "
    (printf
      "%.2f"
      (float64
        (subf
          (index (include "verl-grpo.machine" (($group.machine | default "") | default $.Values.gpu.type) | fromJson) "allocatableCpu")
          (addf
            4.0
            ((include
                "verl-grpo.quantity"
                ($.Values.storage.sidecar.cpuLimit | default (index (dict "standard" "0" "autopilot" "2") $.Values.cluster.mode))
                | float64)
              | default
              0.25)
            0.05
            0.1))))
    " CPUs"
    " [worker-fits-node]") }}
{{- end }}
{{- end }}
{{- end }}
{{- define "verl-grpo.rule.worker-fits-node.2" }}
{{- range $name, $group := .Values.workerGroups }}
{{- if
    (gt
      (float64
        (addf
          (include
            "verl-grpo.quantity"
            ($.Values.worker.memory
              | default
              (index
                (include "verl-grpo.facts" (list (($group.machine | default "") | default $.Values.gpu.type) $.Values.cluster.mode) | fromJson)
                "workerMemory"))
            | float64)
          (addf
            17179869184.0
            ((include
                "verl-grpo.quantity"
                ($.Values.storage.sidecar.memoryLimit | default (index (dict "standard" "0" "autopilot" "14Gi") $.Values.cluster.mode))
                | float64)
              | default
              268435456.0)
            262144000.0
            268435456.0)))
      (float64 (index (include "verl-grpo.machine" (($group.machine | default "") | default $.Values.gpu.type) | fromJson) "allocatableMemory"))) }}
{{ (print
    "worker.memory: "
    "'"
    ($.Values.worker.memory
      | default
      (index (include "verl-grpo.facts" (list (($group.machine | default "") | default $.Values.gpu.type) $.Values.cluster.mode) | fromJson) "workerMemory"))
    "' plus the sidecars (GCS FUSE, log shipper) and GKE's DaemonSets ("
    (printf
      "%.2f"
      (float64
        (mulf
          (addf
            17179869184.0
            ((include
                "verl-grpo.quantity"
                ($.Values.storage.sidecar.memoryLimit | default (index (dict "standard" "0" "autopilot" "14Gi") $.Values.cluster.mode))
                | float64)
              | default
              268435456.0)
            262144000.0
            268435456.0)
          9.313225746154785e-10)))
    "Gi) exceeds what "
    (index (include "verl-grpo.machine" (($group.machine | default "") | default $.Values.gpu.type) | fromJson) "machineType")
    " can allocate ("
    (printf
      "%.2f"
      (float64
        (mulf
          (index (include "verl-grpo.machine" (($group.machine | default "") | default $.Values.gpu.type) | fromJson) "allocatableMemory")
          9.313225746154785e-10)))
    "Gi); at most "
    (printf
      "%.2f"
      (float64
        (mulf
          (subf
            (index (include "verl-grpo.machine" (($group.machine | default "") | default $.Values.gpu.type) | fromJson) "allocatableMemory")
            (addf
              17179869184.0
              ((include
                  "verl-grpo.quantity"
                  ($.Values.storage.sidecar.memoryLimit | default (index (dict "standard" "0" "autopilot" "14Gi") $.Values.cluster.mode))
                  | float64)
                | default
                268435456.0)
              262144000.0
              268435456.0))
          9.313225746154785e-10)))
    "Gi"
    " [worker-fits-node]") }}
{{- end }}
{{- end }}
{{- end }}
{{- define "verl-grpo.rule.worker-fits-node.3" }}
{{- range $name, $group := .Values.workerGroups }}
{{- if
    (gt
      (float64
        (addf
          (include
            "verl-grpo.quantity"
            ($.Values.worker.ephemeralStorage
              | default
              (index
                (include "verl-grpo.facts" (list (($group.machine | default "") | default $.Values.gpu.type) $.Values.cluster.mode) | fromJson)
                "workerEphemeralStorage"))
            | float64)
          (addf
            21474836480.0
            (((include "verl-grpo.quantity" ($.Values.storage.sidecar.ephemeralStorageLimit | default "0") | float64)
                | default
                (addf (include "verl-grpo.quantity" $.Values.storage.fileCacheCapacity | float64) 5368709120.0))
              | default
              5368709120.0)
            10485760.0
            0.0)))
      (float64 (index (include "verl-grpo.machine" (($group.machine | default "") | default $.Values.gpu.type) | fromJson) "allocatableEphemeralStorage"))) }}
{{ (print
    "worker.ephemeralStorage: "
    "'"
    ($.Values.worker.ephemeralStorage
      | default
      (index
        (include "verl-grpo.facts" (list (($group.machine | default "") | default $.Values.gpu.type) $.Values.cluster.mode) | fromJson)
        "workerEphemeralStorage"))
    "' plus the sidecars (GCS FUSE, log shipper) and GKE's DaemonSets ("
    (printf
      "%.2f"
      (float64
        (mulf
          (addf
            21474836480.0
            (((include "verl-grpo.quantity" ($.Values.storage.sidecar.ephemeralStorageLimit | default "0") | float64)
                | default
                (addf (include "verl-grpo.quantity" $.Values.storage.fileCacheCapacity | float64) 5368709120.0))
              | default
              5368709120.0)
            10485760.0
            0.0)
          9.313225746154785e-10)))
    "Gi) exceeds what "
    (index (include "verl-grpo.machine" (($group.machine | default "") | default $.Values.gpu.type) | fromJson) "machineType")
    " can allocate ("
    (printf
      "%.2f"
      (float64
        (mulf
          (index (include "verl-grpo.machine" (($group.machine | default "") | default $.Values.gpu.type) | fromJson) "allocatableEphemeralStorage")
          9.313225746154785e-10)))
    "Gi); at most "
    (printf
      "%.2f"
      (float64
        (mulf
          (subf
            (index (include "verl-grpo.machine" (($group.machine | default "") | default $.Values.gpu.type) | fromJson) "allocatableEphemeralStorage")
            (addf
              21474836480.0
              (((include "verl-grpo.quantity" ($.Values.storage.sidecar.ephemeralStorageLimit | default "0") | float64)
                  | default
                  (addf (include "verl-grpo.quantity" $.Values.storage.fileCacheCapacity | float64) 5368709120.0))
                | default
                5368709120.0)
              10485760.0
              0.0))
          9.313225746154785e-10)))
    "Gi"
    " [worker-fits-node]") }}
{{- end }}
{{- end }}
{{- end }}
{{- define "verl-grpo.rule.sidecar-holds-file-cache" }}
{{- if
    (and
      (gt (float64 (include "verl-grpo.quantity" (.Values.storage.sidecar.ephemeralStorageLimit | default "0") | float64)) (float64 0))
      (not
        (gt
          (float64 (include "verl-grpo.quantity" (.Values.storage.sidecar.ephemeralStorageLimit | default "0") | float64))
          (float64 (include "verl-grpo.quantity" .Values.storage.fileCacheCapacity | float64))))) }}
{{ (print
    "storage.sidecar.ephemeralStorageLimit: "
    "'"
    .Values.storage.sidecar.ephemeralStorageLimit
    "' must be larger than storage.fileCacheCapacity '"
    .Values.storage.fileCacheCapacity
    "': the file cache lives in the sidecar's volume (gcs-fuse-csi-driver "
    "docs/troubleshooting.md)"
    " [sidecar-holds-file-cache]") }}
{{- end }}
{{- end }}
{{- define "verl-grpo.rule.worker-cpus-for-verl" }}
{{- range $name, $group := .Values.workerGroups }}
{{- if
    (gt
      (float64
        (mulf
          (int (index (include "verl-grpo.verlRelease" $.Values.training.verlVersion | fromJson) "rayCpusPerGpu"))
          (int (index (include "verl-grpo.machine" $.Values.gpu.type | fromJson) "gpusPerNode"))))
      (float64
        (include
          "verl-grpo.quantity"
          ($.Values.worker.cpu
            | default
            (index
              (include "verl-grpo.facts" (list (($group.machine | default "") | default $.Values.gpu.type) $.Values.cluster.mode) | fromJson)
              "workerCpu"))
          | float64))) }}
{{ (print
    "worker.cpu: "
    "'"
    ($.Values.worker.cpu
      | default
      (index (include "verl-grpo.facts" (list (($group.machine | default "") | default $.Values.gpu.type) $.Values.cluster.mode) | fromJson) "workerCpu"))
    "' is below "
    (mul
      (int (index (include "verl-grpo.verlRelease" $.Values.training.verlVersion | fromJson) "rayCpusPerGpu"))
      (int (index (include "verl-grpo.machine" $.Values.gpu.type | fromJson) "gpusPerNode")))
    ": verl "
    $.Values.training.verlVersion
    " places "
    (int (index (include "verl-grpo.verlRelease" $.Values.training.verlVersion | fromJson) "rayCpusPerGpu"))
    " CPUs per GPU bundle and waits forever without them"
    " [worker-cpus-for-verl]") }}
{{- end }}
{{- end }}
{{- end }}
{{- define "verl-grpo.rule.verl-image-for-version" }}
{{- if
    (and
      (eq .Values.image.repository "verlai/verl")
      (eq .Values.training.rolloutName "vllm")
      (ne .Values.image.tag (index (include "verl-grpo.verlRelease" .Values.training.verlVersion | fromJson) "imageTag"))) }}
{{ (print
    "image.tag: "
    "'"
    .Values.image.tag
    "' is not the vllm image of training.verlVersion "
    .Values.training.verlVersion
    ", which runs in verlai/verl:"
    (index (include "verl-grpo.verlRelease" .Values.training.verlVersion | fromJson) "imageTag")
    " (verl-grpo init --verl-version writes both)"
    " [verl-image-for-version]") }}
{{- end }}
{{- end }}
{{- define "verl-grpo.rule.verl-image-for-version.2" }}
{{- if
    (and
      (eq .Values.image.repository "verlai/verl")
      (eq .Values.training.rolloutName "sglang")
      (ne .Values.image.tag (index (include "verl-grpo.verlRelease" .Values.training.verlVersion | fromJson) "sglangImageTag"))) }}
{{ (print
    "image.tag: "
    "'"
    .Values.image.tag
    "' is not the sglang image of training.verlVersion "
    .Values.training.verlVersion
    ", which runs in verlai/verl:"
    (index (include "verl-grpo.verlRelease" .Values.training.verlVersion | fromJson) "sglangImageTag")
    " (verl-grpo init --verl-version writes both)"
    " [verl-image-for-version]") }}
{{- end }}
{{- end }}
{{- define "verl-grpo.rule.verl-image-for-version.3" }}
{{- if
    (and
      (and
        (eq .Values.image.repository "verlai/verl")
        (eq .Values.image.tag (index (include "verl-grpo.verlRelease" .Values.training.verlVersion | fromJson) "imageTag")))
      (ne (index (include "verl-grpo.verlRelease" .Values.training.verlVersion | fromJson) "imageRay") "")
      (ne .Values.ray.version (index (include "verl-grpo.verlRelease" .Values.training.verlVersion | fromJson) "imageRay"))) }}
{{ (print
    "ray.version: "
    "'"
    .Values.ray.version
    "' is not the Ray of verlai/verl:"
    .Values.image.tag
    ", which carries "
    (index (include "verl-grpo.verlRelease" .Values.training.verlVersion | fromJson) "imageRay")
    " (the pre-flight would stop the run on it)"
    " [verl-image-for-version]") }}
{{- end }}
{{- end }}
{{- define "verl-grpo.rule.autopilot-sidecar-limited" }}
{{- if
    (and
      (eq .Values.cluster.mode "autopilot")
      (eq
        (float64
          (include
            "verl-grpo.quantity"
            (.Values.storage.sidecar.cpuLimit | default (index (dict "standard" "0" "autopilot" "2") .Values.cluster.mode))
            | float64))
        (float64 0))) }}
{{ (print
    "storage.sidecar.cpuLimit: "
    "'"
    (.Values.storage.sidecar.cpuLimit | default "")
    "' (unlimited) is not allowed on Autopilot; give a real limit"
    " [autopilot-sidecar-limited]") }}
{{- end }}
{{- end }}
{{- define "verl-grpo.rule.autopilot-sidecar-limited.2" }}
{{- if
    (and
      (eq .Values.cluster.mode "autopilot")
      (gt
        (float64
          (include
            "verl-grpo.quantity"
            (.Values.storage.sidecar.cpuLimit | default (index (dict "standard" "0" "autopilot" "2") .Values.cluster.mode))
            | float64))
        (float64 (include "verl-grpo.quantity" "2" | float64)))) }}
{{ (print
    "storage.sidecar.cpuLimit: "
    "'"
    (.Values.storage.sidecar.cpuLimit | default "")
    "' exceeds what Autopilot gives a GCS FUSE sidecar on GPU nodes (2; "
    "gcs-fuse-csi-driver docs/troubleshooting.md); the pod would never "
    "schedule"
    " [autopilot-sidecar-limited]") }}
{{- end }}
{{- end }}
{{- define "verl-grpo.rule.autopilot-sidecar-limited.3" }}
{{- if
    (and
      (eq .Values.cluster.mode "autopilot")
      (eq
        (float64
          (include
            "verl-grpo.quantity"
            (.Values.storage.sidecar.memoryLimit | default (index (dict "standard" "0" "autopilot" "14Gi") .Values.cluster.mode))
            | float64))
        (float64 0))) }}
{{ (print
    "storage.sidecar.memoryLimit: "
    "'"
    (.Values.storage.sidecar.memoryLimit | default "")
    "' (unlimited) is not allowed on Autopilot; give a real limit"
    " [autopilot-sidecar-limited]") }}
{{- end }}
{{- end }}
{{- define "verl-grpo.rule.autopilot-sidecar-limited.4" }}
{{- if
    (and
      (eq .Values.cluster.mode "autopilot")
      (gt
        (float64
          (include
            "verl-grpo.quantity"
            (.Values.storage.sidecar.memoryLimit | default (index (dict "standard" "0" "autopilot" "14Gi") .Values.cluster.mode))
            | float64))
        (float64 (include "verl-grpo.quantity" "14Gi" | float64)))) }}
{{ (print
    "storage.sidecar.memoryLimit: "
    "'"
    (.Values.storage.sidecar.memoryLimit | default "")
    "' exceeds what Autopilot gives a GCS FUSE sidecar on GPU nodes (14Gi; "
    "gcs-fuse-csi-driver docs/troubleshooting.md); the pod would never "
    "schedule"
    " [autopilot-sidecar-limited]") }}
{{- end }}
{{- end }}
{{- define "verl-grpo.rule.autopilot-sidecar-limited.5" }}
{{- if
    (and
      (eq .Values.cluster.mode "autopilot")
      (eq
        (float64
          (include
            "verl-grpo.quantity"
            (.Values.storage.sidecar.ephemeralStorageLimit | default (index (dict "standard" "0" "autopilot" "200Gi") .Values.cluster.mode))
            | float64))
        (float64 0))) }}
{{ (print
    "storage.sidecar.ephemeralStorageLimit: "
    "'"
    (.Values.storage.sidecar.ephemeralStorageLimit | default "")
    "' (unlimited) is not allowed on Autopilot; give a real limit"
    " [autopilot-sidecar-limited]") }}
{{- end }}
{{- end }}
{{- define "verl-grpo.rule.verl-batch-divisible" }}
{{- if
    (and
      (not
        (regexMatch
          (print
            "(?m)^[+~]*(data\\.train_batch_size|actor_rollout_ref\\.rollout\\.n|trainer\\"
            ".(n_gpus_per_node|nnodes)|actor_rollout_ref\\.actor\\.(use_dynamic_bsz|ppo"
            "_mini_batch_size|ppo_micro_batch_size(_per_gpu)?|ulysses_sequence_parall"
            "el_size))=")
          (join "\n" .Values.training.extraArgs)))
      (ne
        (mod
          (int (mul .Values.training.trainBatchSize .Values.training.rolloutN))
          (int (mul (include "verl-grpo.workerCount" . | atoi) (int (index (include "verl-grpo.machine" .Values.gpu.type | fromJson) "gpusPerNode")))))
        0)) }}
{{ (print
    "training.trainBatchSize: "
    "trainBatchSize x rolloutN = "
    (mul .Values.training.trainBatchSize .Values.training.rolloutN)
    " is not divisible by the "
    (mul (include "verl-grpo.workerCount" . | atoi) (int (index (include "verl-grpo.machine" .Values.gpu.type | fromJson) "gpusPerNode")))
    " GPUs (verl refuses it at start-up)"
    " [verl-batch-divisible]") }}
{{- end }}
{{- end }}
{{- define "verl-grpo.rule.batch-within-dataset" }}
{{- if
    (and
      (not
        (regexMatch
          (print
            "(?m)^[+~]*(data\\.train_batch_size|actor_rollout_ref\\.rollout\\.n|trainer\\"
            ".(n_gpus_per_node|nnodes)|actor_rollout_ref\\.actor\\.(use_dynamic_bsz|ppo"
            "_mini_batch_size|ppo_micro_batch_size(_per_gpu)?|ulysses_sequence_parall"
            "el_size))=")
          (join "\n" .Values.training.extraArgs)))
      (and .Values.dataPrep.enabled (gt (int .Values.training.trainBatchSize) (int 7473)))) }}
{{ (print
    "training.trainBatchSize: "
    .Values.training.trainBatchSize
    " exceeds the 7473 GSM8K training rows the data-prep Job writes: verl's "
    "dataloader drops the partial batch, so the run would train 0 steps"
    " [batch-within-dataset]") }}
{{- end }}
{{- end }}
{{- define "verl-grpo.rule.verl-mini-within-train" }}
{{- if
    (and
      (not
        (regexMatch
          (print
            "(?m)^[+~]*(data\\.train_batch_size|actor_rollout_ref\\.rollout\\.n|trainer\\"
            ".(n_gpus_per_node|nnodes)|actor_rollout_ref\\.actor\\.(use_dynamic_bsz|ppo"
            "_mini_batch_size|ppo_micro_batch_size(_per_gpu)?|ulysses_sequence_parall"
            "el_size))=")
          (join "\n" .Values.training.extraArgs)))
      (gt (int .Values.training.ppoMiniBatchSize) (int .Values.training.trainBatchSize))) }}
{{ (print
    "training.ppoMiniBatchSize: "
    .Values.training.ppoMiniBatchSize
    " exceeds trainBatchSize "
    .Values.training.trainBatchSize
    " (verl refuses it at start-up)"
    " [verl-mini-within-train]") }}
{{- end }}
{{- end }}
{{- define "verl-grpo.rule.verl-mini-batch-per-gpu" }}
{{- if
    (and
      (not
        (regexMatch
          (print
            "(?m)^[+~]*(data\\.train_batch_size|actor_rollout_ref\\.rollout\\.n|trainer\\"
            ".(n_gpus_per_node|nnodes)|actor_rollout_ref\\.actor\\.(use_dynamic_bsz|ppo"
            "_mini_batch_size|ppo_micro_batch_size(_per_gpu)?|ulysses_sequence_parall"
            "el_size))=")
          (join "\n" .Values.training.extraArgs)))
      (and
        (not (gt (int .Values.training.ppoMiniBatchSize) (int .Values.training.trainBatchSize)))
        (eq
          (div
            (mul .Values.training.ppoMiniBatchSize .Values.training.rolloutN)
            (mul (include "verl-grpo.workerCount" . | atoi) (int (index (include "verl-grpo.machine" .Values.gpu.type | fromJson) "gpusPerNode"))))
          0))) }}
{{ (print
    "training.ppoMiniBatchSize: "
    "ppoMiniBatchSize x rolloutN / GPUs is 0: too few prompts per GPU (verl "
    "fails at worker init)"
    " [verl-mini-batch-per-gpu]") }}
{{- end }}
{{- end }}
{{- define "verl-grpo.rule.verl-micro-divides-mini" }}
{{- if
    (and
      (not
        (regexMatch
          (print
            "(?m)^[+~]*(data\\.train_batch_size|actor_rollout_ref\\.rollout\\.n|trainer\\"
            ".(n_gpus_per_node|nnodes)|actor_rollout_ref\\.actor\\.(use_dynamic_bsz|ppo"
            "_mini_batch_size|ppo_micro_batch_size(_per_gpu)?|ulysses_sequence_parall"
            "el_size))=")
          (join "\n" .Values.training.extraArgs)))
      (and
        (not (gt (int .Values.training.ppoMiniBatchSize) (int .Values.training.trainBatchSize)))
        (gt
          (int
            (div
              (mul .Values.training.ppoMiniBatchSize .Values.training.rolloutN)
              (mul (include "verl-grpo.workerCount" . | atoi) (int (index (include "verl-grpo.machine" .Values.gpu.type | fromJson) "gpusPerNode")))))
          (int 0))
        (ne
          (mod
            (int
              (div
                (mul .Values.training.ppoMiniBatchSize .Values.training.rolloutN)
                (mul (include "verl-grpo.workerCount" . | atoi) (int (index (include "verl-grpo.machine" .Values.gpu.type | fromJson) "gpusPerNode")))))
            (int .Values.training.ppoMicroBatchSizePerGpu))
          0))) }}
{{ (print
    "training.ppoMicroBatchSizePerGpu: "
    "the mini-batch per GPU ("
    (div
      (mul .Values.training.ppoMiniBatchSize .Values.training.rolloutN)
      (mul (include "verl-grpo.workerCount" . | atoi) (int (index (include "verl-grpo.machine" .Values.gpu.type | fromJson) "gpusPerNode"))))
    ") is not divisible by "
    .Values.training.ppoMicroBatchSizePerGpu
    " (verl fails at worker init, after the GPUs are allocated)"
    " [verl-micro-divides-mini]") }}
{{- end }}
{{- end }}
{{- define "verl-grpo.rule.queue-needs-shutdown" }}
{{- if (and .Values.queue.enabled (eq .Values.run.kind "RayJob") (not .Values.job.shutdownAfterJobFinishes)) }}
{{ (print
    "job.shutdownAfterJobFinishes: "
    "must be true with queue.enabled: Kueue's webhook refuses a queued RayJob "
    "that keeps its cluster"
    " [queue-needs-shutdown]") }}
{{- end }}
{{- end }}
{{- define "verl-grpo.rule.topology-needs-queue" }}
{{- if (and (not .Values.queue.enabled) (ne .Values.queue.topology.mode "none")) }}
{{ (print "queue.topology.mode: " "'" .Values.queue.topology.mode "' needs queue.enabled: Kueue places the workers" " [topology-needs-queue]") }}
{{- end }}
{{- end }}
{{- define "verl-grpo.rule.objects-need-queue" }}
{{- if (and (not .Values.queue.enabled) .Values.queue.createObjects) }}
{{ (print "queue.createObjects: " "needs queue.enabled: Kueue's objects are rendered for a queued run" " [objects-need-queue]") }}
{{- end }}
{{- end }}
{{- define "verl-grpo.rule.queue-quota-fits" }}
{{- if
    (and
      .Values.queue.enabled
      .Values.queue.createObjects
      (gt
        (int (mul (include "verl-grpo.workerCount" . | atoi) (int (index (include "verl-grpo.machine" .Values.gpu.type | fromJson) "gpusPerNode"))))
        (int .Values.queue.gpuQuota))) }}
{{ (print
    "queue.gpuQuota: "
    ""
    .Values.queue.gpuQuota
    " GPUs, but the run needs "
    (mul (include "verl-grpo.workerCount" . | atoi) (int (index (include "verl-grpo.machine" .Values.gpu.type | fromJson) "gpusPerNode")))
    " at once (the groups' replicas x GPUs per node): Kueue would never admit "
    "it"
    " [queue-quota-fits]") }}
{{- end }}
{{- end }}
{{- define "verl-grpo.rule.topology-level-holds-workers" }}
{{- range $name, $group := .Values.workerGroups }}
{{- if
    (and
      $.Values.queue.enabled
      (eq $.Values.queue.topology.mode "required")
      (eq $.Values.queue.topology.level "kubernetes.io/hostname")
      (gt (int ($group.replicas | default "")) (int 1))) }}
{{ (print
    "queue.topology.level: "
    "'kubernetes.io/hostname' names one node, but queue.topology.mode "
    "'required' puts all "
    ($group.replicas | default "")
    " workers of group '"
    $name
    "' under one value of it: Kueue would never admit the run (choose a GCE "
    "block or sub-block)"
    " [topology-level-holds-workers]") }}
{{- end }}
{{- end }}
{{- end }}
{{- define "verl-grpo.rule.queue-without-device-claims" }}
{{- range $name, $group := .Values.workerGroups }}
{{- if
    (and
      $.Values.queue.enabled
      (or
        (eq $.Values.network.rdma "dranet")
        (eq (index (include "verl-grpo.machine" (($group.machine | default "") | default $.Values.gpu.type) | fromJson) "imexWord") "imex"))) }}
{{ (print
    "queue.enabled: "
    "Kueue v0.19 cannot admit group '"
    $name
    "': its pods claim devices through DRA (network.rdma 'dranet': every RDMA "
    "NIC, allocationMode All; A4X: an IMEX channel), which Kueue refuses "
    "unless its own Configuration maps their DeviceClasses; run it without "
    "queue.enabled, or use network.rdma 'multi-network' on A4 and A3 Ultra"
    " [queue-without-device-claims]") }}
{{- end }}
{{- end }}
{{- end }}
{{- define "verl-grpo.rule.topology-needs-reservation" }}
{{- range $name, $group := .Values.workerGroups }}
{{- if
    (and
      $.Values.queue.enabled
      (ne $.Values.queue.topology.mode "none")
      (ne (($group.capacity | default "") | default $.Values.cluster.capacity) "reservation")) }}
{{ (print
    "queue.topology.mode: "
    "'"
    $.Values.queue.topology.mode
    "' places workers by GCE's topology labels, which only reservation nodes "
    "carry, but group '"
    $name
    "' uses capacity '"
    (($group.capacity | default "") | default $.Values.cluster.capacity)
    "': Kueue would find no domain; use a reservation or queue.topology.mode "
    "'none'"
    " [topology-needs-reservation]") }}
{{- end }}
{{- end }}
{{- end }}
{{- define "verl-grpo.rule.queue-objects-flex-start-alone" }}
{{- if
    (and
      .Values.queue.enabled
      .Values.queue.createObjects
      (contains "|flex-start|" (include "verl-grpo.groupCapacities" .))
      (not (eq (include "verl-grpo.oneCapacity" .) "true"))) }}
{{ (print
    "queue.createObjects: "
    "renders one GPU flavor for every group, and GKE's queued provisioning "
    "for all of them when cluster.capacity is flex-start: flex-start groups "
    "cannot be mixed with others (cluster.capacity '"
    .Values.cluster.capacity
    "'); set cluster.capacity flex-start for every group, or give the "
    "platform's ClusterQueue a flavor and admission check of its own for them "
    "(createObjects: false)"
    " [queue-objects-flex-start-alone]") }}
{{- end }}
{{- end }}
{{- define "verl-grpo.rule.flex-start-run-length" }}
{{- if
    (and
      (contains "|flex-start|" (include "verl-grpo.groupCapacities" .))
      (eq .Values.run.kind "RayJob")
      (gt (int .Values.job.activeDeadlineSeconds) (int 604800))) }}
{{ (print
    "job.activeDeadlineSeconds: "
    ""
    .Values.job.activeDeadlineSeconds
    " is longer than a flex-start VM runs (604800 s, 7 days): the nodes go "
    "before the run ends"
    " [flex-start-run-length]") }}
{{- end }}
{{- end }}
{{- define "verl-grpo.rule.gpu-mode-offered" }}
{{- if (not (regexMatch (index (include "verl-grpo.machine" .Values.gpu.type | fromJson) "modesPattern") (join "\n" .Values.cluster.mode))) }}
{{ (print
    "cluster.mode: "
    "'"
    .Values.cluster.mode
    "': gpu.type '"
    .Values.gpu.type
    "' ("
    (index (include "verl-grpo.machine" .Values.gpu.type | fromJson) "machineType")
    ") comes only with "
    (index (include "verl-grpo.machine" .Values.gpu.type | fromJson) "modesListed")
    " [gpu-mode-offered]") }}
{{- end }}
{{- end }}
{{- define "verl-grpo.rule.gpu-capacity-offered" }}
{{- if (not (regexMatch (index (include "verl-grpo.machine" .Values.gpu.type | fromJson) "capacitiesPattern") (join "\n" .Values.cluster.capacity))) }}
{{ (print
    "cluster.capacity: "
    "'"
    .Values.cluster.capacity
    "': gpu.type '"
    .Values.gpu.type
    "' ("
    (index (include "verl-grpo.machine" .Values.gpu.type | fromJson) "machineType")
    ") comes only with "
    (index (include "verl-grpo.machine" .Values.gpu.type | fromJson) "capacitiesListed")
    " [gpu-capacity-offered]") }}
{{- end }}
{{- end }}
{{- define "verl-grpo.rule.group-capacity-offered" }}
{{- range $name, $group := .Values.workerGroups }}
{{- if
    (and
      (or (ne ($group.capacity | default "") "") (ne ($group.machine | default "") ""))
      (not
        (regexMatch
          (index (include "verl-grpo.machine" (($group.machine | default "") | default $.Values.gpu.type) | fromJson) "capacitiesPattern")
          (join "\n" (($group.capacity | default "") | default $.Values.cluster.capacity))))) }}
{{ (print
    "workerGroups.capacity: "
    "'"
    (($group.capacity | default "") | default $.Values.cluster.capacity)
    "': group '"
    $name
    "' runs on "
    (($group.machine | default "") | default $.Values.gpu.type)
    " ("
    (index (include "verl-grpo.machine" (($group.machine | default "") | default $.Values.gpu.type) | fromJson) "machineType")
    "), which comes only with "
    (index (include "verl-grpo.machine" (($group.machine | default "") | default $.Values.gpu.type) | fromJson) "capacitiesListed")
    " [group-capacity-offered]") }}
{{- end }}
{{- end }}
{{- end }}
{{- define "verl-grpo.rule.group-mode-offered" }}
{{- range $name, $group := .Values.workerGroups }}
{{- if
    (and
      (or (ne ($group.capacity | default "") "") (ne ($group.machine | default "") ""))
      (not
        (regexMatch
          (index (include "verl-grpo.machine" (($group.machine | default "") | default $.Values.gpu.type) | fromJson) "modesPattern")
          (join "\n" $.Values.cluster.mode)))) }}
{{ (print
    "workerGroups.machine: "
    "'"
    $.Values.cluster.mode
    "': group '"
    $name
    "' runs on "
    (($group.machine | default "") | default $.Values.gpu.type)
    " ("
    (index (include "verl-grpo.machine" (($group.machine | default "") | default $.Values.gpu.type) | fromJson) "machineType")
    "), which comes only with "
    (index (include "verl-grpo.machine" (($group.machine | default "") | default $.Values.gpu.type) | fromJson) "modesListed")
    " [group-mode-offered]") }}
{{- end }}
{{- end }}
{{- end }}
{{- define "verl-grpo.rule.group-machine-joins-run" }}
{{- range $name, $group := .Values.workerGroups }}
{{- if
    (ne
      (index (include "verl-grpo.machine" (($group.machine | default "") | default $.Values.gpu.type) | fromJson) "runTraits")
      (index (include "verl-grpo.machine" $.Values.gpu.type | fromJson) "runTraits")) }}
{{ (print
    "workerGroups.machine: "
    "group '"
    $name
    "' runs on "
    (($group.machine | default "") | default $.Values.gpu.type)
    " ("
    (index (include "verl-grpo.machine" (($group.machine | default "") | default $.Values.gpu.type) | fromJson) "runTraits")
    "), but every worker joins one verl and NCCL world made for gpu.type '"
    $.Values.gpu.type
    "' ("
    (index (include "verl-grpo.machine" $.Values.gpu.type | fromJson) "runTraits")
    "); use a machine that matches it, or gpu.type"
    " [group-machine-joins-run]") }}
{{- end }}
{{- end }}
{{- end }}
{{- define "verl-grpo.rule.group-machine-reserved" }}
{{- range $name, $group := .Values.workerGroups }}
{{- if
    (and
      (ne (($group.machine | default "") | default $.Values.gpu.type) $.Values.gpu.type)
      (eq (($group.capacity | default "") | default $.Values.cluster.capacity) "reservation")) }}
{{ (print
    "workerGroups.machine: "
    "group '"
    $name
    "' runs on "
    ($group.machine | default "")
    ", but its capacity is reservation '"
    $.Values.cluster.reservation
    "', which holds gpu.type's machine ("
    (index (include "verl-grpo.machine" $.Values.gpu.type | fromJson) "machineType")
    "); give the group capacity of its own (spot, flex-start, on-demand)"
    " [group-machine-reserved]") }}
{{- end }}
{{- end }}
{{- end }}
{{- define "verl-grpo.rule.queue-objects-one-machine" }}
{{- range $name, $group := .Values.workerGroups }}
{{- if (and $.Values.queue.enabled $.Values.queue.createObjects (ne (($group.machine | default "") | default $.Values.gpu.type) $.Values.gpu.type)) }}
{{ (print
    "queue.createObjects: "
    "renders one GPU flavor, for gpu.type '"
    $.Values.gpu.type
    "', but group '"
    $name
    "' runs on "
    ($group.machine | default "")
    ": Kueue would never admit it; give the platform's ClusterQueue a flavor "
    "per group (createObjects: false)"
    " [queue-objects-one-machine]") }}
{{- end }}
{{- end }}
{{- end }}
{{- define "verl-grpo.rule.dranet-on-standard" }}
{{- if (and (eq .Values.network.rdma "dranet") (eq .Values.cluster.mode "autopilot")) }}
{{ (print "network.rdma: " "'dranet' is rendered for Standard clusters (Autopilot needs a custom " "ComputeClass)" " [dranet-on-standard]") }}
{{- end }}
{{- end }}
{{- define "verl-grpo.rule.sub-block-holds-workers" }}
{{- range $name, $group := .Values.workerGroups }}
{{- if
    (and
      (gt
        (int (int (index (include "verl-grpo.machine" (($group.machine | default "") | default $.Values.gpu.type) | fromJson) "subBlockNodesOrZero")))
        (int 0))
      (gt
        (int ($group.replicas | default ""))
        (int (int (index (include "verl-grpo.machine" (($group.machine | default "") | default $.Values.gpu.type) | fromJson) "subBlockNodesOrZero"))))
      (or
        (ne (index (include "verl-grpo.machine" (($group.machine | default "") | default $.Values.gpu.type) | fromJson) "acceleratorTopology") "")
        (and $.Values.queue.enabled (eq $.Values.queue.topology.mode "required") (eq $.Values.queue.topology.level "cloud.google.com/gce-topology-subblock")))) }}
{{ (print
    "workerGroups.replicas: "
    "group '"
    $name
    "' has "
    ($group.replicas | default "")
    " workers, but a sub-block of "
    (index (include "verl-grpo.machine" (($group.machine | default "") | default $.Values.gpu.type) | fromJson) "machineType")
    " holds "
    (int (index (include "verl-grpo.machine" (($group.machine | default "") | default $.Values.gpu.type) | fromJson) "subBlockNodesOrZero"))
    " nodes, and its node pool's placement policy or queue.topology keeps a "
    "group in one"
    " [sub-block-holds-workers]") }}
{{- end }}
{{- end }}
{{- end }}

{{- /* Every rule's messages, each once; fail with all of them. */}}
{{- define "verl-grpo.validateValues" }}
{{- if kindIs "slice" .Values.workerGroups }}
{{- fail (include "verl-grpo.workerGroupsAsMap" .) }}
{{- end }}
{{- $messages := list }}
{{- $messages = concat $messages (splitList "\n" (include "verl-grpo.rule.zone-on-autopilot" .)) }}
{{- $messages = concat $messages (splitList "\n" (include "verl-grpo.rule.reservation-named" .)) }}
{{- $messages = concat $messages (splitList "\n" (include "verl-grpo.rule.reservation-only-reserved" .)) }}
{{- $messages = concat $messages (splitList "\n" (include "verl-grpo.rule.group-replicas-in-bounds" .)) }}
{{- $messages = concat $messages (splitList "\n" (include "verl-grpo.rule.ttl-needs-shutdown" .)) }}
{{- $messages = concat $messages (splitList "\n" (include "verl-grpo.rule.ray-auth-needs-ray" .)) }}
{{- $messages = concat $messages (splitList "\n" (include "verl-grpo.rule.ray-auth-needs-kuberay" .)) }}
{{- $messages = concat $messages (splitList "\n" (include "verl-grpo.rule.sidecar-mode-needs-kuberay" .)) }}
{{- $messages = concat $messages (splitList "\n" (include "verl-grpo.rule.rayjob-name-length" .)) }}
{{- $messages = concat $messages (splitList "\n" (include "verl-grpo.rule.tp-divides-node" .)) }}
{{- $messages = concat $messages (splitList "\n" (include "verl-grpo.rule.bucket-named" .)) }}
{{- $messages = concat $messages (splitList "\n" (include "verl-grpo.rule.image-carries-arch" .)) }}
{{- $messages = concat $messages (splitList "\n" (include "verl-grpo.rule.image-has-rollout" .)) }}
{{- $messages = concat $messages (splitList "\n" (include "verl-grpo.rule.image-tag-pinned" .)) }}
{{- $messages = concat $messages (splitList "\n" (include "verl-grpo.rule.release-name" .)) }}
{{- $messages = concat $messages (splitList "\n" (include "verl-grpo.rule.mounts-disjoint" .)) }}
{{- $messages = concat $messages (splitList "\n" (include "verl-grpo.rule.mounts-disjoint.2" .)) }}
{{- $messages = concat $messages (splitList "\n" (include "verl-grpo.rule.mounts-disjoint.3" .)) }}
{{- $messages = concat $messages (splitList "\n" (include "verl-grpo.rule.mounts-disjoint.4" .)) }}
{{- $messages = concat $messages (splitList "\n" (include "verl-grpo.rule.mounts-disjoint.5" .)) }}
{{- $messages = concat $messages (splitList "\n" (include "verl-grpo.rule.mounts-disjoint.6" .)) }}
{{- $messages = concat $messages (splitList "\n" (include "verl-grpo.rule.mounts-disjoint.7" .)) }}
{{- $messages = concat $messages (splitList "\n" (include "verl-grpo.rule.mounts-disjoint.8" .)) }}
{{- $messages = concat $messages (splitList "\n" (include "verl-grpo.rule.mounts-disjoint.9" .)) }}
{{- $messages = concat $messages (splitList "\n" (include "verl-grpo.rule.mounts-disjoint.10" .)) }}
{{- $messages = concat $messages (splitList "\n" (include "verl-grpo.rule.mounts-disjoint.11" .)) }}
{{- $messages = concat $messages (splitList "\n" (include "verl-grpo.rule.mounts-disjoint.12" .)) }}
{{- $messages = concat $messages (splitList "\n" (include "verl-grpo.rule.mounts-disjoint.13" .)) }}
{{- $messages = concat $messages (splitList "\n" (include "verl-grpo.rule.mounts-disjoint.14" .)) }}
{{- $messages = concat $messages (splitList "\n" (include "verl-grpo.rule.mounts-disjoint.15" .)) }}
{{- $messages = concat $messages (splitList "\n" (include "verl-grpo.rule.bucket-folders-disjoint" .)) }}
{{- $messages = concat $messages (splitList "\n" (include "verl-grpo.rule.bucket-folders-disjoint.2" .)) }}
{{- $messages = concat $messages (splitList "\n" (include "verl-grpo.rule.bucket-folders-disjoint.3" .)) }}
{{- $messages = concat $messages (splitList "\n" (include "verl-grpo.rule.bucket-folders-disjoint.4" .)) }}
{{- $messages = concat $messages (splitList "\n" (include "verl-grpo.rule.bucket-folders-disjoint.5" .)) }}
{{- $messages = concat $messages (splitList "\n" (include "verl-grpo.rule.bucket-folders-disjoint.6" .)) }}
{{- $messages = concat $messages (splitList "\n" (include "verl-grpo.rule.worker-fits-node" .)) }}
{{- $messages = concat $messages (splitList "\n" (include "verl-grpo.rule.worker-fits-node.2" .)) }}
{{- $messages = concat $messages (splitList "\n" (include "verl-grpo.rule.worker-fits-node.3" .)) }}
{{- $messages = concat $messages (splitList "\n" (include "verl-grpo.rule.sidecar-holds-file-cache" .)) }}
{{- $messages = concat $messages (splitList "\n" (include "verl-grpo.rule.worker-cpus-for-verl" .)) }}
{{- $messages = concat $messages (splitList "\n" (include "verl-grpo.rule.verl-image-for-version" .)) }}
{{- $messages = concat $messages (splitList "\n" (include "verl-grpo.rule.verl-image-for-version.2" .)) }}
{{- $messages = concat $messages (splitList "\n" (include "verl-grpo.rule.verl-image-for-version.3" .)) }}
{{- $messages = concat $messages (splitList "\n" (include "verl-grpo.rule.autopilot-sidecar-limited" .)) }}
{{- $messages = concat $messages (splitList "\n" (include "verl-grpo.rule.autopilot-sidecar-limited.2" .)) }}
{{- $messages = concat $messages (splitList "\n" (include "verl-grpo.rule.autopilot-sidecar-limited.3" .)) }}
{{- $messages = concat $messages (splitList "\n" (include "verl-grpo.rule.autopilot-sidecar-limited.4" .)) }}
{{- $messages = concat $messages (splitList "\n" (include "verl-grpo.rule.autopilot-sidecar-limited.5" .)) }}
{{- $messages = concat $messages (splitList "\n" (include "verl-grpo.rule.verl-batch-divisible" .)) }}
{{- $messages = concat $messages (splitList "\n" (include "verl-grpo.rule.batch-within-dataset" .)) }}
{{- $messages = concat $messages (splitList "\n" (include "verl-grpo.rule.verl-mini-within-train" .)) }}
{{- $messages = concat $messages (splitList "\n" (include "verl-grpo.rule.verl-mini-batch-per-gpu" .)) }}
{{- $messages = concat $messages (splitList "\n" (include "verl-grpo.rule.verl-micro-divides-mini" .)) }}
{{- $messages = concat $messages (splitList "\n" (include "verl-grpo.rule.queue-needs-shutdown" .)) }}
{{- $messages = concat $messages (splitList "\n" (include "verl-grpo.rule.topology-needs-queue" .)) }}
{{- $messages = concat $messages (splitList "\n" (include "verl-grpo.rule.objects-need-queue" .)) }}
{{- $messages = concat $messages (splitList "\n" (include "verl-grpo.rule.queue-quota-fits" .)) }}
{{- $messages = concat $messages (splitList "\n" (include "verl-grpo.rule.topology-level-holds-workers" .)) }}
{{- $messages = concat $messages (splitList "\n" (include "verl-grpo.rule.queue-without-device-claims" .)) }}
{{- $messages = concat $messages (splitList "\n" (include "verl-grpo.rule.topology-needs-reservation" .)) }}
{{- $messages = concat $messages (splitList "\n" (include "verl-grpo.rule.queue-objects-flex-start-alone" .)) }}
{{- $messages = concat $messages (splitList "\n" (include "verl-grpo.rule.flex-start-run-length" .)) }}
{{- $messages = concat $messages (splitList "\n" (include "verl-grpo.rule.gpu-mode-offered" .)) }}
{{- $messages = concat $messages (splitList "\n" (include "verl-grpo.rule.gpu-capacity-offered" .)) }}
{{- $messages = concat $messages (splitList "\n" (include "verl-grpo.rule.group-capacity-offered" .)) }}
{{- $messages = concat $messages (splitList "\n" (include "verl-grpo.rule.group-mode-offered" .)) }}
{{- $messages = concat $messages (splitList "\n" (include "verl-grpo.rule.group-machine-joins-run" .)) }}
{{- $messages = concat $messages (splitList "\n" (include "verl-grpo.rule.group-machine-reserved" .)) }}
{{- $messages = concat $messages (splitList "\n" (include "verl-grpo.rule.queue-objects-one-machine" .)) }}
{{- $messages = concat $messages (splitList "\n" (include "verl-grpo.rule.dranet-on-standard" .)) }}
{{- $messages = concat $messages (splitList "\n" (include "verl-grpo.rule.sub-block-holds-workers" .)) }}
{{- $messages = without ($messages | uniq) "" }}
{{- if $messages }}{{ fail (join "\n" $messages) }}{{ end }}
{{- end }}
