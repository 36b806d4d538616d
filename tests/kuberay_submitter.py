"""KubeRay's K8sJobMode submitter command, rebuilt in Python from the operator's Go source.

ray-operator/controllers/ray/common/job.go: GetK8sJobCommand (v1.4.x), BuildJobSubmitCommand
(v1.5.0-v1.7.0; v1.5 and v1.6 give the same K8sJobMode string as v1.4). v1.7.0 puts a wait loop
for the dashboard in front. rayjob_controller.go sets the container's command to
["/bin/bash", "-ce", "--"] and its args to the tokens joined by single spaces. The entrypoint is
inserted raw (strings.TrimSpace only); runtimeEnvYAML becomes compact JSON with sorted keys and
HTML-escaped <, >, & (sigs.k8s.io/yaml YAMLToJSON), then strconv.Quote.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import yaml

from verl_grpo.values.decisions import (
    go_json,  # json.Marshal's output, as sigs.k8s.io/yaml's YAMLToJSON gives
)

COMMAND = ["/bin/bash", "-ce", "--"]
# constant.go v1.7.0: RayDashboardGCSHealthPath, RayDashboardGCSHealthCheckTimeoutSeconds,
# BasePythonHealthCommand.
HEALTH_COMMAND = (
    "python -c \"import urllib.request; r=urllib.request.urlopen('%s', timeout=%d); "
    "exit(0 if b'success' in r.read() else 1)\""
)


def go_quote(text: str) -> str:
    """strconv.Quote for printable text."""
    return json.dumps(text, ensure_ascii=False)


def submitter_args(kuberay: tuple[int, int], dashboard: str, job_id: str, spec: dict) -> str:
    """The one bash -c argument KubeRay gives the submitter Job for this RayJob spec."""
    address = dashboard if dashboard.startswith("http://") else f"http://{dashboard}"
    tokens: list[str] = []
    if kuberay >= (1, 7):
        health = HEALTH_COMMAND % (f"{address}/api/gcs_healthz", 10)
        waiting = go_quote(f"Waiting for Ray Dashboard GCS to become healthy at {address} ...")
        tokens += ["until", health, ">/dev/null", "2>&1", ";", "do", "echo", waiting, ";"]
        tokens += ["sleep", "2", ";", "done", ";"]
    tokens += ["if", "!", "ray", "job", "status", "--address", address, job_id, ">/dev/null", "2>&1", ";"]
    tokens += ["then", "ray", "job", "submit", "--address", address, "--no-wait"]
    if spec.get("runtimeEnvYAML"):
        tokens += ["--runtime-env-json", go_quote(go_json(yaml.safe_load(spec["runtimeEnvYAML"])))]
    if spec.get("metadata"):
        tokens += ["--metadata-json", go_quote(go_json(spec["metadata"]))]
    tokens += ["--submission-id", job_id]
    tokens += ["--", spec["entrypoint"].strip(), ";", "fi", ";"]
    tokens += ["ray", "job", "logs", "--address", address, "--follow", job_id]
    return " ".join(tokens)


RECORD = 'import json, os, sys; open(os.environ["CALLS"], "a").write(json.dumps(sys.argv[1:]) + "\\n")'
RECORDER = f"""#!/bin/sh
# Records its name and arguments, one JSON line per call; `ray job status` finds no job.
{sys.executable} -c '{RECORD}' "${{0##*/}}" "$@"
if [ "${{0##*/}}" = ray ] && [ "$2" = status ]; then exit 1; fi
exit 0
"""
# Every program the submitter's line could start (bash builtins such as echo run as usual).
RECORDED_PROGRAMS = ("ray", "python", "python3", "sleep", "bash", "sh", "curl", "wget")


def run_recorded(command: list[str], folder: Path) -> list[list[str]]:
    """Run `command` with only recording stand-ins on PATH: what it would execute, in order."""
    stubs = folder / "bin"
    stubs.mkdir(exist_ok=True)
    for name in RECORDED_PROGRAMS:
        (stubs / name).write_text(RECORDER)
        (stubs / name).chmod(0o755)
    calls = folder / "calls.jsonl"
    done = subprocess.run(
        command, env={"PATH": str(stubs), "CALLS": str(calls)}, capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr
    return [json.loads(line) for line in calls.read_text().splitlines()]
