#!/usr/bin/env bash
# Step 3 (Standard): the GPU node pool.
# Creates: node pool gpu-pool in ZONE with the gVNIC and RDMA networks attached (multi-network), or
# with GKE managed DRANET (network.rdma dranet: gcloud beta, --accelerator-network-profile=auto and
# the DRANET label), scaling from 0 to worker.replicas nodes. Autopilot: nothing (the pods' requests
# make the nodes). Capacity from the values: cluster.capacity (spot, reservation with
# cluster.reservation, checked to exist, flex-start, on-demand).
# Variables: PROJECT, REGION, ZONE, CLUSTER (required). CAPACITY, RESERVATION (optional; refused
# unless they equal cluster.capacity and cluster.reservation).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
start_step "$@"
check_cluster_name
# Both modes consume the reservation by name (Autopilot through the workers' selectors).
if [[ $CAPACITY == reservation ]]; then
  exists gcloud compute reservations describe "$RESERVATION" --project="$PROJECT" --zone="$ZONE" ||
    die "reservation $RESERVATION (cluster.reservation) not found in $ZONE"
fi
inputs_checked
if [[ $CLUSTER_MODE == autopilot ]]; then
  log "Autopilot: GPU nodes come from the pods' requests; no node pool to create"
  exit 0
fi
# cluster.capacity decides the pool's flags and the workers' selectors (values/capacity.py), so a
# pod never asks for a kind of node the pool does not make. The pool autoscales from 0.
read -r -a capacity_flags <<<"$GPU_POOL_FLAGS"

# GKE's DRANET page creates the pool with `gcloud beta` (values/networks.py); its flags are in
# GPU_POOL_FLAGS and it attaches no networks of ours.
create=(gcloud beta container node-pools create)
networks=()
if [[ $RDMA_MODE != dranet ]]; then
  create=(gcloud container node-pools create)
  networks=(--additional-node-network="network=$GVNIC_VPC,subnetwork=$GVNIC_SUBNET")
  read -r -a subnets <<<"$RDMA_SUBNETS"
  for subnet in "${subnets[@]}"; do
    networks+=(--additional-node-network="network=$RDMA_VPC,subnetwork=$subnet")
  done
fi

# A4X: one NVLink domain per pool, through a HIGH_THROUGHPUT workload policy (data/gpus/a4x.yaml).
placement=()
if [[ -n $ACCELERATOR_TOPOLOGY ]]; then
  ensure "workload policy $WORKLOAD_POLICY" gcloud compute resource-policies describe "$WORKLOAD_POLICY" \
    --project="$PROJECT" --region="$REGION" -- \
    gcloud beta compute resource-policies create workload-policy "$WORKLOAD_POLICY" --project="$PROJECT" \
    --region="$REGION" --type=HIGH_THROUGHPUT --accelerator-topology="$ACCELERATOR_TOPOLOGY"
  placement=(--placement-policy="$WORKLOAD_POLICY")
fi

ensure "node pool $GPU_NODE_POOL" gcloud container node-pools describe "$GPU_NODE_POOL" --cluster="$CLUSTER" \
  --project="$PROJECT" --location="$REGION" -- \
  "${create[@]}" "$GPU_NODE_POOL" --cluster="$CLUSTER" --project="$PROJECT" \
  --location="$REGION" --node-locations="$ZONE" --machine-type="$MACHINE_TYPE" \
  --accelerator="type=$ACCELERATOR,count=$GPUS_PER_NODE,gpu-driver-version=latest" \
  "${capacity_flags[@]}" "${networks[@]}" "${placement[@]}"
