#!/usr/bin/env bash
# Step 6 (optional; up.sh runs it when MODEL_SOURCE_DIR is set): data from this machine.
# Creates: objects in the bucket: the model, verl's release (its PyPI wheel and GSM8K script, each
# checked against its sha256) and the GSM8K parquet files at the paths the job reads, each folder with
# its completion marker last.
# Variables: PROJECT, REGION, ZONE (required). MODEL_SOURCE_DIR (required): a local copy of the
# model. GSM8K_DIR (required): train.parquet and test.parquet from verl's
# examples/data_preprocess/gsm8k.py. VERL_SOURCE_DIR (default: the release, downloaded and checked).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
start_step "$@"
require MODEL_SOURCE_DIR GSM8K_DIR
[[ -f $MODEL_SOURCE_DIR/config.json ]] || bad MODEL_SOURCE_DIR "has no config.json"
for split in train test; do
  [[ -f $GSM8K_DIR/$split.parquet ]] || bad GSM8K_DIR "has no $split.parquet"
done
[[ -z ${VERL_SOURCE_DIR:-} || -d ${VERL_SOURCE_DIR:-} ]] || bad VERL_SOURCE_DIR "is not a folder"
[[ -n ${VERL_SOURCE_DIR:-} ]] || require_tools curl sha256sum python3
inputs_checked

# Each folder gets the marker ($MARKER) last, as the data-prep Job writes it: the job's pre-flight
# waits for it, and a re-run after an interrupted upload finishes the folder instead of skipping it.
marker_file=$(mktemp)
trap 'rm -f "$marker_file"' EXIT
date -u +%FT%TZ >"$marker_file"
complete() { exists gcloud storage ls "gs://$BUCKET/$1/$MARKER"; }
fetch() { # fetch URL SHA256 FILE: the file at URL, kept only with that sha256 (data/verl/<version>.yaml)
  run curl --fail --silent --show-error --location --retry 3 --output "$3" "$1"
  [[ $DRY_RUN == true ]] || echo "$2  $3" | sha256sum --check --status ||
    die "$1 has sha256 $(sha256sum "$3" | cut -d' ' -f1), not $2: not the verl $VERL_VERSION this kit checks"
}
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
    download=$(mktemp -d)
    trap 'rm -rf "$download" "$marker_file"' EXIT
    fetch "$VERL_WHEEL_URL" "$VERL_WHEEL_SHA256" "$download/verl.whl"
    fetch "$GSM8K_SCRIPT_URL" "$GSM8K_SCRIPT_SHA256" "$download/gsm8k.py"
    source_dir=$download/verl
    run python3 -m zipfile -e "$download/verl.whl" "$source_dir"
    run mkdir -p "$source_dir/examples/data_preprocess"
    run cp "$download/gsm8k.py" "$source_dir/examples/data_preprocess/gsm8k.py"
  fi
  upload "$source_dir" "$VERL_DIR"
fi

if complete "$DATA_DIR"; then log "data gs://$BUCKET/$DATA_DIR is complete"; else upload "$GSM8K_DIR" "$DATA_DIR"; fi
