#!/usr/bin/env bash
# Step 5: storage and the token.
# Creates: bucket gs://<storage.bucket> in REGION, the Workload Identity binding (objectUser on this
# bucket only) and, when HF_TOKEN_FILE is set, the Hugging Face token Secret. The token is read
# from that file (or standard input with HF_TOKEN_FILE=-), never from the command line, never
# printed. The Kubernetes service account itself comes with the manifests (helm or kubectl apply).
# Variables: PROJECT, REGION, ZONE (required). HF_TOKEN_FILE (default: none; then also CLUSTER and
# kubectl).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
start_step "$@"
if [[ -n ${HF_TOKEN_FILE:-} ]]; then
  check_cluster_name
  require_tools kubectl
  source_file=$HF_TOKEN_FILE
  [[ $source_file == - ]] && source_file=/dev/stdin
  [[ $source_file == /dev/stdin || (-f $source_file && -r $source_file) ]] || bad HF_TOKEN_FILE "is not a readable file"
fi
inputs_checked

ensure "bucket gs://$BUCKET" gcloud storage buckets describe "gs://$BUCKET" --project="$PROJECT" -- \
  gcloud storage buckets create "gs://$BUCKET" --project="$PROJECT" --location="$REGION" \
  --uniform-bucket-level-access --enable-hierarchical-namespace

member=$(wi_member)
if bucket_binds "$member"; then
  log "IAM binding for $KSA_NAME exists"
else
  run gcloud storage buckets add-iam-policy-binding "gs://$BUCKET" --project="$PROJECT" \
    --member="$member" --role=roles/storage.objectUser
fi

if [[ -n ${HF_TOKEN_FILE:-} ]]; then
  run gcloud container clusters get-credentials "$CLUSTER" --project="$PROJECT" --location="$REGION"
  ensure "secret $HF_TOKEN_SECRET" kubectl get secret "$HF_TOKEN_SECRET" -n "$NAMESPACE" -- \
    kubectl create secret generic "$HF_TOKEN_SECRET" -n "$NAMESPACE" --from-file=token="$source_file"
else
  log "HF_TOKEN_FILE not set: no Hugging Face token Secret (not needed when the model is in the bucket)"
fi
