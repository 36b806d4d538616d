#!/usr/bin/env bash
# Step 2: the GKE cluster.
# Creates: cluster CLUSTER. Standard: Workload Identity, Ray operator and GCS FUSE add-ons,
# multi-networking, dataplane v2, and a CPU pool sized from the values (cluster.cpuMachineType,
# cpuNodeCount, cpuDiskSizeGb; `verl-grpo check` packs the head, data-prep and submitter pods onto
# it). Autopilot: the same features, nodes come from the pods' requests. Then checks that the Ray
# add-on's CRDs are those of kuberay.version. Needs kubectl.
# Variables: PROJECT, REGION, ZONE, CLUSTER (required).
#   GKE_VERSION (default: the newest of RELEASE_CHANNEL), like 1.33.5-gke.1162000, one the channel
#   offers in REGION, and at least the floor of the profile's features (MIN_GKE_VERSION from
#   verl-grpo env).
#   RELEASE_CHANNEL (default: regular): rapid, regular, stable or extended.
#   KUBERAY_CRD_POLL_S (default: 15): seconds between 20 looks for the add-on's CRDs.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
start_step "$@"
check_cluster_name
require_tools kubectl
# The floor is the highest minimum over the features the profile uses (data/gke-features.yaml).
RELEASE_CHANNEL=${RELEASE_CHANNEL:-regular}
[[ $RELEASE_CHANNEL =~ ^(rapid|regular|stable|extended)$ ]] ||
  bad RELEASE_CHANNEL "allowed: rapid, regular, stable, extended"
# What the channel offers in the region (get-server-config lists channels.validVersions): a version it
# does not offer fails `clusters create` after the networks exist. A dry run without credentials
# cannot ask, and prints the create with what it was given.
if offered=$(gcloud container get-server-config --project="$PROJECT" --location="$REGION" \
  --flatten=channels --filter="channels.channel=${RELEASE_CHANNEL^^}" \
  --format='value(channels.validVersions)' 2>/dev/null); then
  offered=$(tr ';' '\n' <<<"$offered" | sed '/^$/d' | sort -V)
  [[ -n $offered ]] || die "no GKE version listed for RELEASE_CHANNEL=$RELEASE_CHANNEL in $REGION; set another channel ($SETTINGS_DOC)"
elif [[ $DRY_RUN == true ]]; then
  offered=""
  log "--dry-run: GKE's versions in $REGION not read (no credentials): GKE_VERSION is not checked against them"
else
  die "cannot list GKE's versions in $REGION: gcloud container get-server-config failed"
fi
if [[ -z ${GKE_VERSION:-} ]]; then
  GKE_VERSION=$(tail -n1 <<<"$offered")
  if [[ -n $GKE_VERSION ]]; then
    log "GKE_VERSION=$GKE_VERSION (newest in the $RELEASE_CHANNEL channel)"
  else
    GKE_VERSION=$MIN_GKE_VERSION
    log "--dry-run: GKE_VERSION=$GKE_VERSION shown (the floor); the run takes the channel's newest"
  fi
fi
[[ $GKE_VERSION =~ ^[0-9]+\.[0-9]+\.[0-9]+-gke\.[0-9]+$ ]] || bad GKE_VERSION "is not like 1.33.5-gke.1162000"
version_at_least "$GKE_VERSION" "$MIN_GKE_VERSION" ||
  bad GKE_VERSION "is below $MIN_GKE_VERSION, needed by $MIN_GKE_FEATURE"
[[ -z $offered ]] || grep -qxF "$GKE_VERSION" <<<"$offered" ||
  bad GKE_VERSION "is not offered in the $RELEASE_CHANNEL channel in $REGION (newest: $(tail -n3 <<<"$offered" | paste -sd' '))"
inputs_checked

describe=(gcloud container clusters describe "$CLUSTER" --project="$PROJECT" --location="$REGION")
if [[ $CLUSTER_MODE == autopilot ]]; then
  # No --workload-policies=allow-net-admin: it lets workloads add NET_ADMIN (GKE API
  # WorkloadPolicyConfig.allowNetAdmin), which no pod of the chart asks for (constructs/pod_security.py),
  # nor do Google's Autopilot RDMA pods (container-engine-accelerators@992db81
  # gpudirect-rdma/nccl-test-a4-autopilot.yaml: no securityContext).
  ensure "cluster $CLUSTER" "${describe[@]}" -- \
    gcloud container clusters create-auto "$CLUSTER" --project="$PROJECT" --location="$REGION" \
    --cluster-version="$GKE_VERSION" --release-channel="$RELEASE_CHANNEL" --enable-ray-operator \
    --enable-multi-networking
else
  ensure "cluster $CLUSTER" "${describe[@]}" -- \
    gcloud container clusters create "$CLUSTER" --project="$PROJECT" --location="$REGION" \
    --node-locations="$ZONE" --cluster-version="$GKE_VERSION" --release-channel="$RELEASE_CHANNEL" \
    --workload-pool="$PROJECT.svc.id.goog" \
    --addons=RayOperator,GcsFuseCsiDriver --enable-multi-networking --enable-dataplane-v2 \
    --machine-type="$CPU_MACHINE_TYPE" --num-nodes="$CPU_NODE_COUNT" --disk-size="$CPU_DISK_SIZE_GB"
  # The Ray head's nodeSelector names this pool; create it only when it is not the default pool.
  if [[ $CPU_NODE_POOL != default-pool ]]; then
    ensure "node pool $CPU_NODE_POOL" gcloud container node-pools describe "$CPU_NODE_POOL" --cluster="$CLUSTER" \
      --project="$PROJECT" --location="$REGION" -- \
      gcloud container node-pools create "$CPU_NODE_POOL" --cluster="$CLUSTER" --project="$PROJECT" \
      --location="$REGION" --node-locations="$ZONE" --machine-type="$CPU_MACHINE_TYPE" \
      --num-nodes="$CPU_NODE_COUNT" --disk-size="$CPU_DISK_SIZE_GB"
  fi
fi

# GKE's Ray add-on names no KubeRay version; its CRDs' fields do (facts/kuberay_crds.py). The
# chart renders for kuberay.version, so another operator is refused here, before any GPU pool.
run gcloud container clusters get-credentials "$CLUSTER" --project="$PROJECT" --location="$REGION"
if [[ $DRY_RUN == true ]]; then
  log "would check the cluster's KubeRay CRDs against kuberay.version"
else
  crds=""
  # The add-on installs its CRDs shortly after the cluster is up.
  for _ in {1..20}; do
    crds=$(kubectl get crd rayclusters.ray.io rayjobs.ray.io -o yaml 2>/dev/null) && break
    crds=""
    sleep "${KUBERAY_CRD_POLL_S:-15}"
  done
  [[ -n $crds ]] || die "cluster $CLUSTER has no KubeRay CRDs: enable GKE's Ray add-on (gcloud container clusters update $CLUSTER --update-addons=RayOperator=ENABLED)"
  "${VERL_GRPO:-$REPO_DIR/.venv/bin/verl-grpo}" check --profile "$PROFILE" ${NAMESPACE:+-n "$NAMESPACE"} \
    "${VALUES_ARGS[@]}" --cluster-crds - <<<"$crds" >&2 || exit 1 # it has said why, one line per problem
  log "the cluster's KubeRay CRDs match kuberay.version"
fi
