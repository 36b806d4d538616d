#!/usr/bin/env bash
# Delete, in reverse order, everything up.sh created: the GPU node pool, the cluster, A4X's workload
# policy, the bucket
# with everything in it and its IAM binding (unless KEEP_BUCKET=true), both VPCs with their subnets
# and firewall rule. Says exactly what it will delete, then asks (--yes skips the question only).
# Variables: PROJECT, REGION, ZONE, CLUSTER (required). KEEP_BUCKET (default: false): true keeps
# the bucket (model, data, checkpoints) and its IAM binding.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
start_step "$@"
check_cluster_name
KEEP_BUCKET=${KEEP_BUCKET:-false}
[[ $KEEP_BUCKET == true || $KEEP_BUCKET == false ]] || bad KEEP_BUCKET "allowed: true, false"
if [[ $KEEP_BUCKET == true ]]; then
  bucket_fate="KEEP bucket gs://$BUCKET and its data"
else
  bucket_fate="DELETE bucket gs://$BUCKET with everything in it (model, data, checkpoints; KEEP_BUCKET=true keeps it)"
fi
confirm "In project $PROJECT: delete cluster $CLUSTER, VPCs $GVNIC_VPC and $RDMA_VPC with their subnets and firewall rule, and $bucket_fate?"

location=(--project="$PROJECT" --location="$REGION")
if [[ $CLUSTER_MODE == standard ]]; then
  for pool in $GPU_POOLS; do
    remove "node pool $pool" gcloud container node-pools describe "$pool" --cluster="$CLUSTER" "${location[@]}" -- \
      gcloud container node-pools delete "$pool" --cluster="$CLUSTER" "${location[@]}" --quiet
  done
fi
remove "cluster $CLUSTER" gcloud container clusters describe "$CLUSTER" "${location[@]}" -- \
  gcloud container clusters delete "$CLUSTER" "${location[@]}" --quiet
# The workload policy is regional (https://cloud.google.com/sdk/gcloud/reference/compute/resource-policies/delete).
if [[ -n $WORKLOAD_POLICY ]]; then  # only once no pool uses it
  remove "workload policy $WORKLOAD_POLICY" gcloud compute resource-policies describe "$WORKLOAD_POLICY" \
    --project="$PROJECT" --region="$REGION" -- \
    gcloud compute resource-policies delete "$WORKLOAD_POLICY" --project="$PROJECT" --region="$REGION" --quiet
fi

# The identities' grants go with the cluster, also when the bucket stays.
if exists gcloud storage buckets describe "gs://$BUCKET" --project="$PROJECT"; then
  while read -r ksa role folder; do
    read -r group target <<<"$(grant_target "$folder")"
    member=$(wi_member "$ksa")
    if binds "$member" "$role" "$folder"; then
      run gcloud storage "$group" remove-iam-policy-binding "$target" --project="$PROJECT" \
        --member="$member" --role="$role"
    else
      log "$role for $ksa on $target already gone"
    fi
  done < <(bucket_grants)
fi
if [[ $KEEP_BUCKET == false ]]; then
  # rm --recursive deletes the objects, the managed folders (no --exclude-managed-folders) and the bucket.
  remove "bucket gs://$BUCKET" gcloud storage buckets describe "gs://$BUCKET" --project="$PROJECT" -- \
    gcloud storage rm --recursive "gs://$BUCKET"
fi

read -r -a subnets <<<"$RDMA_SUBNETS"
for subnet in "${subnets[@]}"; do
  remove "subnet $subnet" gcloud compute networks subnets describe "$subnet" --project="$PROJECT" --region="$REGION" -- \
    gcloud compute networks subnets delete "$subnet" --project="$PROJECT" --region="$REGION" --quiet
done
remove "network $RDMA_VPC" gcloud compute networks describe "$RDMA_VPC" --project="$PROJECT" -- \
  gcloud compute networks delete "$RDMA_VPC" --project="$PROJECT" --quiet
remove "firewall $GVNIC_VPC-internal" gcloud compute firewall-rules describe "$GVNIC_VPC-internal" --project="$PROJECT" -- \
  gcloud compute firewall-rules delete "$GVNIC_VPC-internal" --project="$PROJECT" --quiet
remove "subnet $GVNIC_SUBNET" gcloud compute networks subnets describe "$GVNIC_SUBNET" --project="$PROJECT" --region="$REGION" -- \
  gcloud compute networks subnets delete "$GVNIC_SUBNET" --project="$PROJECT" --region="$REGION" --quiet
remove "network $GVNIC_VPC" gcloud compute networks describe "$GVNIC_VPC" --project="$PROJECT" -- \
  gcloud compute networks delete "$GVNIC_VPC" --project="$PROJECT" --quiet
