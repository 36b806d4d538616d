#!/usr/bin/env bash
# Usage: tools/compare_helm_output.sh [--semantic] REV
# `helm template` of the chart at git REV and of the working tree's chart, byte for byte (with
# --semantic: as sets of objects, names' digests aside, each difference printed by path), for
# every overlay under 16 perturbations (capacities, KubeRay version, switches, defaults
# overridden, another GPU or mode), plus dist/ and overlays/ against REV. Exit 1 on any difference
# but the `# Source:` comment helm writes before each object (it names the template file, which a
# restructuring may move an object to); those are counted apart.
set -euo pipefail
semantic=0
if [[ ${1:-} == --semantic ]]; then
  semantic=1
  shift
fi
rev=${1:?usage: $0 [--semantic] REV}
root=$(git rev-parse --show-toplevel)
helm=$root/.venv/bin/helm
old=$(mktemp -d)
git -C "$root" worktree add -q --detach "$old" "$rev"
perturbations=(
  "" "--set cluster.capacity=spot" "--set cluster.capacity=flex-start"
  "--set cluster.capacity=reservation --set cluster.reservation=res-a"
  "--set kuberay.version=1.5.1" "--set dataPrep.enabled=false" "--set network.createObjects=true"
  "--set-string worker.memory=100Gi" "--set-string worker.cpu=30" "--set-string storage.sidecar.cpuLimit=1"
  "--set job.submissionMode=HTTPMode" "--set run.name=other" "--set ray.version=2.46.0"
  "--set cluster.mode=autopilot --set cluster.zone=us-east5-a" "--set gpu.type=h200 --set run.kind=RayCluster"
  "--set job.ttlSecondsAfterFinished=60"
)
cd "$root"
# The bucket dist/ renders with (storage.bucket has no default), and on A4X a multi-arch image.
values=$(mktemp)
trap 'rm -f "$values"; git -C "$root" worktree remove --force "$old"' EXIT
printf 'storage: {bucket: replace-me-with-your-bucket}\n' >"$values"
count=0 differ=0 sources=0
for overlay in overlays/*/values.yaml; do
  for p in "${perturbations[@]}"; do
    count=$((count + 1))
    # shellcheck disable=SC2086  # each perturbation is several words
    before=$("$helm" template verl "$old/charts/verl-grpo" -n ns1 -f "$values" -f "$overlay" $p 2>&1 || true)
    # shellcheck disable=SC2086
    after=$("$helm" template verl charts/verl-grpo -n ns1 -f "$values" -f "$overlay" $p 2>&1 || true)
    if [[ "$before" == "$after" ]]; then
      continue
    elif [[ $semantic -eq 1 ]]; then
      if ! found=$("$root/.venv/bin/python" "$root/tools/compare_objects.py" <(echo "$before") <(echo "$after")); then
        differ=$((differ + 1))
        echo "differs: $overlay $p"
        echo "$found" | head -20
      fi
    elif [[ "$(grep -v '^# Source: ' <<<"$before")" == "$(grep -v '^# Source: ' <<<"$after")" ]]; then
      sources=$((sources + 1))
    else
      differ=$((differ + 1))
      echo "differs: $overlay $p"
      diff <(echo "$before") <(echo "$after") | head -20 || true
    fi
  done
done
generated=$(git diff --name-only "$rev" -- dist overlays ':!dist/*.tgz')
echo "$count helm renderings compared, $differ differ, $sources only in their # Source: comments; dist/ and overlays/ files changed since $rev: ${generated:-none}"
[[ $differ -eq 0 && -z "$generated" ]]
