#!/usr/bin/env bash
# Step 3 (Standard): the GPU node pool in the zone, with the gVNIC and 8 RDMA networks attached.
# CAPACITY: reservation (RESERVATION must exist), spot or flex-start; default follows cluster.spot.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
start_step "$@"
check_cluster_name
if [[ $CLUSTER_MODE == autopilot ]]; then
  log "Autopilot: GPU nodes come from the pods' requests; no node pool to create"
  exit 0
fi
if [[ $SPOT == true ]]; then default_capacity=spot; else default_capacity=reservation; fi
CAPACITY=${CAPACITY:-$default_capacity}
capacity_flags=()
case "$CAPACITY" in
  reservation)
    require RESERVATION
    exists gcloud compute reservations describe "$RESERVATION" --project="$PROJECT" --zone="$ZONE" ||
      die "reservation $RESERVATION not found in $ZONE"
    capacity_flags=(--reservation-affinity=specific --reservation="$RESERVATION") ;;
  spot) capacity_flags=(--spot) ;;
  flex-start) capacity_flags=(--flex-start --enable-queued-provisioning --reservation-affinity=none) ;;
  *) die "CAPACITY=$CAPACITY; allowed: reservation, spot, flex-start" ;;
esac

networks=(--additional-node-network="network=$GVNIC_VPC,subnetwork=$GVNIC_SUBNET")
read -r -a subnets <<<"$RDMA_SUBNETS"
for subnet in "${subnets[@]}"; do
  networks+=(--additional-node-network="network=$RDMA_VPC,subnetwork=$subnet")
done

ensure "node pool $GPU_NODE_POOL" gcloud container node-pools describe "$GPU_NODE_POOL" --cluster="$CLUSTER" \
  --project="$PROJECT" --location="$REGION" -- \
  gcloud container node-pools create "$GPU_NODE_POOL" --cluster="$CLUSTER" --project="$PROJECT" \
  --location="$REGION" --node-locations="$ZONE" --machine-type="$MACHINE_TYPE" \
  --accelerator="type=$ACCELERATOR,count=$GPUS_PER_NODE,gpu-driver-version=latest" \
  --num-nodes="$NODE_COUNT" "${capacity_flags[@]}" "${networks[@]}"
