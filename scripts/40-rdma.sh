#!/usr/bin/env bash
# Step 4: GKE's NCCL RDMA installer for the mode, then the Network objects from dist/.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
start_step "$@"
check_cluster_name
INSTALLERS=https://raw.githubusercontent.com/GoogleCloudPlatform/container-engine-accelerators/master/gpudirect-rdma
if [[ $CLUSTER_MODE == autopilot ]]; then installer=nccl-rdma-installer-autopilot.yaml; else installer=nccl-rdma-installer.yaml; fi

run gcloud container clusters get-credentials "$CLUSTER" --project="$PROJECT" --location="$REGION"
# kubectl apply is itself idempotent: a second run changes nothing.
run kubectl apply -f "$INSTALLERS/$installer"
network_files=("$REPO_DIR/$DIST_DIR"/gkenetworkparamset-*.yaml "$REPO_DIR/$DIST_DIR"/network-*.yaml)
[[ -e ${network_files[0]} ]] || die "no network objects in $DIST_DIR: run make generate"
args=()
for f in "${network_files[@]}"; do args+=(-f "$f"); done
run kubectl apply --server-side "${args[@]}"
