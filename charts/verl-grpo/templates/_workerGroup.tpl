{{- /* One worker group: `.group` its fields (verl-grpo.workerGroups), else the root's. */}}
{{- define "verl-grpo.workerGroup" }}
{{- $facts := include "verl-grpo.facts" (list .group.machine .Values.cluster.mode) | fromJson }}
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
      gke-gcsfuse/ephemeral-storage-limit: {{ (.Values.storage.sidecar.ephemeralStorageLimit
            | default
            (printf "%.0fMi" (ceil (divf (addf (include "verl-grpo.quantity" .Values.storage.fileCacheCapacity) 5368709120.0) 1048576.0))))
          | toJson }}
      {{- if eq .Values.network.rdma "multi-network" }}
      networking.gke.io/default-interface: eth0
      networking.gke.io/interfaces: {{ (include "verl-grpo.podInterfaces" (list .Values.network.prefix $facts.rdmaNics)) | toJson }}
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
      {{- include "verl-grpo.gpuNodeSelector" . | trimPrefix "\n" | nindent 6 }}
    tolerations: {{ (concat
          .Values.worker.tolerations
          (ternary
            (list (dict "key" "kubernetes.io/arch" "operator" "Equal" "value" $facts.arch "effect" "NoSchedule"))
            (list)
            (not (eq $facts.arch "amd64")))
          (ternary
            (list (dict "key" "cloud.google.com/gke-queued" "operator" "Equal" "value" "true" "effect" "NoSchedule"))
            (list)
            (and (.Values.queue.enabled) (eq .group.capacity "flex-start")))
          | default
          list)
        | toJson }}
    {{- if or (eq .Values.network.rdma "dranet") ($facts.imex) }}
    resourceClaims:
    {{- if eq .Values.network.rdma "dranet" }}
    - name: rdma
      resourceClaimTemplateName: {{ printf "%v-rdma" .Release.Name | toJson }}
    {{- end }}
    {{- if $facts.imex }}
    - name: imex-channel
      resourceClaimTemplateName: {{ printf
          "%v-imex-%v-channel"
          .Release.Name
          (list (include "verl-grpo.workerCount" . | atoi) | toJson | sha256sum | trunc 8)
          | toJson }}
    {{- end }}
    {{- end }}
    {{- if .Values.logs.enabled }}
    initContainers:
    - name: log-shipper
      image: {{ (include "verl-grpo.image" .) | toJson }}
      imagePullPolicy: {{ .Values.image.pullPolicy | toJson }}
      restartPolicy: Always
      command:
      - python3
      - {{ printf "%v/log_shipper.py" .Values.preflight.mountPath | toJson }}
      - --source=/tmp/ray
      - {{ printf
          "--target=%v/%v/%v/logs/$(POD_NAME)"
          .Values.storage.checkpointMountPath
          .Values.training.projectName
          (.Values.training.experimentName | default .Values.run.name)
          | toJson }}
      - {{ printf "--interval=%v" (.Values.logs.intervalSeconds | toJson) | toJson }}
      - {{ printf "--checkpoint-mount=%v" .Values.storage.checkpointMountPath | toJson }}
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
      image: {{ (include "verl-grpo.image" .) | toJson }}
      imagePullPolicy: {{ .Values.image.pullPolicy | toJson }}
      args:
      - 'case "$LD_LIBRARY_PATH" in "") image= ;; *) image=":$LD_LIBRARY_PATH" ;; esac; export LD_LIBRARY_PATH="/usr/local/gib/lib64:/usr/local/nvidia/lib64$image";
        source /usr/local/gib/scripts/set_nccl_env.sh || { echo "verl-grpo: /usr/local/gib/scripts/set_nccl_env.sh not found: the gIB
        RDMA installer has not run on this node"; exit 1; }'
      resources:
        requests:
          cpu: {{ (.Values.worker.cpu | default $facts.workerCpu) | toJson }}
          memory: {{ (.Values.worker.memory | default $facts.workerMemory) | toJson }}
          ephemeral-storage: {{ (.Values.worker.ephemeralStorage | default $facts.workerEphemeralStorage) | toJson }}
          nvidia.com/gpu: {{ ($facts.gpusPerNode | toJson) | toJson }}
        limits:
          cpu: {{ (.Values.worker.cpu | default $facts.workerCpu) | toJson }}
          memory: {{ (.Values.worker.memory | default $facts.workerMemory) | toJson }}
          ephemeral-storage: {{ (.Values.worker.ephemeralStorage | default $facts.workerEphemeralStorage) | toJson }}
          nvidia.com/gpu: {{ ($facts.gpusPerNode | toJson) | toJson }}
        {{- if or (eq .Values.network.rdma "dranet") ($facts.imex) }}
        claims:
        {{- if eq .Values.network.rdma "dranet" }}
        - name: rdma
        {{- end }}
        {{- if $facts.imex }}
        - name: imex-channel
        {{- end }}
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
        mountPath: {{ printf "%v/%v" .Values.storage.mountPath .Values.storage.modelDir | toJson }}
        readOnly: true
      - name: data
        mountPath: {{ printf "%v/%v" .Values.storage.mountPath .Values.storage.dataDir | toJson }}
        readOnly: true
      - name: verl
        mountPath: {{ printf "%v/%v" .Values.storage.mountPath .Values.storage.verlDir | toJson }}
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
        claimName: {{ (include "verl-grpo.claimName" (list . "model")) | toJson }}
    - name: data
      persistentVolumeClaim:
        claimName: {{ (include "verl-grpo.claimName" (list . "data")) | toJson }}
    - name: verl
      persistentVolumeClaim:
        claimName: {{ (include "verl-grpo.claimName" (list . "verl")) | toJson }}
    - name: checkpoints
      persistentVolumeClaim:
        claimName: {{ (include "verl-grpo.claimName" (list . "checkpoints")) | toJson }}
    {{- if eq .Values.run.kind "RayCluster" }}
    - name: preflight
      projected:
        sources:
        - configMap:
            name: {{ printf "%v-preflight" .Release.Name | toJson }}
        - configMap:
            name: {{ printf "%v-submit" .Release.Name | toJson }}
    {{- end }}
    {{- if not (eq .Values.run.kind "RayCluster") }}
    - name: preflight
      configMap:
        name: {{ printf "%v-preflight" .Release.Name | toJson }}
    {{- end }}
{{- end }}
