"""The job verbs' flags: submit, status, logs, stop, metrics (cheap to import; commands.py runs them)."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path

from ..facts.kuberay import DASHBOARD_PORT
from .step_lines import SCORE

JOB_VERBS = ("submit", "status", "logs", "stop", "metrics")


def _address_flags(p: argparse.ArgumentParser, namespace: bool = True) -> None:
    p.add_argument(
        "--address",
        default=None,
        metavar="URL",
        help=f"Ray dashboard, http://HOST:{DASHBOARD_PORT} (default: kubectl port-forward to the head "
        "Service found by label ray.io/node-type=head)",
    )
    if namespace:
        p.add_argument("-n", "--namespace", default="default", help="namespace of the RayCluster")
    p.add_argument("--cluster", default=None, metavar="NAME", help="RayCluster name, when several run")
    p.add_argument(
        "--token-secret",
        default=None,
        metavar="NAME",
        help="the Secret with the cluster's Ray token (key auth_token), read with kubectl in -n "
        "(with ray.auth: token; `submit` finds <release>-ray-token itself)",
    )
    p.add_argument("--token-file", type=Path, default=None, metavar="FILE", help="the Ray token in a file")
    p.add_argument(
        "--allow-version-mismatch",
        action="store_true",
        help="go on when the cluster's Ray differs from this client's",
    )


def add_job_verbs(
    verbs: argparse._SubParsersAction, values_flags: Callable, run: Callable[[argparse.Namespace], int]
) -> None:
    submit = verbs.add_parser(
        "submit", help="submit the GRPO run to a RayCluster through Ray's Jobs API (prints the job id)"
    )
    submit.add_argument(
        "--profile",
        default=None,
        metavar="NAME",
        help="shipped profile under your values (default: the RayCluster profile your values "
        "describe; b200-standard-raycluster when they set none)",
    )
    values_flags(submit)
    _address_flags(submit, namespace=False)
    submit.add_argument(
        "--submission-id", default=None, help="job id (default: RELEASE-EXPERIMENT-TIME-XXXX)"
    )
    submit.add_argument("--follow", action="store_true", help="stream logs and progress until the job ends")
    submit.add_argument(
        "--compose-only",
        action="store_true",
        help="run verl's Hydra stage only (--cfg job): checks every override against the image's verl",
    )

    status = verbs.add_parser("status", help="a job's status and message")
    status.add_argument("job_id", metavar="JOB_ID")
    _address_flags(status)
    status.add_argument("-o", "--output", choices=["text", "json"], default="text")

    logs = verbs.add_parser(
        "logs",
        help="a job's logs; --follow streams them with progress until it ends. After the cluster is "
        "gone: the run's logs in the bucket (gs://BUCKET/CHECKPOINTDIR/PROJECT/EXPERIMENT/logs) or a copy",
    )
    logs.add_argument("job_id", metavar="JOB_ID|RUN_LOGS")
    _address_flags(logs)
    logs.add_argument("--follow", action="store_true")
    logs.add_argument("--total-steps", type=int, default=None, metavar="N", help="steps the run will take")

    stop = verbs.add_parser("stop", help="stop a running job")
    stop.add_argument("job_id", metavar="JOB_ID")
    _address_flags(stop)
    stop.add_argument(
        "--timeout", type=float, default=60.0, metavar="S", help="wait this long for it to stop"
    )

    metrics = verbs.add_parser("metrics", help="verl's step metrics of a job or a log file: table, CSV, PNG")
    metrics.add_argument(
        "source",
        metavar="JOB_ID|LOGFILE|RUN_LOGS",
        help="a job id, a saved log (- for stdin), or a run's logs in the bucket (gs://...) or a copy",
    )
    _address_flags(metrics)
    metrics.add_argument(
        "--key",
        action="append",
        default=[],
        metavar="KEY",
        help=f"metric to take (repeatable; default: {SCORE})",
    )
    metrics.add_argument("--png", type=Path, default=None, metavar="FILE", help="plot the keys over steps")
    metrics.add_argument("--csv", type=Path, default=None, metavar="FILE", help="write step,KEY,... rows")
    for verb in (submit, status, logs, stop, metrics):
        verb.set_defaults(run=run)
