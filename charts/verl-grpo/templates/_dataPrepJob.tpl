{{- /* The spec of the object named after its digest (Decisions.spec_digest). */}}
{{- define "verl-grpo.dataPrepJob.spec" }}
{{- $facts := include "verl-grpo.facts" (list .Values.gpu.type .Values.cluster.mode) | fromJson }}
backoffLimit: {{ .Values.dataPrep.backoffLimit | toJson }}
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
  spec:
    serviceAccountName: {{ printf "%v-data-prep" .Values.serviceAccount.name | toJson }}
    automountServiceAccountToken: false
    securityContext:
      seccompProfile:
        type: RuntimeDefault
    restartPolicy: Never
    {{- if eq .Values.cluster.mode "standard" }}
    nodeSelector:
      cloud.google.com/gke-nodepool: {{ .Values.cluster.cpuNodePool | toJson }}
    {{- else }}
    nodeSelector:
      cloud.google.com/compute-class: {{ .Values.cluster.computeClass | toJson }}
      cloud.google.com/machine-family: {{ .Values.cluster.headMachineFamily | toJson }}
    {{- end }}
    containers:
    - name: data-prep
      image: {{ (include "verl-grpo.image" .) | toJson }}
      imagePullPolicy: {{ .Values.image.pullPolicy | toJson }}
      command:
      - bash
      - -c
      - |
        set -euo pipefail
        step() {  # step DIR FUNCTION: run FUNCTION unless DIR holds the marker, then write the marker
          if [ -f "$1/.verl-grpo-complete" ]; then echo "skip: $1 is complete"; return 0; fi
          echo "run: $2 -> $1"; "$2"; mkdir -p "$1"; date -u +%FT%TZ > "$1/.verl-grpo-complete"
        }
        download_model() {
          python3 - <<'PY'
        import os
        from huggingface_hub import snapshot_download
        e = os.environ
        snapshot_download(e["MODEL_ID"], revision=e["MODEL_REVISION"], local_dir=e["MODEL_DIR"])
        PY
        }
        fetch() {  # fetch URL SHA256 FILE: the file at URL, kept only with that sha256
          curl --fail --silent --show-error --location --retry 3 --output "$3" "$1"
          if ! echo "$2  $3" | sha256sum --check --status; then
            got=$(sha256sum "$3" | cut -d' ' -f1)
            echo "$1 has sha256 $got, not $2: not the verl $VERL_VERSION this kit checks" >&2
            exit 1
          fi
        }
        fetch_verl() {
          # verl's release as PyPI holds it (the wheel: the verl package) and its GSM8K script (in git
          # only), each checked against its sha256 (data/verl/<version>.yaml), unpacked on the pod's
          # scratch disk, then copied into the verl folder: the Job's identity may write only inside the
          # model, data and verl managed folders (scripts/lib.sh bucket_grants), so a sibling like
          # "$VERL_DIR.partial", or removing the folder itself, is refused by Cloud Storage. A run cut short
          # left no marker: its files are cleared first, inside the folder.
          scratch=$(mktemp -d)
          fetch "$VERL_WHEEL_URL" "$VERL_WHEEL_SHA256" "$scratch/verl.whl"
          fetch "$GSM8K_SCRIPT_URL" "$GSM8K_SCRIPT_SHA256" "$scratch/gsm8k.py"
          python3 -m zipfile -e "$scratch/verl.whl" "$scratch/verl"
          mkdir -p "$scratch/verl/examples/data_preprocess"
          cp "$scratch/gsm8k.py" "$scratch/verl/examples/data_preprocess/gsm8k.py"
          mkdir -p "$VERL_DIR" && find "$VERL_DIR" -mindepth 1 -delete
          cp -R "$scratch/verl/." "$VERL_DIR/"
        }
        prepare_gsm8k() {
          # The verlai/verl images install verl for its dependencies, then uninstall it
          # (verl docker/Dockerfile.stable.vllm); gsm8k.py imports verl.utils.hdfs_io: use the release's.
          PYTHONPATH="$VERL_DIR" \
            python3 "$VERL_DIR/examples/data_preprocess/gsm8k.py" --local_save_dir "$DATA_DIR"
        }
        step "$MODEL_DIR" download_model
        step "$VERL_DIR" fetch_verl
        step "$DATA_DIR" prepare_gsm8k
      env:
      - name: MODEL_ID
        value: {{ .Values.dataPrep.modelId | toJson }}
      - name: MODEL_REVISION
        value: {{ .Values.dataPrep.modelRevision | toJson }}
      - name: MODEL_DIR
        value: {{ printf "%v/%v" .Values.storage.mountPath .Values.storage.modelDir | toJson }}
      - name: VERL_DIR
        value: {{ printf "%v/%v" .Values.storage.mountPath .Values.storage.verlDir | toJson }}
      - name: DATA_DIR
        value: {{ printf "%v/%v" .Values.storage.mountPath .Values.storage.dataDir | toJson }}
      - name: VERL_VERSION
        value: {{ .Values.training.verlVersion | toJson }}
      - name: VERL_WHEEL_URL
        value: {{ (index (include "verl-grpo.verlRelease" .Values.training.verlVersion | fromJson) "wheelUrl") | toJson }}
      - name: VERL_WHEEL_SHA256
        value: {{ (index (include "verl-grpo.verlRelease" .Values.training.verlVersion | fromJson) "wheelSha256") | toJson }}
      - name: GSM8K_SCRIPT_URL
        value: {{ (index (include "verl-grpo.verlRelease" .Values.training.verlVersion | fromJson) "gsm8kScriptUrl") | toJson }}
      - name: GSM8K_SCRIPT_SHA256
        value: {{ (index (include "verl-grpo.verlRelease" .Values.training.verlVersion | fromJson) "gsm8kScriptSha256") | toJson }}
      - name: HF_HOME
        value: /tmp/huggingface
      - name: HF_TOKEN
        valueFrom:
          secretKeyRef:
            name: {{ .Values.dataPrep.hfTokenSecret | toJson }}
            key: token
            optional: true
      resources:
        requests:
          cpu: {{ .Values.dataPrep.cpu | toJson }}
          memory: {{ .Values.dataPrep.memory | toJson }}
          ephemeral-storage: {{ .Values.dataPrep.ephemeralStorage | toJson }}
        limits:
          cpu: {{ .Values.dataPrep.cpu | toJson }}
          memory: {{ .Values.dataPrep.memory | toJson }}
          ephemeral-storage: {{ .Values.dataPrep.ephemeralStorage | toJson }}
      securityContext:
        allowPrivilegeEscalation: false
        capabilities:
          drop:
          - ALL
      volumeMounts:
      - name: model
        mountPath: {{ printf "%v/%v" .Values.storage.mountPath .Values.storage.modelDir | toJson }}
      - name: data
        mountPath: {{ printf "%v/%v" .Values.storage.mountPath .Values.storage.dataDir | toJson }}
      - name: verl
        mountPath: {{ printf "%v/%v" .Values.storage.mountPath .Values.storage.verlDir | toJson }}
      - name: scratch
        mountPath: /tmp
    volumes:
    - name: model
      persistentVolumeClaim:
        claimName: {{ (include "verl-grpo.claimName" (list . "model")) | toJson }}
    - name: data
      persistentVolumeClaim:
        claimName: {{ (include "verl-grpo.claimName" (list . "data")) | toJson }}
    - name: verl
      persistentVolumeClaim:
        claimName: {{ (include "verl-grpo.claimName" (list . "verl")) | toJson }}
    - name: scratch
      emptyDir: {}
{{- end }}

{{- define "verl-grpo.dataPrepJob.digest" -}}
{{ include "verl-grpo.dataPrepJob.spec" . | fromYaml | toJson | sha256sum | trunc 8 }}
{{- end }}
