{{- /* Held by more than one object (constructs/: add_object(shared=...)). */}}
{{- define "verl-grpo.rayClusterSpec" }}
{{- $facts := include "verl-grpo.facts" (list .Values.gpu.type .Values.cluster.mode) | fromJson }}
rayVersion: {{ .Values.ray.version | toJson }}
{{- if eq .Values.ray.auth "token" }}
authOptions:
  mode: token
  secretName: {{ printf "%v-ray-token" .Release.Name | toJson }}
{{- end }}
headGroupSpec:
  serviceType: ClusterIP
  rayStartParams:
    dashboard-host: 0.0.0.0
  template:
    metadata:
      labels:
        app.kubernetes.io/name: verl-grpo
        app.kubernetes.io/instance: {{ .Release.Name | toJson }}
      annotations:
        gke-gcsfuse/volumes: 'true'
        gke-gcsfuse/cpu-limit: {{ (.Values.storage.sidecar.cpuLimit | default $facts.sidecarCpuLimit) | toJson }}
        gke-gcsfuse/memory-limit: {{ (.Values.storage.sidecar.memoryLimit | default $facts.sidecarMemoryLimit) | toJson }}
        gke-gcsfuse/ephemeral-storage-limit: {{ (.Values.storage.sidecar.ephemeralStorageLimit | default $facts.sidecarEphemeralStorageLimit) | toJson }}
        checkov.io/skip1: CKV_K8S_21=the namespace is chosen at install time (helm -n, verl-grpo synth -n)
        checkov.io/skip2: CKV_K8S_23=the verl image runs as root; its CUDA, vLLM and pip caches live in root-owned paths
        checkov.io/skip3: CKV_K8S_40=the verl image runs as root (see CKV_K8S_23)
        checkov.io/skip4: CKV_K8S_22=Ray, vLLM and torch write caches and sockets all over the image filesystem
        checkov.io/skip5: CKV_K8S_8=KubeRay injects its own liveness probe (ray health-check) into Ray pods
        checkov.io/skip6: CKV_K8S_9=KubeRay injects its own readiness probe (ray health-check) into Ray pods
        checkov.io/skip7: CKV_K8S_43=the image is pinned by tag in values (image.tag); mirror it and pin a digest there
        checkov.io/skip8: 'CKV_K8S_15=a 30 GB image: IfNotPresent saves a registry round trip on each restart after preemption'
    spec:
      serviceAccountName: {{ .Values.serviceAccount.name | toJson }}
      automountServiceAccountToken: false
      securityContext:
        seccompProfile:
          type: RuntimeDefault
      {{- if eq .Values.cluster.mode "standard" }}
      nodeSelector:
        cloud.google.com/gke-nodepool: {{ .Values.cluster.cpuNodePool | toJson }}
      {{- else }}
      nodeSelector:
        cloud.google.com/compute-class: {{ .Values.cluster.computeClass | toJson }}
        cloud.google.com/machine-family: {{ .Values.cluster.headMachineFamily | toJson }}
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
        - name: ray-logs
          mountPath: /tmp/ray
          readOnly: true
        - name: checkpoints
          mountPath: {{ .Values.storage.checkpointMountPath | toJson }}
        - name: preflight
          mountPath: {{ .Values.preflight.mountPath | toJson }}
          readOnly: true
      {{- end }}
      containers:
      - name: ray-head
        image: {{ (include "verl-grpo.image" .) | toJson }}
        imagePullPolicy: {{ .Values.image.pullPolicy | toJson }}
        ports:
        - containerPort: 6379
          name: gcs-server
        - containerPort: 8265
          name: dashboard
        - containerPort: 10001
          name: client
        resources:
          requests:
            cpu: {{ .Values.head.cpu | toJson }}
            memory: {{ .Values.head.memory | toJson }}
            ephemeral-storage: {{ .Values.head.ephemeralStorage | toJson }}
          limits:
            cpu: {{ .Values.head.cpu | toJson }}
            memory: {{ .Values.head.memory | toJson }}
            ephemeral-storage: {{ .Values.head.ephemeralStorage | toJson }}
        securityContext:
          allowPrivilegeEscalation: false
          capabilities:
            drop:
            - ALL
        volumeMounts:
        - name: ray-logs
          mountPath: /tmp/ray
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
        - name: preflight
          mountPath: {{ .Values.preflight.mountPath | toJson }}
          readOnly: true
      volumes:
      - name: ray-logs
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
workerGroupSpecs:
{{- range $group := include "verl-grpo.workerGroups" . | fromJsonArray }}
- {{- include "verl-grpo.workerGroup" (dict "Values" $.Values "Release" $.Release "group" $group) | trimPrefix "\n" | nindent 2 }}
{{- end }}
{{- end }}
