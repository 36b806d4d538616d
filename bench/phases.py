"""Where `verl-grpo generate`'s time goes, phase by phase, in one process (medians of N runs, each
in a fresh interpreter, since most of the cost is paid once per process).

.venv/bin/python bench/phases.py --runs 5 [--cold]   # --cold: an empty cache folder (cache.py)
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
ONE_RUN = """
import json, sys, time
from pathlib import Path
laps, last = {}, time.perf_counter()
def lap(name):
    global last
    now = time.perf_counter(); laps[name] = now - last; last = now
from verl_grpo import pipeline
from verl_grpo.constructs.app import render
from verl_grpo.profiles import shipped_profiles
from verl_grpo.output.atomic import TreeWrite, write_trees
from verl_grpo.chart.files import chart_files
from verl_grpo.output.dist import dist_files, dist_layer
from verl_grpo.output.overlays import overlay_files
from verl_grpo.verl_check import training_problems
import cdk8s
lap("import verl_grpo and cdk8s (jsii's node kernel)")
specs = {p.name: pipeline.load_spec(dist_layer(p)) for p in shipped_profiles()}
lap(f"values + rules, {len(specs)} profiles")
for spec in specs.values():
    training_problems(spec)
lap(f"verl checks, {len(specs)} profiles")
rendered = render(specs)
lap(f"objects through cdk8s (constructs), {len(specs)} profiles")
app = cdk8s.App()
for name, objects in rendered.items():
    chart = cdk8s.Chart(app, name, disable_resource_name_hashes=True)
    for i, o in enumerate(objects):
        m = o.manifest
        api = cdk8s.ApiObject(
            chart, f"o{i}", api_version=m["apiVersion"], kind=m["kind"], metadata=m["metadata"]
        )
        for key, value in m.items():
            if key not in ("apiVersion", "kind", "metadata"):
                api.add_json_patch(cdk8s.JsonPatch.add(f"/{key}", value))
    chart.to_json()
lap(BARE)
problems = pipeline._invalid(rendered)
lap("validation of the output")
chart = chart_files()
lap("chart (one chart-mode rendering through cdk8s, templates, values, schema)")
overlays = overlay_files()
lap("overlays")
dist = dist_files({n: pipeline.Rendering(specs[n], rendered[n]) for n in specs})
lap("dist/ files (YAML dump)")
root = Path(sys.argv[1])
trees = {"dist": dist, "charts/verl-grpo": chart.files, "overlays": overlays}
write_trees(root, {path: TreeWrite(files) for path, files in trees.items()})
lap("file writes, new trees (stage + swap)")
write_trees(root, {path: TreeWrite(files) for path, files in trees.items()})
lap(UNCHANGED)
print(json.dumps(laps))
"""
# The last lap writes the same trees again: what a rerun over current output costs instead of
# the writes (compared, nothing written). Not in the total, which is a run into empty folders.
UNCHANGED = "file writes, trees already current (compared only; not in the total)"
# The baseline: a bare cdk8s synth of the same objects (plain ApiObjects from the manifests), in
# the same run; not in the total. generate's total against it is the ratio the table ends with.
BARE = "bare cdk8s synth of the same objects (baseline; not in the total)"
ONE_RUN = f"UNCHANGED = {UNCHANGED!r}\nBARE = {BARE!r}\n" + ONE_RUN


def table(runs: int, cold: bool) -> str:
    laps = []
    for _ in range(runs):
        with tempfile.TemporaryDirectory() as tmp:
            env = {**os.environ, "JSII_SILENCE_WARNING_END_OF_LIFE_NODE_VERSION": "20"}
            if cold:
                env["XDG_CACHE_HOME"] = f"{tmp}/cache"
            done = subprocess.run(
                [sys.executable, "-c", ONE_RUN, f"{tmp}/out"],
                env=env,
                cwd=REPO,
                check=True,
                capture_output=True,
            )
            laps.append(json.loads(done.stdout.decode().strip().splitlines()[-1]))
    lines = [f"| phase ({'cold' if cold else 'warm'} cache, median of {runs}) | s |", "|---|---:|"]
    lines += [f"| {phase} | {statistics.median(r[phase] for r in laps):.3f} |" for phase in laps[0]]
    totals = [sum(s for phase, s in r.items() if phase not in (UNCHANGED, BARE)) for r in laps]
    lines.append(f"| total | {statistics.median(totals):.3f} |")
    ratio = statistics.median(t / r[BARE] for t, r in zip(totals, laps, strict=True))
    lines.append(f"| total / bare cdk8s synth (median of the runs' ratios) | {ratio:.1f}x |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--cold", action="store_true", help="every run with an empty cache folder")
    args = parser.parse_args()
    print(table(args.runs, args.cold))


if __name__ == "__main__":
    main()
