#!/usr/bin/env bash
# From an empty project to a cluster that can run the job: every step, in order. Safe to re-run.
# Creates what 10-networks, 20-cluster, 30-gpu-pool, 40-rdma, 50-storage (and 60-data when
# MODEL_SOURCE_DIR is set) create: --help on each says what and which variables it reads.
# Every step's inputs are checked first (each step with --check): nothing that creates or bills
# anything runs before all of them pass.
# Variables: PROJECT, REGION, ZONE, CLUSTER (required); GKE_VERSION, RELEASE_CHANNEL (20-cluster);
# CAPACITY, RESERVATION (30-gpu-pool); HF_TOKEN_FILE (50-storage); MODEL_SOURCE_DIR, GSM8K_DIR,
# VERL_SOURCE_DIR (60-data).
set -euo pipefail
here=$(dirname "${BASH_SOURCE[0]}")
source "$here/lib.sh"
parse_flags "$@"
require_tools gcloud kubectl
# Settings once for all steps (each step would otherwise start verl-grpo env again).
VERL_ENV=$(settings_env)
export VERL_ENV
load_settings
check_location
require_credentials # once for every step (exported)
steps=(10-networks 20-cluster 30-gpu-pool 40-rdma 50-storage)
# The data-prep Job fills the bucket in the cluster (the default); upload from here only when
# a local copy of the model is given (60-data.sh, the alternative path).
if [[ -n ${MODEL_SOURCE_DIR:-} ]]; then steps+=(60-data); else log "data: the in-cluster data-prep Job fills the bucket"; fi
for step in "${steps[@]}"; do
  "$here/$step.sh" "$@" --check
done
[[ $CHECK_ONLY == true ]] && exit 0
for step in "${steps[@]}"; do
  printf '\n### %s\n' "$step" >&2
  "$here/$step.sh" "$@"
done
