{{- /* One worker group: `.group` its fields, `.Values` the values with its capacity and machine. */}}
{{- define "verl-grpo.workerGroup" }}
{{- $root := index . 0 }}{{- $i := index . 1 }}{{- $item := index . 2 }}
{{- with dict "Values" (mergeOverwrite (deepCopy $root.Values) (dict "cluster" (dict "capacity" ($item.capacity | default $root.Values.cluster.capacity)) "gpu" (dict "type" ($item.machine | default $root.Values.gpu.type)))) "Release" $root.Release "group" (dict "name" $item.name "replicas" $item.replicas "minReplicas" ($item.minReplicas | default $item.replicas) "maxReplicas" ($item.maxReplicas | default $item.replicas) "pool" (ternary "gpu-pool" (print "gpu-pool-" $item.name) (eq $i 0)) "pinned" (gt (len $root.Values.workerGroups) 1)) }}
{{- $facts := index (include "verl-grpo.facts" . | fromYaml) .Values.gpu.type .Values.cluster.mode }}
groupName: {{ .group.name | toJson }}
replicas: {{ .group.replicas | toJson }}
minReplicas: {{ .group.minReplicas | toJson }}
maxReplicas: {{ .group.maxReplicas | toJson }}
rayStartParams: {}
scaleStrategy: {}
template:
  metadata:
    labels:
      app.kubernetes.io/name: verl-grpo
      app.kubernetes.io/instance: {{ .Release.Name | toJson }}
    annotations:
      gke-gcsfuse/volumes: 'true'
      gke-gcsfuse/cpu-limit: {{ (.Values.storage.sidecar.cpuLimit | default $facts.sidecarCpuLimit) | toJson }}
      gke-gcsfuse/memory-limit: {{ (.Values.storage.sidecar.memoryLimit | default $facts.sidecarMemoryLimit) | toJson }}
      gke-gcsfuse/ephemeral-storage-limit: {{ (.Values.storage.sidecar.ephemeralStorageLimit | default (printf "%.0fMi" (ceil (divf (addf (include "verl-grpo.quantity" .Values.storage.fileCacheCapacity) 5368709120.0) 1048576.0)))) | toJson }}
      {{- if (eq .Values.network.rdma "multi-network") }}
      networking.gke.io/default-interface: eth0
      {{- end }}
      {{- if (and (eq .Values.gpu.type "a4x") (eq .Values.network.rdma "multi-network")) }}
      networking.gke.io/interfaces: {{ list "[{\"interfaceName\": \"eth0\", \"network\": \"default\"}, {\"interfaceName\": \"eth1\", \"network\": \"" .Values.network.prefix "-gvnic\"}, {\"interfaceName\": \"eth2\", \"network\": \"" .Values.network.prefix "-rdma-0\"}, {\"interfaceName\": \"eth3\", \"network\": \"" .Values.network.prefix "-rdma-1\"}, {\"interfaceName\": \"eth4\", \"network\": \"" .Values.network.prefix "-rdma-2\"}, {\"interfaceName\": \"eth5\", \"network\": \"" .Values.network.prefix "-rdma-3\"}]" | join "" | toJson }}
      {{- else if (and (eq .Values.gpu.type "b200" "h200") (eq .Values.network.rdma "multi-network")) }}
      networking.gke.io/interfaces: {{ list "[{\"interfaceName\": \"eth0\", \"network\": \"default\"}, {\"interfaceName\": \"eth1\", \"network\": \"" .Values.network.prefix "-gvnic\"}, {\"interfaceName\": \"eth2\", \"network\": \"" .Values.network.prefix "-rdma-0\"}, {\"interfaceName\": \"eth3\", \"network\": \"" .Values.network.prefix "-rdma-1\"}, {\"interfaceName\": \"eth4\", \"network\": \"" .Values.network.prefix "-rdma-2\"}, {\"interfaceName\": \"eth5\", \"network\": \"" .Values.network.prefix "-rdma-3\"}, {\"interfaceName\": \"eth6\", \"network\": \"" .Values.network.prefix "-rdma-4\"}, {\"interfaceName\": \"eth7\", \"network\": \"" .Values.network.prefix "-rdma-5\"}, {\"interfaceName\": \"eth8\", \"network\": \"" .Values.network.prefix "-rdma-6\"}, {\"interfaceName\": \"eth9\", \"network\": \"" .Values.network.prefix "-rdma-7\"}]" | join "" | toJson }}
      {{- end }}
      checkov.io/skip1: CKV_K8S_21=the namespace is chosen at install time (helm -n, verl-grpo synth -n)
      checkov.io/skip2: CKV_K8S_23=the verl image runs as root; its CUDA, vLLM and pip caches live in root-owned paths
      checkov.io/skip3: CKV_K8S_40=the verl image runs as root (see CKV_K8S_23)
      checkov.io/skip4: CKV_K8S_22=Ray, vLLM and torch write caches and sockets all over the image filesystem
      checkov.io/skip5: CKV_K8S_8=KubeRay injects its own liveness probe (ray health-check) into Ray pods
      checkov.io/skip6: CKV_K8S_9=KubeRay injects its own readiness probe (ray health-check) into Ray pods
      checkov.io/skip7: CKV_K8S_43=the image is pinned by tag in values (image.tag); mirror it and pin a digest there
      checkov.io/skip8: 'CKV_K8S_15=a 30 GB image: IfNotPresent saves a registry round trip on each restart after preemption'
      checkov.io/skip9: CKV_K8S_37=GPUDirect RDMA (NCCL gIB plugin) keeps the default capabilities; NET_RAW is dropped
      {{- if and (.Values.queue.enabled) (eq .Values.queue.topology.mode "required") }}
      kueue.x-k8s.io/podset-required-topology: {{ .Values.queue.topology.level | toJson }}
      {{- end }}
      {{- if and (.Values.queue.enabled) (eq .Values.queue.topology.mode "preferred") }}
      kueue.x-k8s.io/podset-preferred-topology: {{ .Values.queue.topology.level | toJson }}
      {{- end }}
  spec:
    serviceAccountName: {{ .Values.serviceAccount.name | toJson }}
    automountServiceAccountToken: false
    securityContext:
      seccompProfile:
        type: RuntimeDefault
    nodeSelector:
      cloud.google.com/gke-accelerator: {{ $facts.gkeAccelerator }}
      {{- if (eq .Values.cluster.mode "autopilot") }}
      cloud.google.com/gke-accelerator-count: {{ $facts.gkeAcceleratorCount | quote }}
      {{- end }}
      {{- if (eq .Values.gpu.type "a4x") }}
      kubernetes.io/arch: arm64
      {{- end }}
      {{- if (eq .Values.network.rdma "dranet") }}
      cloud.google.com/gke-networking-dra-driver: 'true'
      {{- end }}
      {{- if (eq .Values.cluster.capacity "spot") }}
      cloud.google.com/gke-spot: 'true'
      {{- end }}
      {{- if (eq .Values.cluster.capacity "flex-start") }}
      cloud.google.com/gke-flex-start: 'true'
      {{- end }}
      {{- if and ((eq .Values.cluster.mode "standard")) (.group.pinned) }}
      cloud.google.com/gke-nodepool: {{ .group.pool | toJson }}
      {{- end }}
      {{- if (and (eq .Values.cluster.mode "autopilot") (eq .Values.cluster.capacity "reservation")) }}
      cloud.google.com/reservation-name: {{ .Values.cluster.reservation | toJson }}
      {{- end }}
      {{- if (and (eq .Values.cluster.mode "autopilot") (eq .Values.cluster.capacity "reservation")) }}
      cloud.google.com/reservation-affinity: specific
      {{- end }}
      {{- if (eq .Values.cluster.mode "autopilot") }}
      topology.kubernetes.io/zone: {{ .Values.cluster.zone | toJson }}
      {{- end }}
    {{- if (and (eq .Values.gpu.type "a4x") (not (and (eq .Values.cluster.capacity "flex-start") .Values.queue.enabled))) }}
    tolerations: {{ (concat .Values.worker.tolerations ("[{\"effect\":\"NoSchedule\",\"key\":\"kubernetes.io/arch\",\"operator\":\"Equal\",\"value\":\"arm64\"}]" | fromJsonArray)) | toJson }}
    {{- else if (and (eq .Values.cluster.capacity "flex-start") .Values.queue.enabled) }}
    tolerations: {{ (concat .Values.worker.tolerations ($facts.tolerations | fromJsonArray)) | toJson }}
    {{- else }}
    tolerations: {{ .Values.worker.tolerations | toJson }}
    {{- end }}
    {{- if (and (eq .Values.gpu.type "a4x") (eq .Values.network.rdma "multi-network")) }}
    resourceClaims:
    - name: imex-channel
      resourceClaimTemplateName: {{ list .Release.Name "-imex-" (list (include "verl-grpo.workerCount" . | atoi) | toJson | sha256sum | trunc 8) "-channel" | join "" | toJson }}
    {{- else if (and (eq .Values.gpu.type "a4x") (eq .Values.network.rdma "dranet")) }}
    resourceClaims:
    - name: rdma
      resourceClaimTemplateName: {{ list .Release.Name "-rdma" | join "" | toJson }}
    - name: imex-channel
      resourceClaimTemplateName: {{ list .Release.Name "-imex-" (list (include "verl-grpo.workerCount" . | atoi) | toJson | sha256sum | trunc 8) "-channel" | join "" | toJson }}
    {{- else if (and (eq .Values.gpu.type "b200" "h200") (eq .Values.network.rdma "dranet")) }}
    resourceClaims:
    - name: rdma
      resourceClaimTemplateName: {{ list .Release.Name "-rdma" | join "" | toJson }}
    {{- end }}
    {{- if .Values.logs.enabled }}
    initContainers:
    - name: log-shipper
      image: {{ list .Values.image.repository ":" .Values.image.tag (ternary "" (print "@" .Values.image.digest) (empty .Values.image.digest)) | join "" | toJson }}
      imagePullPolicy: {{ .Values.image.pullPolicy | toJson }}
      restartPolicy: Always
      command:
      - python3
      - {{ list .Values.preflight.mountPath "/log_shipper.py" | join "" | toJson }}
      - --source=/tmp/ray
      - {{ list "--target=" .Values.storage.checkpointMountPath "/" .Values.training.projectName "/" (.Values.training.experimentName | default .Values.run.name) "/logs/$(POD_NAME)" | join "" | toJson }}
      - {{ list "--interval=" (.Values.logs.intervalSeconds | toJson) | join "" | toJson }}
      - {{ list "--checkpoint-mount=" .Values.storage.checkpointMountPath | join "" | toJson }}
      - --cluster=$(RAY_CLUSTER)
      - --pod=$(POD_NAME)
      env:
      - name: POD_NAME
        valueFrom:
          fieldRef:
            fieldPath: metadata.name
      - name: RAY_CLUSTER
        valueFrom:
          fieldRef:
            fieldPath: metadata.labels['ray.io/cluster']
      resources:
        requests:
          cpu: 100m
          memory: 256Mi
        limits:
          cpu: 100m
          memory: 256Mi
      securityContext:
        allowPrivilegeEscalation: false
        capabilities:
          drop:
          - ALL
      volumeMounts:
      - name: ray-tmp
        mountPath: /tmp
        readOnly: true
      - name: checkpoints
        mountPath: {{ .Values.storage.checkpointMountPath | toJson }}
      - name: preflight
        mountPath: {{ .Values.preflight.mountPath | toJson }}
        readOnly: true
    {{- end }}
    containers:
    - name: ray-worker
      image: {{ list .Values.image.repository ":" .Values.image.tag (ternary "" (print "@" .Values.image.digest) (empty .Values.image.digest)) | join "" | toJson }}
      imagePullPolicy: {{ .Values.image.pullPolicy | toJson }}
      args:
      - 'case "$LD_LIBRARY_PATH" in "") image= ;; *) image=":$LD_LIBRARY_PATH" ;; esac; export LD_LIBRARY_PATH="/usr/local/gib/lib64:/usr/local/nvidia/lib64$image"; source /usr/local/gib/scripts/set_nccl_env.sh || { echo "verl-grpo: /usr/local/gib/scripts/set_nccl_env.sh not found: the gIB RDMA installer has not run on this node"; exit 1; }'
      resources:
        requests:
          cpu: {{ (.Values.worker.cpu | default $facts.workerCpu) | toJson }}
          memory: {{ (.Values.worker.memory | default $facts.workerMemory) | toJson }}
          ephemeral-storage: {{ (.Values.worker.ephemeralStorage | default "10507Gi") | toJson }}
          nvidia.com/gpu: {{ $facts.gpu | quote }}
        limits:
          cpu: {{ (.Values.worker.cpu | default $facts.workerCpu) | toJson }}
          memory: {{ (.Values.worker.memory | default $facts.workerMemory) | toJson }}
          ephemeral-storage: {{ (.Values.worker.ephemeralStorage | default "10507Gi") | toJson }}
          nvidia.com/gpu: {{ $facts.gpu | quote }}
        {{- if (and (eq .Values.gpu.type "a4x") (eq .Values.network.rdma "multi-network")) }}
        claims:
        - name: imex-channel
        {{- else if (and (eq .Values.gpu.type "a4x") (eq .Values.network.rdma "dranet")) }}
        claims:
        - name: rdma
        - name: imex-channel
        {{- else if (and (eq .Values.gpu.type "b200" "h200") (eq .Values.network.rdma "dranet")) }}
        claims:
        - name: rdma
        {{- end }}
      securityContext:
        allowPrivilegeEscalation: false
        capabilities:
          drop:
          - NET_RAW
      volumeMounts:
      - name: nvidia
        mountPath: /usr/local/nvidia
        readOnly: true
      - name: gib
        mountPath: /usr/local/gib
        readOnly: true
      - name: ray-tmp
        mountPath: /tmp
      - name: model
        mountPath: {{ list .Values.storage.mountPath "/" .Values.storage.modelDir | join "" | toJson }}
        readOnly: true
      - name: data
        mountPath: {{ list .Values.storage.mountPath "/" .Values.storage.dataDir | join "" | toJson }}
        readOnly: true
      - name: verl
        mountPath: {{ list .Values.storage.mountPath "/" .Values.storage.verlDir | join "" | toJson }}
        readOnly: true
      - name: checkpoints
        mountPath: {{ .Values.storage.checkpointMountPath | toJson }}
    volumes:
    - name: nvidia
      hostPath:
        path: /home/kubernetes/bin/nvidia
    - name: gib
      hostPath:
        path: /home/kubernetes/bin/gib
    - name: ray-tmp
      emptyDir: {}
    - name: model
      persistentVolumeClaim:
        claimName: {{ list .Release.Name "-model-" (list .Values.storage.bucket .Values.storage.capacity | toJson | sha256sum | trunc 8) | join "" | toJson }}
    - name: data
      persistentVolumeClaim:
        claimName: {{ list .Release.Name "-data-" (list .Values.storage.bucket .Values.storage.capacity | toJson | sha256sum | trunc 8) | join "" | toJson }}
    - name: verl
      persistentVolumeClaim:
        claimName: {{ list .Release.Name "-verl-" (list .Values.storage.bucket .Values.storage.capacity | toJson | sha256sum | trunc 8) | join "" | toJson }}
    - name: checkpoints
      persistentVolumeClaim:
        claimName: {{ list .Release.Name "-checkpoints-" (list .Values.storage.bucket .Values.storage.capacity | toJson | sha256sum | trunc 8) | join "" | toJson }}
    - name: preflight
      {{- if (eq .Values.run.kind "RayJob") }}
      configMap:
        name: {{ list .Release.Name "-preflight" | join "" | toJson }}
      {{- end }}
      {{- if (eq .Values.run.kind "RayCluster") }}
      projected:
        sources:
        - configMap:
            name: {{ list .Release.Name "-preflight" | join "" | toJson }}
        - configMap:
            name: {{ list .Release.Name "-submit" | join "" | toJson }}
      {{- end }}
{{- end }}
{{- end }}
