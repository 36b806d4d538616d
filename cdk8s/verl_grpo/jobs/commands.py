"""What the job verbs do (their flags: verbs.py; the work: the sibling modules)."""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import aiohttp
from rich.console import Console
from rich.table import Table

from .client import TERMINAL, Connection, client_version, connect, request_error, version_problems
from .errors import JobsError
from .log_errors import MOST, exception_line
from .progress import ProgressDisplay, RunProgress
from .run_logs import driver_text, is_location, local_folder
from .step_lines import SCORE, parse_step_line, step_records

if TYPE_CHECKING:  # jobs is above values in the layers; the spec arrives built (commands/jobs.py)
    from ..values.derive import DeploySpec

T = TypeVar("T")

EXIT_FAILED = 1
EXIT_INTERRUPTED = 130


def run_job_verb(args: argparse.Namespace, spec_of: Callable[[argparse.Namespace], DeploySpec]) -> int:
    if args.verb == "submit":
        return _submit(args, spec_of(args))
    if args.verb == "metrics" and (lines := _log_file(args.source)) is not None:
        return _metrics(args, lines)
    if args.verb == "logs" and is_location(args.job_id):
        if args.follow:
            raise JobsError(f"--follow needs a running job's id, not the saved logs at {args.job_id}")
        with local_folder(args.job_id) as folder:
            sys.stdout.write(driver_text(folder))
        return 0
    with _connected(args, expected_version=None) as conn:
        if args.verb == "status":
            return _status(conn, args)
        if args.verb == "logs":
            return _logs(conn, args)
        if args.verb == "stop":
            return _stop(conn, args)
        return _metrics(args, _job_logs(conn, args.source).splitlines())


def _log_file(source: str) -> list[str] | None:
    """A saved log (`-` is stdin), a run's logs in the bucket or a copy of them (the driver's
    log), or None for a job id; a path that is not there is an error."""
    if source == "-":
        return sys.stdin.read().splitlines()
    path = Path(source)
    if path.exists() and not path.is_dir():
        return path.read_text(errors="replace").splitlines()
    if is_location(source):
        with local_folder(source) as folder:
            return driver_text(folder).splitlines()
    return None


def _token(args: argparse.Namespace, secret: str | None = None) -> str | None:
    """The cluster's Ray token: --token-file, --token-secret, or the values' Secret (submit)."""
    from . import ray_token

    if args.token_file is not None:
        return ray_token.from_file(args.token_file)
    name = args.token_secret or secret
    if name:
        return ray_token.from_secret(str(name), args.namespace)
    return None


@contextmanager
def _connected(
    args: argparse.Namespace, expected_version: str | None, secret: str | None = None
) -> Iterator[Connection]:
    from .address import dashboard_address

    token = _token(args, secret)
    with dashboard_address(args.address, args.namespace, args.cluster) as url:
        conn = connect(url, token)
        problems = version_problems(conn, client_version(), expected_version, args.allow_version_mismatch)
        if problems:
            raise JobsError("; ".join(problems))
        yield conn


def _submit(args: argparse.Namespace, spec: DeploySpec) -> int:
    from ..constructs.verl_ray_cluster import ray_auth_secret
    from ..verl_check.steps import total_steps
    from .submission import build_submission

    submission = build_submission(spec, args.submission_id, args.compose_only)
    args.cluster = args.cluster or submission.cluster
    secret = ray_auth_secret(spec) if spec.values.ray.auth == "token" else None
    with _connected(args, expected_version=spec.values.ray.version, secret=secret) as conn:
        try:
            job_id = conn.client.submit_job(
                entrypoint=submission.entrypoint,
                runtime_env=submission.runtime_env,
                submission_id=submission.submission_id,
                metadata=submission.metadata,
            )
        except RuntimeError as e:
            raise JobsError(f"submit to {conn.url} refused: {e}") from e
        print(job_id, flush=True)
        print(f"submitted {job_id} to {conn.url} (cluster {submission.cluster})", file=sys.stderr)
        if not args.follow:
            return 0
        total = None if args.compose_only else total_steps(spec.values.training)
        return _follow(conn, job_id, total)


def _ask(conn: Connection, job_id: str, request: Callable[[str], T]) -> T:
    """One Jobs API call about `job_id`; Ray's RuntimeError becomes a JobsError that names job and URL."""
    try:
        return request(job_id)
    except RuntimeError as e:
        raise request_error(job_id, conn.url, e) from e


def _job_info(conn: Connection, job_id: str) -> Any:  # ray's JobDetails (ray has no types)
    return _ask(conn, job_id, conn.client.get_job_info)


def _job_logs(conn: Connection, job_id: str) -> str:
    return _ask(conn, job_id, conn.client.get_job_logs)


def _follow(conn: Connection, job_id: str, total_steps: int | None) -> int:
    info = _job_info(conn, job_id)
    run = RunProgress(total_steps)
    errors: dict[str, None] = {}  # the log's exception lines, first first
    if info.start_time:
        run.started = info.start_time / 1000  # Ray's clock: elapsed counts from the job's start

    shown = 0  # log lines shown so far: the stream sends the log from its start, in order

    async def stream(display: ProgressDisplay) -> None:
        pending = ""
        async for chunk in conn.client.tail_job_logs(job_id):
            pending += chunk
            *lines, pending = pending.split("\n")  # as _log_lines splits
            for line in lines:
                show(display, line)
        if pending:
            show(display, pending)

    def show(display: ProgressDisplay, line: str) -> None:
        nonlocal shown
        shown += 1
        print(line, flush=True)
        record = parse_step_line(line)
        if record is not None:
            display.update(record)
        elif len(errors) < MOST and (error := exception_line(line)) is not None:
            errors.setdefault(error)

    try:
        with ProgressDisplay(run) as display:
            broke: BaseException | None = None
            try:
                asyncio.run(stream(display))
            except (OSError, RuntimeError, aiohttp.ClientError) as e:
                broke = e  # a job that ends can close the socket under the stream: see below
            while (info := _job_info(conn, job_id)).status.value not in TERMINAL:
                if broke is not None:
                    raise JobsError(
                        f"the log stream of {job_id} from {conn.url} broke ({broke}); "
                        f"verl-grpo logs {job_id} --follow picks it up again"
                    ) from broke
                time.sleep(0.5)  # the log stream can close a moment before the status changes
            # The job has ended: what the stream did not deliver (it broke, or closed before the
            # last lines were flushed) comes from the whole log, so progress and errors are complete.
            for line in _log_lines(_job_logs(conn, job_id))[shown:]:
                show(display, line)
    except KeyboardInterrupt:
        print(
            f"\nstopped following; {job_id} goes on: "
            f"verl-grpo logs {job_id} --follow | verl-grpo stop {job_id}",
            file=sys.stderr,
        )
        return EXIT_INTERRUPTED
    status = info.status.value
    if run.records:
        Console(soft_wrap=False).print(run.summary(job_id, status))
    if status != "SUCCEEDED":
        print(f"verl-grpo: job {job_id} {status}", file=sys.stderr)
        message = _tail(info.message or "")
        if errors:  # Ray's message keeps 10 log lines, which shutdown noise can fill (log_errors.py)
            message = [
                *_tail(info.message or "", first=True),
                "exceptions in the log:",
                *(f"  {e}" for e in errors),
            ]
        for line in message:
            print(f"  {line}", file=sys.stderr)
        return EXIT_FAILED
    print(f"job {job_id} SUCCEEDED", file=sys.stderr)
    return 0


def _log_lines(log: str) -> list[str]:
    """The log's lines as the stream's chunks split them (on newlines only)."""
    return log.removesuffix("\n").split("\n") if log else []


def _tail(message: str, lines: int = 12, first: bool = False) -> list[str]:
    """The end of Ray's message: where the failing program (verl, Hydra) says what went wrong;
    `first`: its first line only, Ray's own words (exit code, or why the job never started)."""
    shown = [line for line in message.splitlines() if line.strip()]
    return shown[:1] if first else shown[-lines:]


def _status(conn: Connection, args: argparse.Namespace) -> int:
    info = _job_info(conn, args.job_id)
    fields = {
        "job": args.job_id,
        "status": info.status.value,
        "message": info.message or "",
        "entrypoint": info.entrypoint,
        "start_time": info.start_time,
        "end_time": info.end_time,
        "metadata": info.metadata or {},
    }
    if args.output == "json":
        print(json.dumps(fields, indent=2))
        return 0
    table = Table(show_header=False, title=f"{args.job_id} at {conn.url}", title_justify="left")
    for key in ("status", "message"):
        table.add_row(key, str(fields[key]))
    table.add_row("entrypoint", info.entrypoint.splitlines()[-1].strip() if info.entrypoint else "")
    Console(soft_wrap=False).print(table)
    return 0


def _logs(conn: Connection, args: argparse.Namespace) -> int:
    if args.follow:
        return _follow(conn, args.job_id, args.total_steps)
    sys.stdout.write(_job_logs(conn, args.job_id))
    return 0


def _stop(conn: Connection, args: argparse.Namespace) -> int:
    stopping = _ask(conn, args.job_id, conn.client.stop_job)
    deadline = time.monotonic() + args.timeout
    while (status := _job_info(conn, args.job_id).status.value) not in TERMINAL:
        if time.monotonic() > deadline:
            raise JobsError(f"{args.job_id} is still {status} after {args.timeout:g} s")
        time.sleep(0.5)
    print(f"{args.job_id} {status}" + ("" if stopping else " (it had already ended)"))
    return 0


def _metrics(args: argparse.Namespace, lines: list[str]) -> int:
    from .metrics_output import check_keys, csv_text, png_bytes

    records = step_records(lines)
    keys = list(dict.fromkeys(args.key)) or [SCORE]
    check_keys(records, keys)
    # Everything is made before anything is written: a refused key or plot leaves no half output.
    for path in (args.csv, args.png):
        if path is not None and not path.parent.is_dir():
            raise JobsError(f"{path}: folder {path.parent} does not exist")
    outputs: dict[Path, bytes] = {}
    if args.csv:
        outputs[args.csv] = csv_text(records, keys).encode()
    if args.png:
        outputs[args.png] = png_bytes(
            records, keys, title=f"{'stdin' if args.source == '-' else args.source}: {len(records)} steps"
        )
    for path, content in outputs.items():
        path.write_bytes(content)
        print(f"wrote {path}", file=sys.stderr)
    if not outputs:
        table = Table("step", *keys)
        for r in records:
            table.add_row(str(r.step), *(repr(r.metrics[k]) if k in r.metrics else "" for k in keys))
        Console().print(table)
    return 0
