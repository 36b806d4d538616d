#!/usr/bin/env bash
# Step 6 (optional; up.sh runs it when MODEL_SOURCE_DIR is set): data from this machine.
# Creates: objects in the bucket: the model, verl's source (pinned tag) and the GSM8K parquet files
# at the paths the job reads, each folder with its completion marker last.
# Variables: PROJECT, REGION, ZONE (required). MODEL_SOURCE_DIR (required): a local copy of the
# model. GSM8K_DIR (required): train.parquet and test.parquet from verl's
# examples/data_preprocess/gsm8k.py. VERL_SOURCE_DIR (default: a clone of the pinned tag).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
start_step "$@"
require MODEL_SOURCE_DIR GSM8K_DIR
[[ -f $MODEL_SOURCE_DIR/config.json ]] || bad MODEL_SOURCE_DIR "has no config.json"
for split in train test; do
  [[ -f $GSM8K_DIR/$split.parquet ]] || bad GSM8K_DIR "has no $split.parquet"
done
[[ -z ${VERL_SOURCE_DIR:-} || -d ${VERL_SOURCE_DIR:-} ]] || bad VERL_SOURCE_DIR "is not a folder"
[[ -n ${VERL_SOURCE_DIR:-} ]] || require_tools git
inputs_checked

# Each folder gets the marker ($MARKER) last, as the data-prep Job writes it: the job's pre-flight
# waits for it, and a re-run after an interrupted upload finishes the folder instead of skipping it.
marker_file=$(mktemp)
trap 'rm -f "$marker_file"' EXIT
date -u +%FT%TZ >"$marker_file"
complete() { exists gcloud storage ls "gs://$BUCKET/$1/$MARKER"; }
upload() { # upload SOURCE DIR: SOURCE to gs://BUCKET/DIR, then the marker
  run gcloud storage rsync --recursive --exclude='^\.git/' "$1" "gs://$BUCKET/$2"
  run gcloud storage cp "$marker_file" "gs://$BUCKET/$2/$MARKER"
}

if complete "$MODEL_DIR"; then log "model gs://$BUCKET/$MODEL_DIR is complete"; else upload "$MODEL_SOURCE_DIR" "$MODEL_DIR"; fi

if complete "$VERL_DIR"; then
  log "verl source gs://$BUCKET/$VERL_DIR is complete"
else
  source_dir=${VERL_SOURCE_DIR:-}
  if [[ -z $source_dir ]]; then
    source_dir=$(mktemp -d)
    trap 'rm -rf "$source_dir" "$marker_file"' EXIT
    run git clone --quiet --depth=1 --branch="v$VERL_VERSION" https://github.com/verl-project/verl "$source_dir"
    if [[ $DRY_RUN == false ]]; then
      commit=$(git -C "$source_dir" rev-parse HEAD)
      [[ $commit == "$VERL_COMMIT" ]] || die "verl v$VERL_VERSION is commit $commit, not $VERL_COMMIT (facts/pins.py)"
    fi
  fi
  upload "$source_dir" "$VERL_DIR"
fi

if complete "$DATA_DIR"; then log "data gs://$BUCKET/$DATA_DIR is complete"; else upload "$GSM8K_DIR" "$DATA_DIR"; fi
