#!/usr/bin/env bash
# Step 3 (Standard): the GPU node pools, one per worker group (workerGroups), each of its group's
# machine (workerGroups.<name>.machine, else gpu.type).
# Creates: node pool gpu-pool (the group gpu-group's; gpu-pool-<group> for every other group) in ZONE
# with the gVNIC and RDMA networks attached (multi-network), or with GKE managed DRANET
# (network.rdma dranet: gcloud beta, --accelerator-network-profile=auto and the DRANET label),
# scaling from 0 to the group's replicas. Autopilot: nothing (the pods' requests make the nodes).
# Capacity from the values: the group's, else cluster.capacity (spot, reservation with
# cluster.reservation, checked to exist, flex-start, on-demand).
# Variables: PROJECT, REGION, ZONE, CLUSTER (required). CAPACITY, RESERVATION (optional; refused
# unless they equal cluster.capacity and cluster.reservation).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
start_step "$@"
check_cluster_name
# Both modes consume the reservation by name (Autopilot through the workers' selectors). `describe`
# fails when the zone has no such reservation
# (https://cloud.google.com/sdk/gcloud/reference/compute/reservations/describe).
sub_block=()  # per pool: the reservation sub-block it is created in, where one must hold its group
if [[ " $POOL_CAPACITIES " == *" reservation "* ]]; then
  exists gcloud compute reservations describe "$RESERVATION" --project="$PROJECT" --zone="$ZONE" ||
    die "reservation $RESERVATION (cluster.reservation) not found in $ZONE"
  # POOL_SUB_BLOCK_NODES (from verl-grpo env): for each pool, the workers that must share one
  # sub-block (queue.topology required at the sub-block level, or A4X's placement policy), or 0.
  # GKE publishes no sub-block size for A4 and A3 Ultra, so ask the reservation: each healthy
  # sub-block's hosts (count) less those in use (inUseCount), as xpk does
  # (AI-Hypercomputer/xpk src/xpk/core/reservation.py@367c838; fields:
  # https://cloud.google.com/compute/docs/reference/rest/v1/reservationSubBlocks). Each pool takes
  # the first sub-block with room left for it (first fit, largest first), and is created in it:
  # --reservation=NAME/reservationBlocks/BLOCK/reservationSubBlocks/SUB, the path xpk gives
  # `gcloud container node-pools create` (reservation.py to_reservation_path, capacity.py@367c838).
  read -r -a pool_sizes <<<"$POOL_SUB_BLOCK_NODES"
  if [[ " ${pool_sizes[*]} " == *[1-9]* ]]; then
    names=() room=() free=()
    for block in $(gcloud compute reservations blocks list "$RESERVATION" --project="$PROJECT" \
      --zone="$ZONE" --format='value(name)'); do
      while IFS=, read -r name count in_use; do
        names+=("$block/$name") room+=($((count - in_use)))
        free+=("$block/$name: $((count - in_use)) of $count")
      done < <(gcloud compute reservations sub-blocks list "$RESERVATION" --block-name="$block" \
        --project="$PROJECT" --zone="$ZONE" --filter='healthInfo.healthStatus=HEALTHY' \
        --format='csv[no-heading](name,count,inUseCount)')
    done
    while read -r size pool; do
      fits=""
      for i in "${!names[@]}"; do
        if ((room[i] >= size)); then
          fits=${names[i]} room[i]=$((room[i] - size))
          break
        fi
      done
      [[ -n $fits ]] || die "no healthy sub-block of reservation $RESERVATION has $size free hosts left" \
        "for a group's workers (pools' groups: $POOL_SUB_BLOCK_NODES; free: ${free[*]:-none listed});" \
        "lower its replicas or use another reservation"
      sub_block[pool]="$RESERVATION/reservationBlocks/${fits%%/*}/reservationSubBlocks/${fits#*/}"
      log "sub-block $fits of reservation $RESERVATION holds a group's $size workers"
    done < <(for i in "${!pool_sizes[@]}"; do echo "${pool_sizes[i]} $i"; done | sort -k1,1nr -k2,2n | grep -v '^0 ')
  fi
fi
inputs_checked
if [[ $CLUSTER_MODE == autopilot ]]; then
  log "Autopilot: GPU nodes come from the pods' requests; no node pool to create"
  exit 0
fi
# The group's capacity decides its pool's flags and its workers' selectors (facts/capacity.py),
# so a pod never asks for a kind of node its pool does not make. Each pool autoscales from 0.
read -r -a pools <<<"$GPU_POOLS"
mapfile -t pool_flags <<<"$GPU_POOL_FLAGS"

# GKE's DRANET page creates the pool with `gcloud beta` (facts/networks.py); its flags are in
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

# Each line of GPU_POOL_FLAGS: the group's machine (type, GPUs and driver, disk), then its capacity.
for i in "${!pools[@]}"; do
  read -r -a group_flags <<<"${pool_flags[i]}"
  if [[ -n ${sub_block[i]:-} ]]; then  # the sub-block found above, in place of the whole reservation
    for j in "${!group_flags[@]}"; do
      [[ ${group_flags[j]} != "--reservation=$RESERVATION" ]] || group_flags[j]="--reservation=${sub_block[i]}"
    done
  fi
  ensure "node pool ${pools[i]}" gcloud container node-pools describe "${pools[i]}" --cluster="$CLUSTER" \
    --project="$PROJECT" --location="$REGION" -- \
    "${create[@]}" "${pools[i]}" --cluster="$CLUSTER" --project="$PROJECT" \
    --location="$REGION" --node-locations="$ZONE" "${group_flags[@]}" "${networks[@]}" "${placement[@]}"
done
