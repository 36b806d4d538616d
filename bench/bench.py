"""Whole-process timings, medians of N runs, with ratios against references run in the same session.

make bench            # or: .venv/bin/python bench/bench.py --runs 5
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import phases

REPO = Path(__file__).resolve().parent.parent
BIN = REPO / ".venv" / "bin"
PY = str(BIN / "python")
ENV = {
    **os.environ,
    "JSII_SILENCE_WARNING_END_OF_LIFE_NODE_VERSION": "20",
    "PATH": f"{BIN}:{os.environ['PATH']}",
}

PROFILES = sum(1 for p in (REPO / "dist").iterdir() if p.is_dir())
# A bucket name, as every deploying verb requires one (rule bucket-named).
SYNTH = [str(BIN / "verl-grpo"), "synth", "-f", str(REPO / "tests" / "dist-bucket.yaml")]
HELM_TEMPLATE = [
    str(BIN / "helm"),
    "template",
    "verl",
    "charts/verl-grpo",
    "-f",
    str(REPO / "tests" / "dist-bucket.yaml"),
]
GENERATE = [str(BIN / "verl-grpo"), "generate"]
BARE_CDK8S = """
import cdk8s
app = cdk8s.App()
chart = cdk8s.Chart(app, "c")
cdk8s.ApiObject(chart, "o", api_version="v1", kind="ConfigMap", metadata=cdk8s.ApiObjectMetadata(name="x"))
chart.to_json()
"""


FRESH = "{fresh}"  # in a command: a new empty folder for each run


def median_seconds(cmd: list[str], runs: int, cold_cache: bool = False, exit_code: int = 0) -> float:
    """Median wall time; cold_cache gives each run an empty cache folder (no cached CRD schemas)."""
    times = []
    for _ in range(runs):
        with tempfile.TemporaryDirectory() as cache:
            env = {**ENV, "XDG_CACHE_HOME": f"{cache}/xdg"} if cold_cache else ENV
            cmd = [part.replace(FRESH, f"{cache}/fresh") for part in cmd]
            start = time.perf_counter()
            done = subprocess.run(cmd, env=env, cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
            times.append(time.perf_counter() - start)
            if done.returncode != exit_code:
                raise SystemExit(
                    f"{' '.join(cmd)}: exit {done.returncode}, not {exit_code}\n{done.stderr.decode()}"
                )
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument(
        "--readme", action="store_true", help="also write the tables into docs/development.md"
    )
    args = parser.parse_args()
    out = io.StringIO()
    with contextlib.redirect_stdout(Tee(out)):
        measure(args.runs)
    if args.readme:
        readme = REPO / "docs" / "development.md"
        text = readme.read_text()
        head, _, rest = text.partition(BEGIN)
        _, _, tail = rest.partition(END)
        readme.write_text(f"{head}{BEGIN}\n{out.getvalue()}{END}{tail}")


BEGIN, END = "<!-- bench:begin (make bench writes this) -->", "<!-- bench:end -->"


class Tee(io.TextIOBase):
    def __init__(self, copy: io.StringIO) -> None:
        self.copy, self.out = copy, sys.stdout

    def write(self, text: str) -> int:
        self.copy.write(text)
        return self.out.write(text)


def verl_log(path: Path, steps: int) -> Path:
    """A verl console log: one `step:N - key:value ...` line per step among Ray's own lines."""
    lines = []
    for step in range(1, steps + 1):
        lines.append(f"(TaskRunner pid=1) Training Progress: {step}/{steps}")
        metrics = {
            "critic/score/mean": step / steps,
            "response_length/mean": 200.0 + step,
            "timing_s/step": 40.0,
        }
        lines.append(
            f"(TaskRunner pid=1) step:{step} - " + " - ".join(f"{k}:{v}" for k, v in metrics.items())
        )
    path.write_text("\n".join(lines) + "\n")
    return path


def measure(runs: int) -> None:
    args = argparse.Namespace(runs=runs)
    with tempfile.TemporaryDirectory() as tmp:
        log = verl_log(Path(tmp) / "verl.log", 1000)
        current = f"{tmp}/current"
        subprocess.run([*GENERATE, "--root", current], env=ENV, check=True, capture_output=True)
        cases = {
            "python -c 'import cdk8s'": [PY, "-c", "import cdk8s"],
            "bare cdk8s synth, 1 object (jsii floor)": [PY, "-c", BARE_CDK8S],
            f"verl-grpo synth ({PROFILES} profiles -> dist/)": [*SYNTH, "-o", f"{tmp}/dist"],
            # `make generate` in a checkout whose trees are current: rendered, compared, none written.
            "verl-grpo generate (main command; output current)": [*GENERATE, "--root", current],
            "verl-grpo generate into an empty folder (every file written)": [*GENERATE, "--root", FRESH],
            "verl-grpo synth, 1 profile": [
                *SYNTH,
                "--profile",
                "h200-standard",
                "-o",
                f"{tmp}/one",
            ],
            "helm template (chart defaults)": [*HELM_TEMPLATE],
            "helm template -f overlays/h200-standard/values.yaml": [
                *HELM_TEMPLATE,
                "-f",
                "overlays/h200-standard/values.yaml",
            ],
            "kubectl kustomize overlays/h200-standard": [
                str(BIN / "kubectl"),
                "kustomize",
                "overlays/h200-standard",
            ],
            "verl-grpo metrics, 1000-step log -> CSV + PNG": [
                str(BIN / "verl-grpo"),
                "metrics",
                str(log),
                "--key",
                "critic/score/mean",
                "--key",
                "response_length/mean",
                "--csv",
                f"{tmp}/m.csv",
                "--png",
                f"{tmp}/m.png",
            ],
        }
        # Nothing listens there: both clients must refuse it (exit 1); how fast is the measure.
        unreachable = "http://127.0.0.1:9"
        refused = {
            "verl-grpo status, unreachable dashboard (fail fast)": [
                str(BIN / "verl-grpo"),
                "status",
                "x",
                "--address",
                unreachable,
            ],
            "ray job status, same address (Ray's CLI, fail fast)": [
                str(BIN / "ray"),
                "job",
                "status",
                "--address",
                unreachable,
                "x",
            ],
        }
        results = {name: median_seconds(cmd, args.runs) for name, cmd in cases.items()}
        results |= {name: median_seconds(cmd, args.runs, exit_code=1) for name, cmd in refused.items()}
        # The control-plane tier from its cache (make controlplane): start, CRDs Established, stop.
        start_stop = "from tests.controlplane.cluster import ControlPlane\nwith ControlPlane.start(): pass"
        results["control plane start + stop from cache (5 processes, KubeRay CRDs)"] = median_seconds(
            [PY, "-c", start_stop], args.runs
        )
        results["verl-grpo generate (cold: empty cache, the chart derived; output current)"] = median_seconds(
            [*GENERATE, "--root", current], args.runs, True
        )
        validate = [str(BIN / "verl-grpo"), "validate", "dist"]
        results["verl-grpo validate dist/ (cold: no CRD cache)"] = median_seconds(validate, args.runs, True)
        results["verl-grpo validate dist/ (warm)"] = median_seconds(validate, args.runs)
    floor = results["bare cdk8s synth, 1 object (jsii floor)"]
    helm = results["helm template (chart defaults)"]
    print(
        f"Machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}; "
        f"median of {args.runs} whole-process runs.\n"
    )
    print("| command | median s | x jsii floor | x helm template |")
    print("|---|---:|---:|---:|")
    for name, seconds in results.items():
        print(f"| {name} | {seconds:.3f} | {seconds / floor:.2f} | {seconds / helm:.2f} |")
    print("\n`verl-grpo generate` phase by phase (bench/phases.py, sequential, no start-up overlap):\n")
    print(phases.table(args.runs, cold=False) + "\n")
    print(phases.table(args.runs, cold=True))
    print("\nScaling: N renderings (synth + validation + verl checks) in one process, median of 3:\n")
    print("| renderings | median s | s per rendering | peak MB python | peak MB node (jsii) |")
    print("|---:|---:|---:|---:|---:|")
    for count in (1, 10, 100):
        runs = [scale(count) for _ in range(3)]
        mid = sorted(runs, key=lambda r: r["seconds"])[1]
        print(
            f"| {count} | {mid['seconds']:.3f} | {mid['seconds'] / count:.3f} | {mid['python_mb']:.0f} "
            f"| {mid['node_mb']:.0f} |"
        )
    print("\nA RayCluster with N worker groups (values workerGroups, one chart), median of 3:\n")
    print("| worker groups | median s | manifest bytes |")
    print("|---:|---:|---:|")
    for groups in (1, 8, 64):
        runs = sorted((run_json("worker_groups.py", groups) for _ in range(3)), key=lambda r: r["seconds"])
        print(f"| {groups} | {runs[1]['seconds']:.3f} | {runs[1]['json_bytes']} |")
    sys.stdout.flush()


def run_json(script: str, arg: int) -> dict:
    done = subprocess.run(
        [PY, str(REPO / "bench" / script), str(arg)],
        check=True,
        env=ENV,
        cwd=REPO,
        capture_output=True,
        text=True,
    )
    return json.loads(done.stdout.strip().splitlines()[-1])


def scale(count: int) -> dict:
    return run_json("scale.py", count)


if __name__ == "__main__":
    main()
