"""verl-grpo VERB [flags]: stdout carries results, stderr diagnostics; exit 0 ok, 1 invalid input, 2 usage.

Only flags and dispatch live here: each verb is a module of commands/, every spec comes from
pipeline.load_spec, and every problem prints as problems.Problem.line().
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager, nullcontext

from . import VERL_VERSION, __version__
from .commands import VERBS
from .jobs.errors import JobsError
from .problems import Problems, one_line

EXIT_INVALID = 1
EXIT_INTERRUPTED = 130  # 128 + SIGINT, as shells report Ctrl-C


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="verl-grpo", description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--version", action="version", version=f"verl-grpo {__version__} (verl {VERL_VERSION})"
    )
    verbs = parser.add_subparsers(dest="verb", required=True)
    for verb in VERBS:
        verb.add(verbs)
    return parser


def main(argv: list[str] | None = None) -> int:
    """argv None: the console script, whose scratch space (jsii's kernel) lives and dies with it."""
    with own_tmpdir() if argv is None else nullcontext():
        try:
            return _run(argv)
        except KeyboardInterrupt:
            print("verl-grpo: interrupted", file=sys.stderr)
            return EXIT_INTERRUPTED


def _run(argv: list[str] | None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return args.run(args)
    except Problems as e:
        for p in e.problems:
            print(p.line(), file=sys.stderr)
        return EXIT_INVALID
    except JobsError as e:
        print(f"verl-grpo {args.verb}: {one_line(str(e))}", file=sys.stderr)
        return EXIT_INVALID
    except OSError as e:  # a folder that cannot be written, a disk that is full: the OS's words
        where = f"{e.filename}: " if e.filename else ""
        print(f"verl-grpo {args.verb}: {where}{e.strerror or e}", file=sys.stderr)
        return EXIT_INVALID
    except Exception as e:  # noqa: BLE001 - one line, never a traceback; the fuzz tests keep this unused
        print(f"verl-grpo: internal error: {type(e).__name__}: {e} (please report)", file=sys.stderr)
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
