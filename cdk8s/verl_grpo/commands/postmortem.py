"""verl-grpo postmortem: name why a run failed, from its logs, the RayJob's status and the events."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from .flags import one_profile, profile_flag, spec, values_flags

DRIVER_LOG = "job-driver-"  # Ray's name for a job's driver log on the head


def add(verbs: argparse._SubParsersAction) -> None:
    p = verbs.add_parser(
        "postmortem",
        help="name the cause of a failed run and the setting to change, from its logs (bucket or "
        "local), the RayJob's status and the Kubernetes events",
    )
    p.add_argument(
        "source",
        metavar="RUN|LOGS",
        help="a run's name (its logs in the bucket, found from the values), its logs' gs:// URL or a "
        "local copy, or one log file",
    )
    profile_flag(p)
    values_flags(p)
    p.add_argument(
        "--events", type=Path, default=None, metavar="FILE", help="`kubectl get events` output (- for stdin)"
    )
    p.add_argument(
        "--status",
        type=Path,
        default=None,
        metavar="FILE",
        help="`kubectl get rayjob -o yaml` (or json) output",
    )
    p.add_argument(
        "--kubectl",
        action="store_true",
        help="read the events and the RayJobs' status of the namespace (-n) with kubectl",
    )
    p.add_argument("-o", "--output", choices=["text", "json"], default="text")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from ..jobs.errors import JobsError
    from ..jobs.run_logs import is_location, local_folder
    from ..postmortem.classify import classify, report

    texts: dict[str, str] = {}
    path = Path(args.source)
    if path.is_file():
        texts[str(path)] = path.read_text(errors="replace")
    else:
        location = args.source if is_location(args.source) else _run_logs_url(args)
        with local_folder(location) as folder:
            texts |= _folder_texts(folder)
        if not texts:
            raise JobsError(f"{location}: no logs in it")
    for flag, name in ((args.events, "events"), (args.status, "status")):
        if flag is None:
            continue
        if str(flag) != "-" and not flag.is_file():
            raise JobsError(f"--{name} {flag}: no such file (paste `kubectl get {name}` output into one)")
        texts[name] = sys.stdin.read() if str(flag) == "-" else flag.read_text(errors="replace")
    if args.kubectl:
        texts["events"] = _kubectl("get", "events", "-n", args.namespace)
        texts["status"] = _rayjob_status(_kubectl("get", "rayjobs", "-n", args.namespace, "-o", "json"))
    verdict = classify(texts)
    if args.output == "json":
        findings = [
            {"cause": f.cause.id, "title": f.cause.title, "evidence": f.evidence, "fix": f.fix}
            for f in verdict.findings
        ]
        print(json.dumps({"cause": verdict.cause, "findings": findings, "errors": verdict.errors}, indent=2))
        return 0
    print("\n".join(report(verdict)))
    return 0


def _run_logs_url(args: argparse.Namespace) -> str:
    """A run's name: its logs' folder in the bucket, by the same values as its manifests."""
    from ..constructs.runtime_env import logs_url
    from ..jobs.errors import JobsError

    args.set = [*getattr(args, "set", []), f"run.name={args.source}"]
    checked = spec(args, one_profile(args), deploying=False)
    if not checked.values.storage.bucket:
        raise JobsError(
            f"storage.bucket: not set: the logs of run {args.source!r} are in your bucket; give the values "
            "you deployed with (-f my.yaml, or --set storage.bucket=NAME), or the logs' gs:// URL or a folder"
        )
    return logs_url(checked)


def _folder_texts(folder: Path) -> dict[str, str]:
    """Every file of the run's logs, the job's driver logs first: what verl itself printed."""
    files = sorted(
        (p for p in folder.rglob("*") if p.is_file()), key=lambda p: (DRIVER_LOG not in p.name, str(p))
    )
    return {str(p.relative_to(folder)): p.read_text(errors="replace") for p in files}


def _kubectl(*words: str) -> str:
    from ..jobs.errors import run_tool

    return run_tool(["kubectl", *words], "it reads the events and the RayJobs (or pass --events/--status)")


def _rayjob_status(text: str) -> str:
    """One line per RayJob: its states, reason and message (where KubeRay says why it failed)."""
    lines = []
    for item in json.loads(text or "{}").get("items", []):
        s = item.get("status", {})
        lines.append(
            f"RayJob {item['metadata']['name']}: jobDeploymentStatus={s.get('jobDeploymentStatus', '')} "
            f"jobStatus={s.get('jobStatus', '')} reason={s.get('reason', '')}"
        )
        lines += [f"  {line}" for line in str(s.get("message", "")).splitlines()]
    return "\n".join(lines)
