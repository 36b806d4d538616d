#!/usr/bin/env bash
# From an empty project to a cluster that can run the job: every step, in order. Safe to re-run.
set -euo pipefail
here=$(dirname "${BASH_SOURCE[0]}")
source "$here/lib.sh"
parse_flags "$@"
# Settings once for all steps (each step would otherwise start verl-grpo env again).
VERL_ENV=$(settings_env)
export VERL_ENV
steps=(10-networks 20-cluster 30-gpu-pool 40-rdma 50-storage)
# The data-prep Job fills the bucket in the cluster (the default); upload from here only when
# a local copy of the model is given (60-data.sh, the alternative path).
if [[ -n ${MODEL_SOURCE_DIR:-} ]]; then steps+=(60-data); else log "data: the in-cluster data-prep Job fills the bucket"; fi
for step in "${steps[@]}"; do
  printf '\n### %s\n' "$step" >&2
  "$here/$step.sh" "$@"
done
