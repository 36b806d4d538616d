#!/usr/bin/env bash
# Step 5: storage and the token.
# Creates: bucket gs://<storage.bucket> in REGION, the Workload Identity bindings (lib.sh
# bucket_grants: both identities read this bucket only, the training pods write only its
# checkpoint folder, the data-prep Job only the model, data and verl folders) and, when HF_TOKEN_FILE is set, the Hugging Face token Secret. The token is read
# from that file (or standard input with HF_TOKEN_FILE=-), never from the command line, never
# printed. With ray.auth: token, the Ray token Secret <release>-ray-token (key auth_token) with a
# random token made here, piped to kubectl, never printed. The Secrets and the bindings name the
# release's namespace (-n NS; default: default), created here when a Secret needs it. The
# Kubernetes service account itself comes with the manifests (helm -n NS, or kubectl apply).
# Variables: PROJECT, REGION, ZONE (required). HF_TOKEN_FILE (default: none; then also CLUSTER and
# kubectl).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
start_step "$@"
if [[ -n ${HF_TOKEN_FILE:-} || -n $RAY_TOKEN_SECRET ]]; then
  check_cluster_name
  require_tools kubectl
fi
if [[ -n ${HF_TOKEN_FILE:-} ]]; then
  source_file=$HF_TOKEN_FILE
  [[ $source_file == - ]] && source_file=/dev/stdin
  [[ $source_file == /dev/stdin || (-f $source_file && -r $source_file) ]] || bad HF_TOKEN_FILE "is not a readable file"
fi
inputs_checked

ensure "bucket gs://$BUCKET" gcloud storage buckets describe "gs://$BUCKET" --project="$PROJECT" -- \
  gcloud storage buckets create "gs://$BUCKET" --project="$PROJECT" --location="$REGION" \
  --uniform-bucket-level-access --enable-hierarchical-namespace

while read -r ksa role folder; do
  read -r group target <<<"$(grant_target "$folder")"
  if [[ -n $folder ]]; then
    ensure "managed folder $target" gcloud storage managed-folders describe "$target" --project="$PROJECT" -- \
      gcloud storage managed-folders create "$target" --project="$PROJECT"
  fi
  member=$(wi_member "$ksa")
  if binds "$member" "$role" "$folder"; then
    log "$role for $ksa on $target exists"
  else
    run gcloud storage "$group" add-iam-policy-binding "$target" --project="$PROJECT" \
      --member="$member" --role="$role"
  fi
done < <(bucket_grants)

if [[ -n ${HF_TOKEN_FILE:-} || -n $RAY_TOKEN_SECRET ]]; then
  run gcloud container clusters get-credentials "$CLUSTER" --project="$PROJECT" --location="$REGION"
  # The Secrets go where the release will be installed (-n/NAMESPACE; helm install -n the same).
  ensure "namespace $NAMESPACE" kubectl get namespace "$NAMESPACE" -- kubectl create namespace "$NAMESPACE"
fi
if [[ -n $RAY_TOKEN_SECRET ]]; then
  # 48 random bytes, URL-safe; KubeRay gives it to every Ray container (authOptions.secretName).
  # shellcheck disable=SC2016 # $0 and $1 are bash -c's own arguments: expanded in there
  ensure "secret $RAY_TOKEN_SECRET" kubectl get secret "$RAY_TOKEN_SECRET" -n "$NAMESPACE" -- \
    bash -c 'python3 -c "import secrets; print(secrets.token_urlsafe(48), end=\"\")" |
      kubectl create secret generic "$0" -n "$1" --from-file=auth_token=/dev/stdin' "$RAY_TOKEN_SECRET" "$NAMESPACE"
fi
if [[ -n ${HF_TOKEN_FILE:-} ]]; then
  ensure "secret $HF_TOKEN_SECRET" kubectl get secret "$HF_TOKEN_SECRET" -n "$NAMESPACE" -- \
    kubectl create secret generic "$HF_TOKEN_SECRET" -n "$NAMESPACE" --from-file=token="$source_file"
else
  log "HF_TOKEN_FILE not set: no Hugging Face token Secret (not needed when the model is in the bucket)"
fi
