#!/usr/bin/env bash
# Step 4: RDMA in the cluster.
# Creates: GKE's NCCL RDMA installer DaemonSet for the mode, then the cluster's Network and
# GKENetworkParamSet objects. This script owns those cluster-scoped objects (one set per cluster,
# shared by every release; docs/DESIGN.md): they are rendered here from the same values as
# everything else (-f/--set, so network.prefix matches the VPCs of step 1), never from dist/.
# With network.rdma dranet there are none (the workers claim their NICs): the installer only.
# Standard: then the GPU pools' record, ConfigMap verl-grpo-pools in kube-public (a key per pool:
# its profile and its nodes' labels) and a Role that lets every authenticated user read it;
# `helm install` and `verl-grpo doctor` hold a release's workers to the pools recorded there.
# Variables: PROJECT, REGION, ZONE, CLUSTER (required). Needs kubectl.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
start_step "$@"
check_cluster_name
require_tools kubectl
# RDMA_INSTALLER (from verl-grpo env): the mode's manifest pinned to a commit (facts/pins.py).

args=()
rendered=$(mktemp -d)
trap 'rm -rf "$rendered"' EXIT
if [[ $RDMA_MODE != dranet ]]; then
  "${VERL_GRPO:-$REPO_DIR/.venv/bin/verl-grpo}" synth --profile "$PROFILE" ${NAMESPACE:+-n "$NAMESPACE"} \
    "${VALUES_ARGS[@]}" --set network.createObjects=true -o "$rendered" >/dev/null ||
    die "verl-grpo synth failed"
  files=("$rendered/$PROFILE"/gkenetworkparamset-*.yaml "$rendered/$PROFILE"/network-*.yaml)
  ((${#files[@]} == NETWORK_OBJECTS)) ||
    die "expected $NETWORK_OBJECTS GKENetworkParamSet and Network objects, got ${#files[@]}"
  for f in "${files[@]}"; do args+=(-f "$f"); done
fi
inputs_checked

run gcloud container clusters get-credentials "$CLUSTER" --project="$PROJECT" --location="$REGION"
# kubectl apply is itself idempotent: a second run changes nothing.
run kubectl apply -f "$RDMA_INSTALLER"
if ((${#args[@]})); then
  run kubectl apply --server-side --field-manager=verl-grpo-scripts "${args[@]}"
fi
# POOL_RECORDS (from verl-grpo env): per pool of GPU_POOLS, the ConfigMap with that pool's key
# alone, applied as that pool's field manager: keys of pools made by other runs stay. Empty on
# Autopilot (no pools).
if [[ -n $POOL_RECORDS ]]; then
  printf '%s\n' "$POOL_RECORDS_ACCESS" >"$rendered/pool-records-access.json"
  run kubectl apply --server-side --field-manager=verl-grpo-scripts -f "$rendered/pool-records-access.json"
  read -r -a pools <<<"$GPU_POOLS"
  mapfile -t records <<<"$POOL_RECORDS"
  for i in "${!pools[@]}"; do
    printf '%s\n' "${records[i]}" >"$rendered/pool-record-$i.json"
    run kubectl apply --server-side --field-manager="verl-grpo-pool-${pools[i]}" -f "$rendered/pool-record-$i.json"
  done
fi
