"""verl-grpo VERB [flags]: stdout carries results, stderr diagnostics; exit 0 ok, 1 invalid input, 2 usage.

Only flags and dispatch live here: each verb is a module of commands/, every spec comes from
pipeline.load_spec, and every problem prints as problems.Problem.line().
"""

from __future__ import annotations

import argparse
import os
import shutil
import signal
import sys
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager, nullcontext
from types import FrameType

from . import __version__
from .commands import VERBS
from .facts.verl_releases import DEFAULT_VERL_VERSION
from .jobs.errors import JobsError
from .problems import Problems, one_line

EXIT_INVALID = 1
EXIT_INTERRUPTED = 130  # 128 + SIGINT, as shells report Ctrl-C


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="verl-grpo", description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--version",
        action="version",
        version=f"verl-grpo {__version__} (verl {DEFAULT_VERL_VERSION} by default)",
    )
    verbs = parser.add_subparsers(dest="verb", required=True)
    for verb in VERBS:
        verb.add(verbs)
    return parser


def main(argv: list[str] | None = None) -> int:
    """argv None: the console script, whose scratch space (jsii's kernel) lives and dies with it."""
    with own_tmpdir() if argv is None else nullcontext(), watch_interrupts(argv is None) as interrupted:
        try:
            return _run(argv, interrupted)
        except KeyboardInterrupt:
            return _interrupted()


def _interrupted() -> int:
    """Our line is the last: after it, jsii's exit hook writes its goodbye into the dead node's
    stdin (jsii/_kernel/providers/process.py `_NodeProcess.stop`, an atexit callback: a
    BrokenPipeError traceback) and its stderr thread relays node's ECONNRESET; neither is the
    user's business, so stderr goes to /dev/null for the rest of the exit."""
    print("verl-grpo: interrupted", file=sys.stderr, flush=True)
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stderr.fileno())
    os.close(devnull)
    return EXIT_INTERRUPTED


@contextmanager
def watch_interrupts(enabled: bool) -> Iterator[Callable[[], bool]]:
    """Whether a SIGINT came, even where Python swallowed the KeyboardInterrupt it raised (the
    console script only: an in-process caller keeps its own handler)."""
    seen: list[int] = []
    if not enabled:
        yield lambda: False
        return

    def on_sigint(signum: int, frame: FrameType | None) -> None:
        seen.append(signum)
        sys.unraisablehook = lambda _: None  # the swallowed KeyboardInterrupt's "Exception ignored"
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGINT, on_sigint)
    try:
        yield lambda: bool(seen)
    finally:
        signal.signal(signal.SIGINT, previous)


def _run(argv: list[str] | None, interrupted: Callable[[], bool]) -> int:
    args = build_parser().parse_args(argv)
    try:
        try:
            return args.run(args)
        except Exception:
            # Ctrl-C reaches jsii's node kernel too: where Python swallowed the KeyboardInterrupt
            # (one raised in a weakref callback or __del__ is only printed), the next jsii call
            # meets a dead node and fails with a broken pipe. The cause was the interrupt.
            if interrupted():
                raise KeyboardInterrupt from None
            raise
    except Problems as e:
        for p in e.problems:
            print(p.line(), file=sys.stderr)
        return EXIT_INVALID
    except JobsError as e:
        print(f"verl-grpo {args.verb}: {one_line(str(e))}", file=sys.stderr)
        return EXIT_INVALID
    except OSError as e:  # a folder that cannot be written, a disk that is full: the OS's words
        where = f"{e.filename}: " if e.filename else ""
        print(one_line(f"verl-grpo {args.verb}: {where}{e.strerror or e}"), file=sys.stderr)
        return EXIT_INVALID
    except Exception as e:  # noqa: BLE001 - one line, never a traceback; the fuzz tests keep this unused
        print(
            one_line(f"verl-grpo: internal error: {type(e).__name__}: {e} (please report)"), file=sys.stderr
        )
        return EXIT_INVALID


@contextmanager
def own_tmpdir() -> Iterator[None]:
    """TMPDIR for this process and its children: jsii's node kernel unpacks into
    $TMPDIR/jsii-kernel-* and leaves it when Ctrl-C kills node first; the whole folder goes at exit."""
    folder = tempfile.mkdtemp(prefix="verl-grpo-")
    os.environ["TMPDIR"] = folder
    tempfile.tempdir = None  # recomputed from TMPDIR
    try:
        yield
    finally:
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
