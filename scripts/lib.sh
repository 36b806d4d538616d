#!/usr/bin/env bash
# Shared by every step script: flags, settings from `verl-grpo env`, and run/exists/require.
# Sourced, not run. Steps read like the tutorial: one gcloud or kubectl call per step, guarded.
set -euo pipefail

SCRIPTS_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO_DIR=$(cd "$SCRIPTS_DIR/.." && pwd)
DRY_RUN=false
ASSUME_YES=false
CHECK_ONLY=false
VALUES_ARGS=()
# Where README.md explains the settings and the prerequisites: errors point there.
SETTINGS_DOC="README.md, section 'Script settings'"
PREREQUISITES_DOC="README.md, section 'Prerequisites'"

# --help: the script's own header (what it creates, its variables), then the flags all share.
usage() {
  sed -n '2,/^set -euo pipefail/{/^#/s/^# \{0,1\}//p}' "$0"
  cat <<USAGE

Flags: --dry-run (print commands, change nothing)  --check (check every input, call nothing that
       creates or bills, exit)  --yes (do not ask)
       --profile NAME (default: \$PROFILE, else the one your values describe; b200-standard when
       they set none)  -f/--values FILE
       -n/--namespace NS (default: \$NAMESPACE or default): the release's namespace (helm -n NS);
       the bucket grants name its service accounts (ns/NS/sa/...)
       --set, --set-string, --set-json, --set-file, --set-literal KEY=VALUE (as helm)
Every script reads PROJECT, REGION, ZONE (required; ZONE may come from cluster.zone) and the
values (bucket, network prefix, capacity: verl-grpo env). Details: $SETTINGS_DOC.
USAGE
}

parse_flags() {
  while (($#)); do
    case "$1" in
      --dry-run) DRY_RUN=true ;;
      --yes) ASSUME_YES=true ;;
      --check) CHECK_ONLY=true ;;
      --profile)
        # The environment's PROFILE (README's export) against the flag: say so, do not pick one silently.
        [[ -z ${PROFILE:-} || $PROFILE == "$2" ]] ||
          die "--profile $2 differs from PROFILE=$PROFILE in the environment: unset PROFILE or drop --profile"
        PROFILE=$2
        shift
        ;;
      -n | --namespace)
        [[ -z ${NAMESPACE:-} || $NAMESPACE == "$2" ]] ||
          die "$1 $2 differs from NAMESPACE=$NAMESPACE in the environment: unset NAMESPACE or drop $1"
        NAMESPACE=$2
        shift
        ;;
      -f | --values) VALUES_ARGS+=(-f "$2"); shift ;;
      --set | --set-string | --set-json | --set-file | --set-literal) VALUES_ARGS+=("$1" "$2"); shift ;;
      -h | --help) usage; exit 0 ;;
      *) echo "error: unknown flag $1 (--help lists them)" >&2; exit 2 ;;
    esac
    shift
  done
}

log() { printf '==> %s\n' "$*" >&2; }
die() { printf 'error: %s\n' "$*" >&2; exit 1; }
# bad VAR WHY: a setting the user gave is wrong; names it, its value and where it is explained.
bad() { die "$1=${!1:-}: $2 ($SETTINGS_DOC)"; }

# require VAR... : every missing variable named at once, before any cloud call.
require() {
  local missing=() name
  for name in "$@"; do
    [[ -n ${!name:-} ]] || missing+=("$name")
  done
  ((${#missing[@]} == 0)) || die "set ${missing[*]} ($SETTINGS_DOC)"
}

# require_tools CMD...: each on PATH, or one line naming it (not bash's "command not found" later).
require_tools() {
  local tool
  for tool in "$@"; do
    command -v "$tool" >/dev/null || die "$tool is not on PATH: install it ($PREREQUISITES_DOC)"
  done
}

# gcloud with an account that can get a token; checked once per run of up.sh.
# --dry-run prints every command without them: its reads then count as finding nothing.
require_credentials() {
  [[ ${VERL_CREDENTIALS_CHECKED:-} == "$PROJECT" ]] && return 0
  if [[ $DRY_RUN == true ]]; then
    gcloud auth print-access-token --quiet >/dev/null 2>&1 ||
      log "--dry-run without gcloud credentials: every resource reads as absent, so every create is printed"
    export VERL_CREDENTIALS_CHECKED=$PROJECT
    return 0
  fi
  gcloud auth print-access-token --quiet >/dev/null 2>&1 ||
    die "gcloud has no usable credentials: run gcloud auth login ($PREREQUISITES_DOC)"
  export VERL_CREDENTIALS_CHECKED=$PROJECT
}

# inputs_checked: every input of this step is checked; with --check, stop before the first call
# that creates or bills anything (up.sh checks all steps this way before running any).
inputs_checked() {
  [[ $CHECK_ONLY == true ]] || return 0
  log "$(basename "$0"): inputs ok"
  exit 0
}

# Settings the manifests use come from the same values: never typed twice. up.sh computes them
# once and hands them to each step in VERL_ENV.
settings_env() {
  # No PROFILE: the one the values describe (`verl-grpo env` prints it), as every verb picks it.
  "${VERL_GRPO:-$REPO_DIR/.venv/bin/verl-grpo}" env ${PROFILE:+--profile "$PROFILE"} \
    ${NAMESPACE:+-n "$NAMESPACE"} "${VALUES_ARGS[@]}" || exit 1 # it has said why, one line per problem
}

# CAPACITY and RESERVATION used to be environment settings: they now come from the values
# (cluster.capacity, cluster.reservation), which also decide the pods' selectors.
load_settings() {
  local asked_capacity=${CAPACITY:-} asked_reservation=${RESERVATION:-}
  [[ -n ${VERL_ENV:-} ]] || VERL_ENV=$(settings_env)
  eval "$VERL_ENV"
  [[ -z $asked_capacity || $asked_capacity == "$CAPACITY" ]] ||
    die "CAPACITY=$asked_capacity differs from cluster.capacity=$CAPACITY: set it in the values (--set cluster.capacity=$asked_capacity; $SETTINGS_DOC)"
  [[ -z $asked_reservation || $asked_reservation == "$RESERVATION" ]] ||
    die "RESERVATION=$asked_reservation differs from cluster.reservation='$RESERVATION': set it in the values ($SETTINGS_DOC)"
}

# Every step begins the same way: flags, tools, settings from the values, location, credentials.
start_step() {
  parse_flags "$@"
  require_tools gcloud
  load_settings
  check_location
  require_credentials
}

# The checks that would otherwise fail minutes into a cloud operation. The GPU zone may come from
# the values (cluster.zone, which pins Autopilot workers); ZONE must then agree with it.
check_location() {
  if [[ -n ${VALUES_ZONE:-} ]]; then
    ZONE=${ZONE:-$VALUES_ZONE}
    [[ $ZONE == "$VALUES_ZONE" ]] || bad ZONE "differs from cluster.zone=$VALUES_ZONE in the values"
  fi
  require PROJECT REGION ZONE
  [[ $REGION =~ ^[a-z]+-[a-z]+[0-9]+$ ]] || bad REGION "is not a region like us-central1"
  [[ $ZONE == "$REGION"-? ]] || bad ZONE "is not in REGION=$REGION (expected $REGION-a, -b, ...)"
  [[ $PROJECT =~ ^[a-z][-a-z0-9]{4,28}[a-z0-9]$ ]] || bad PROJECT "is not a GCP project id"
}

check_cluster_name() {
  require CLUSTER
  [[ $CLUSTER =~ ^[a-z]([-a-z0-9]{0,38}[a-z0-9])?$ ]] || bad CLUSTER "lowercase letters, digits, '-', at most 40"
}

# version_at_least A B: A >= B for GKE versions like 1.32.2-gke.1475000.
version_at_least() {
  [[ $(printf '%s\n%s\n' "$2" "$1" | sort -V | head -n1) == "$2" ]]
}

mask() {
  local arg out=()
  for arg in "$@"; do
    case "$arg" in
      --from-literal=*) out+=("--from-literal=***") ;;
      *) out+=("$arg") ;;
    esac
  done
  printf '%q ' "${out[@]}"
}

# run CMD...: print it (secrets masked); execute unless --dry-run.
run() {
  printf '+ %s\n' "$(mask "$@")" >&2
  [[ $DRY_RUN == true ]] && return 0
  "$@"
}

# exists CMD...: a describe/get that answers true or false, quietly.
exists() { "$@" >/dev/null 2>&1; }

# guarded absent|present WHAT DESCRIBE... -- CMD...: run CMD when the describe says WHAT is
# absent (to create it) or present (to delete it); otherwise say why nothing was done.
guarded() {
  local when=$1 what=$2 describe=() found=false
  shift 2
  while [[ $1 != -- ]]; do describe+=("$1"); shift; done
  shift
  exists "${describe[@]}" && found=true
  if [[ $when == absent && $found == false ]] || [[ $when == present && $found == true ]]; then
    run "$@"
  elif [[ $found == true ]]; then
    log "$what exists"
  else
    log "$what already gone"
  fi
}

ensure() { guarded absent "$@"; }
remove() { guarded present "$@"; }

# wi_member [KSA]: the Workload Identity principal of a Kubernetes service account (default: the
# training one) in NAMESPACE.
wi_member() {
  local number
  number=$(gcloud projects describe "$PROJECT" --format='value(projectNumber)')
  printf 'principal://iam.googleapis.com/projects/%s/locations/global/workloadIdentityPools/%s.svc.id.goog/subject/ns/%s/sa/%s' \
    "$number" "$PROJECT" "$NAMESPACE" "${1:-$KSA_NAME}"
}

# What each identity may do with the bucket, least privilege: every one reads it (objectViewer on
# the bucket: objects and listings); the training pods write only the checkpoint folder (runs,
# checkpoints, logs), the data-prep Job only the model, data and verl folders. Writes are granted
# on managed folders (roles on a folder and what is below it; they need uniform bucket-level
# access, which the bucket has: https://cloud.google.com/storage/docs/managed-folders), not with
# IAM conditions on object names, which also cover no listing and no HNS folder.
# Lines: KSA ROLE FOLDER ("" is the whole bucket).
bucket_grants() {
  printf '%s %s %s\n' \
    "$KSA_NAME" roles/storage.objectViewer "" \
    "$KSA_NAME" roles/storage.objectUser "$CHECKPOINT_DIR" \
    "$DATA_PREP_KSA" roles/storage.objectViewer "" \
    "$DATA_PREP_KSA" roles/storage.objectUser "$MODEL_DIR" \
    "$DATA_PREP_KSA" roles/storage.objectUser "$DATA_DIR" \
    "$DATA_PREP_KSA" roles/storage.objectUser "$VERL_DIR"
}

# grant_target FOLDER: the gcloud group and resource a grant goes to.
grant_target() {
  if [[ -z $1 ]]; then printf 'buckets gs://%s' "$BUCKET"; else printf 'managed-folders gs://%s/%s/' "$BUCKET" "$1"; fi
}

# binds MEMBER ROLE FOLDER: whether that grant exists.
binds() {
  local group target
  read -r group target <<<"$(grant_target "$3")"
  gcloud storage "$group" get-iam-policy "$target" --project="$PROJECT" --format=json 2>/dev/null |
    python3 -c 'import json, sys; m, r = sys.argv[1:]; sys.exit(not any(b["role"] == r and m in b.get("members", []) for b in json.load(sys.stdin).get("bindings", [])))' "$1" "$2"
}

# confirm QUESTION: the question always shows (also with --yes, on stderr, piped or not).
confirm() {
  if [[ $ASSUME_YES == true || $DRY_RUN == true ]]; then
    log "$1 (--yes/--dry-run: not asking)"
    return 0
  fi
  local answer=""
  printf '%s [y/N] ' "$1" >&2
  read -r answer || true
  printf '\n' >&2
  [[ $answer == y || $answer == Y ]] || die "stopped"
}
