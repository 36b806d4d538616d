#!/usr/bin/env bash
# Doctor: what a run needs from this machine and the project, in seconds.
# Creates nothing: it only reads (describe, get, list), with or without --dry-run.
# One line per check (ok, warn or FAIL, and what to do): the tools (gcloud, kubectl, helm,
# gke-gcloud-auth-plugin), gcloud's credentials, the values (verl-grpo env), a GKE version the
# channel offers at or above the profile's floor, the GPU quota in REGION, the bucket and its
# Workload Identity grants for the release's namespace (-n), and, once CLUSTER exists, its KubeRay
# CRDs against kuberay.version, the namespace, and (Standard) that the GPU pools recorded there
# give the nodes the workers select. Exit 1 when a check fails.
# Variables: PROJECT, REGION, ZONE (required; ZONE may come from cluster.zone), CLUSTER (the
# cluster's checks, skipped until it exists), RELEASE_CHANNEL (default: regular).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
parse_flags "$@"
RELEASE_CHANNEL=${RELEASE_CHANNEL:-regular}
failed=0
# report ok|warn|FAIL WHAT DETAIL
report() {
  printf '%-4s %s: %s\n' "$1" "$2" "$3"
  [[ $1 != FAIL ]] || failed=1
}

for tool in gcloud kubectl helm gke-gcloud-auth-plugin; do
  if command -v "$tool" >/dev/null; then
    report ok "$tool" "$(command -v "$tool")"
  else
    report FAIL "$tool" "not on PATH: install it ($PREREQUISITES_DOC)"
  fi
done
command -v gcloud >/dev/null || exit 1 # nothing else can be asked

if ! VERL_ENV=$(settings_env); then # its lines name each problem
  report FAIL values "refused (the lines above): fix them first"
  exit 1
fi
eval "$VERL_ENV"
report ok values "profile $PROFILE, bucket $BUCKET, namespace $NAMESPACE"
check_location

if ! gcloud auth print-access-token --quiet >/dev/null 2>&1; then
  report FAIL credentials "gcloud has no usable account: gcloud auth login"
  exit 1
fi
report ok credentials "gcloud has an account"

offered=$(gcloud container get-server-config --project="$PROJECT" --location="$REGION" \
  --flatten=channels --filter="channels.channel=${RELEASE_CHANNEL^^}" \
  --format='value(channels.validVersions)' 2>/dev/null || true)
newest=$(tr ';' '\n' <<<"$offered" | sed '/^$/d' | sort -V | tail -n1)
if [[ -n $newest ]] && version_at_least "$newest" "$MIN_GKE_VERSION"; then
  report ok "GKE version" "$newest offered in the $RELEASE_CHANNEL channel (the profile needs $MIN_GKE_VERSION)"
else
  report FAIL "GKE version" "the $RELEASE_CHANNEL channel in $REGION offers none at or above $MIN_GKE_VERSION ($MIN_GKE_FEATURE): try RELEASE_CHANNEL=rapid"
fi

# GPU quota (https://cloud.google.com/compute/resource-usage#gpu_quota): a reservation you own needs
# none; Spot and flex-start count against the preemptible quota, on-demand against the family's.
# GCE does not list every GPU family in `regions describe` (dstack's GCP backend, compute.py
# @511c318: "B200, H100, H100_MEGA, and RTXPRO6000 quotas are not returned"): absent is unknown.
gpus=$((${POOL_NODES// /+} * GPUS_PER_NODE))
if [[ $CAPACITY == reservation ]]; then
  report ok "GPU quota" "none needed: the GPUs come from reservation $RESERVATION"
else
  prefix=$([[ $CAPACITY == on-demand ]] || echo PREEMPTIBLE_)
  metric="${prefix}${QUOTA_FAMILY}_GPUS"
  quota=$(gcloud compute regions describe "$REGION" --project="$PROJECT" --format=json 2>/dev/null |
    python3 -c 'import json, sys; q = [x for x in json.load(sys.stdin).get("quotas", []) if x["metric"] == sys.argv[1]]; print(*("%d %d" % (x["limit"] - x["usage"], x["limit"]) for x in q[:1]))' "$metric" || true)
  if [[ -z $quota ]]; then
    report warn "GPU quota" "$REGION lists no $metric: check IAM & Admin > Quotas (gpu_family:$QUOTA_FAMILY) for $gpus GPUs"
  elif ((${quota% *} >= gpus)); then
    report ok "GPU quota" "$metric: ${quota% *} of ${quota#* } free, the run needs $gpus"
  else
    report FAIL "GPU quota" "$metric: ${quota% *} of ${quota#* } free, the run needs $gpus: request more (IAM & Admin > Quotas)"
  fi
fi

if exists gcloud storage buckets describe "gs://$BUCKET" --project="$PROJECT"; then
  report ok bucket "gs://$BUCKET"
  while read -r ksa role folder; do
    target=$(grant_target "$folder")
    if binds "$(wi_member "$ksa")" "$role" "$folder"; then
      report ok grant "$role for ns/$NAMESPACE/sa/$ksa on ${target#* }"
    else
      report FAIL grant "no $role for ns/$NAMESPACE/sa/$ksa on ${target#* }: scripts/50-storage.sh -n $NAMESPACE"
    fi
  done < <(bucket_grants)
else # up.sh makes it; a name another project holds fails there, on create
  report warn bucket "gs://$BUCKET not there yet (or not yours): scripts/50-storage.sh makes it"
fi

if [[ -z ${CLUSTER:-} ]] || ! exists gcloud container clusters describe "$CLUSTER" --project="$PROJECT" --location="$REGION"; then
  report warn cluster "${CLUSTER:-CLUSTER unset}: not there yet, its checks skipped (scripts/20-cluster.sh makes it)"
elif ! crds=$(gcloud container clusters get-credentials "$CLUSTER" --project="$PROJECT" --location="$REGION" >/dev/null 2>&1 &&
  kubectl get crd rayclusters.ray.io rayjobs.ray.io -o yaml 2>/dev/null); then
  report FAIL kuberay "no KubeRay CRDs in $CLUSTER: enable the Ray add-on (--addons=RayOperator)"
elif "${VERL_GRPO:-$REPO_DIR/.venv/bin/verl-grpo}" check --profile "$PROFILE" "${VALUES_ARGS[@]}" \
  --cluster-crds - <<<"$crds" >/dev/null 2>&1; then
  report ok kuberay "the cluster's CRDs fit kuberay.version $KUBERAY_VERSION"
else
  report FAIL kuberay "the cluster's CRDs do not fit kuberay.version $KUBERAY_VERSION: verl-grpo check --cluster-crds says why"
fi
if [[ -n ${crds:-} ]]; then
  if exists kubectl get namespace "$NAMESPACE"; then
    report ok namespace "$NAMESPACE"
  else
    report FAIL namespace "$NAMESPACE does not exist: scripts/50-storage.sh -n $NAMESPACE, or helm install --create-namespace"
  fi
fi
# POOL_RECORDS_CONFIGMAP (from verl-grpo env): the GPU pools' record 40-rdma.sh writes.
if [[ -n ${crds:-} && $CLUSTER_MODE == standard ]]; then
  if ! records=$(kubectl get configmap "$POOL_RECORDS_CONFIGMAP" -n kube-public -o json 2>/dev/null); then
    report warn pools "no GPU pool recorded in $CLUSTER: scripts/30-gpu-pool.sh then scripts/40-rdma.sh make and record them"
  else
    # check exits 1 on the problems it prints: only their lines count here.
    unfit=$("${VERL_GRPO:-$REPO_DIR/.venv/bin/verl-grpo}" check --profile "$PROFILE" "${VALUES_ARGS[@]}" \
      --cluster-pools - <<<"$records" 2>/dev/null | grep -F '[pool-matches-workers]' || true)
    if [[ -n $unfit ]]; then
      while IFS= read -r line; do report FAIL pools "${line#error: "$PROFILE": }"; done <<<"$unfit"
    else
      report ok pools "every worker group's nodes come from a recorded GPU pool"
    fi
  fi
fi
exit "$failed"
