#!/usr/bin/env bash
# Step 4: RDMA in the cluster.
# Creates: GKE's NCCL RDMA installer DaemonSet for the mode, then the cluster's Network and
# GKENetworkParamSet objects. This script owns those cluster-scoped objects (one set per cluster,
# shared by every release; docs/DESIGN.md): they are rendered here from the same values as
# everything else (-f/--set, so network.prefix matches the VPCs of step 1), never from dist/.
# Variables: PROJECT, REGION, ZONE, CLUSTER (required). Needs kubectl.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
start_step "$@"
check_cluster_name
require_tools kubectl
# Pinned to the last commit that changed each file (GoogleCloudPlatform/container-engine-accelerators;
# the repository has no release tag for gpudirect-rdma/): 2da1c92 (2026-05-06) and 155bfa4 (2026-03-09).
INSTALLERS=https://raw.githubusercontent.com/GoogleCloudPlatform/container-engine-accelerators
if [[ $CLUSTER_MODE == autopilot ]]; then
  installer=155bfa49b7459a55c2352495d3eeb46a55637be6/gpudirect-rdma/nccl-rdma-installer-autopilot.yaml
else
  installer=2da1c92ff7bd772a2c833710bb6c21dcfe6dfaae/gpudirect-rdma/nccl-rdma-installer.yaml
fi

rendered=$(mktemp -d)
trap 'rm -rf "$rendered"' EXIT
"${VERL_GRPO:-$REPO_DIR/.venv/bin/verl-grpo}" synth --profile "$PROFILE" ${NAMESPACE:+-n "$NAMESPACE"} \
  "${VALUES_ARGS[@]}" --set network.createObjects=true -o "$rendered" >/dev/null ||
  die "verl-grpo synth failed"
files=("$rendered/$PROFILE"/gkenetworkparamset-*.yaml "$rendered/$PROFILE"/network-*.yaml)
((${#files[@]} == 18)) || die "expected 9 GKENetworkParamSet and 9 Network objects, got ${#files[@]}"
args=()
for f in "${files[@]}"; do args+=(-f "$f"); done
inputs_checked

run gcloud container clusters get-credentials "$CLUSTER" --project="$PROJECT" --location="$REGION"
# kubectl apply is itself idempotent: a second run changes nothing.
run kubectl apply -f "$INSTALLERS/$installer"
run kubectl apply --server-side --field-manager=verl-grpo-scripts "${args[@]}"
