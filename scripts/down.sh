#!/usr/bin/env bash
# Delete, in reverse order, everything up.sh created: the GPU node pool, the cluster, A4X's workload
# policy, the identities' grants on the bucket, both VPCs with their subnets and firewall rule. The
# bucket (model, data, checkpoints: days of GPU time) stays unless DELETE_BUCKET=true. Says exactly
# what it will delete, then asks (--yes skips the question only).
# Variables: PROJECT, REGION, ZONE, CLUSTER (required). DELETE_BUCKET (default: false): true also
# deletes the bucket with everything in it. KEEP_BUCKET: refused (an earlier release deleted the
# bucket unless it was true; now the bucket stays by default).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
start_step "$@"
check_cluster_name
[[ -z ${KEEP_BUCKET:-} ]] || bad KEEP_BUCKET "no longer read: the bucket is kept unless DELETE_BUCKET=true"
DELETE_BUCKET=${DELETE_BUCKET:-false}
[[ $DELETE_BUCKET == true || $DELETE_BUCKET == false ]] || bad DELETE_BUCKET "allowed: true, false"
if [[ $DELETE_BUCKET == true ]]; then
  bucket_fate="DELETE bucket gs://$BUCKET with everything in it (model, data, checkpoints)"
else
  bucket_fate="KEEP bucket gs://$BUCKET and its data (DELETE_BUCKET=true deletes it)"
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
if [[ $DELETE_BUCKET == true ]]; then
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
