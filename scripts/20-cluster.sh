#!/usr/bin/env bash
# Step 2: the GKE cluster. Standard: Workload Identity, Ray operator and GCS FUSE add-ons,
# multi-networking, dataplane v2, and a CPU pool that fits the Ray head. Autopilot: the same
# features, nodes come from the pods' requests.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
start_step "$@"
check_cluster_name
GKE_VERSION=${GKE_VERSION:-$MIN_GKE_VERSION}
version_at_least "$GKE_VERSION" "$MIN_GKE_VERSION" ||
  die "GKE_VERSION=$GKE_VERSION is below $MIN_GKE_VERSION, the first with GPUDirect RDMA for $GPU_TYPE"

describe=(gcloud container clusters describe "$CLUSTER" --project="$PROJECT" --location="$REGION")
if [[ $CLUSTER_MODE == autopilot ]]; then
  ensure "cluster $CLUSTER" "${describe[@]}" -- \
    gcloud container clusters create-auto "$CLUSTER" --project="$PROJECT" --location="$REGION" \
    --cluster-version="$GKE_VERSION" --release-channel=rapid --enable-ray-operator \
    --enable-multi-networking --workload-policies=allow-net-admin
else
  ensure "cluster $CLUSTER" "${describe[@]}" -- \
    gcloud container clusters create "$CLUSTER" --project="$PROJECT" --location="$REGION" \
    --node-locations="$ZONE" --cluster-version="$GKE_VERSION" --workload-pool="$PROJECT.svc.id.goog" \
    --addons=RayOperator,GcsFuseCsiDriver --enable-multi-networking --enable-dataplane-v2 \
    --machine-type="$CPU_MACHINE_TYPE" --num-nodes=1
  # The Ray head's nodeSelector names this pool; create it only when it is not the default pool.
  if [[ $CPU_NODE_POOL != default-pool ]]; then
    ensure "node pool $CPU_NODE_POOL" gcloud container node-pools describe "$CPU_NODE_POOL" --cluster="$CLUSTER" \
      --project="$PROJECT" --location="$REGION" -- \
      gcloud container node-pools create "$CPU_NODE_POOL" --cluster="$CLUSTER" --project="$PROJECT" \
      --location="$REGION" --node-locations="$ZONE" --machine-type="$CPU_MACHINE_TYPE" --num-nodes=1
  fi
fi
