#!/usr/bin/env bash
# Step 4: RDMA in the cluster.
# Creates: GKE's NCCL RDMA installer DaemonSet for the mode, then the cluster's Network and
# GKENetworkParamSet objects. This script owns those cluster-scoped objects (one set per cluster,
# shared by every release; docs/DESIGN.md): they are rendered here from the same values as
# everything else (-f/--set, so network.prefix matches the VPCs of step 1), never from dist/.
# With network.rdma dranet there are none (the workers claim their NICs): the installer only.
# Variables: PROJECT, REGION, ZONE, CLUSTER (required). Needs kubectl.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
start_step "$@"
check_cluster_name
require_tools kubectl
# RDMA_INSTALLER (from verl-grpo env): the mode's manifest pinned to a commit (facts/pins.py).

args=()
if [[ $RDMA_MODE != dranet ]]; then
  rendered=$(mktemp -d)
  trap 'rm -rf "$rendered"' EXIT
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
