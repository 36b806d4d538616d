#!/usr/bin/env bash
# Step 6: model, verl source (pinned tag) and GSM8K parquet files to the paths the job reads.
# MODEL_SOURCE_DIR: a local copy of the model. GSM8K_DIR: train.parquet and test.parquet from
# verl's examples/data_preprocess/gsm8k.py. VERL_SOURCE_DIR: a checkout (default: clone the tag).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
start_step "$@"
require MODEL_SOURCE_DIR GSM8K_DIR
[[ -f $MODEL_SOURCE_DIR/config.json ]] || die "MODEL_SOURCE_DIR=$MODEL_SOURCE_DIR has no config.json"
for split in train test; do
  [[ -f $GSM8K_DIR/$split.parquet ]] || die "GSM8K_DIR=$GSM8K_DIR has no $split.parquet"
done

ensure "model gs://$BUCKET/$MODEL_DIR" gcloud storage ls "gs://$BUCKET/$MODEL_DIR/config.json" -- \
  gcloud storage rsync --recursive "$MODEL_SOURCE_DIR" "gs://$BUCKET/$MODEL_DIR"

if ! exists gcloud storage ls "gs://$BUCKET/$VERL_DIR/verl/__init__.py"; then
  source_dir=${VERL_SOURCE_DIR:-}
  if [[ -z $source_dir ]]; then
    source_dir=$(mktemp -d)
    trap 'rm -rf "$source_dir"' EXIT
    run git clone --quiet --depth=1 --branch="v$VERL_VERSION" https://github.com/verl-project/verl "$source_dir"
  fi
  run gcloud storage rsync --recursive --exclude='^\.git/' "$source_dir" "gs://$BUCKET/$VERL_DIR"
else
  log "verl source gs://$BUCKET/$VERL_DIR exists"
fi

ensure "data gs://$BUCKET/$DATA_DIR" gcloud storage ls "gs://$BUCKET/$DATA_DIR/test.parquet" -- \
  gcloud storage rsync --recursive "$GSM8K_DIR" "gs://$BUCKET/$DATA_DIR"
