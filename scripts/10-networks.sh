#!/usr/bin/env bash
# Step 1: the networks.
# Creates: the gVNIC VPC <network.prefix>-gvnic-net, its subnet and internal firewall rule; the RDMA
# VPC <network.prefix>-rdma-net on the zone's RoCE profile with a subnet per RDMA NIC of the machine
# (8 on A4 and A3 Ultra, 4 on A4X). Ranges are /24s cut in NIC order from one /16, 10.100.0.0/16
# (verl-grpo env: GVNIC_RANGE, RDMA_RANGES), so they never overlap. With network.rdma dranet: nothing (the GPU pool's accelerator network
# profile makes its networks, facts/networks.py).
# Variables: PROJECT, REGION, ZONE (required).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
start_step "$@"
inputs_checked
if [[ $RDMA_MODE == dranet ]]; then
  log "network.rdma=dranet: the GPU pool's accelerator network profile makes the RDMA networks; nothing to create"
  exit 0
fi

ensure "network $GVNIC_VPC" gcloud compute networks describe "$GVNIC_VPC" --project="$PROJECT" -- \
  gcloud compute networks create "$GVNIC_VPC" --project="$PROJECT" --subnet-mode=custom --mtu=8244
ensure "subnet $GVNIC_SUBNET" gcloud compute networks subnets describe "$GVNIC_SUBNET" --project="$PROJECT" --region="$REGION" -- \
  gcloud compute networks subnets create "$GVNIC_SUBNET" --project="$PROJECT" --region="$REGION" \
  --network="$GVNIC_VPC" --range="$GVNIC_RANGE"
ensure "firewall $GVNIC_VPC-internal" gcloud compute firewall-rules describe "$GVNIC_VPC-internal" --project="$PROJECT" -- \
  gcloud compute firewall-rules create "$GVNIC_VPC-internal" --project="$PROJECT" --network="$GVNIC_VPC" \
  --action=ALLOW --rules=tcp:0-65535,udp:0-65535,icmp --source-ranges="$NETWORK_BASE"

# The RoCE network profile is zonal: ZONE-vpc-roce, never the region.
ensure "network $RDMA_VPC" gcloud compute networks describe "$RDMA_VPC" --project="$PROJECT" -- \
  gcloud compute networks create "$RDMA_VPC" --project="$PROJECT" --network-profile="$ZONE-vpc-roce" \
  --subnet-mode=custom --mtu=8896
read -r -a subnets <<<"$RDMA_SUBNETS"
read -r -a ranges <<<"$RDMA_RANGES"
for i in "${!subnets[@]}"; do
  ensure "subnet ${subnets[$i]}" gcloud compute networks subnets describe "${subnets[$i]}" --project="$PROJECT" --region="$REGION" -- \
    gcloud compute networks subnets create "${subnets[$i]}" --project="$PROJECT" --region="$REGION" \
    --network="$RDMA_VPC" --range="${ranges[$i]}"
done
