"""verl-grpo VERB [flags]: stdout carries results, stderr diagnostics; exit 0 ok, 1 invalid input, 2 usage.

Only flags and dispatch live here: each verb is a module of commands/, every spec comes from
pipeline.load_spec, and every problem prints as problems.Problem.line().
"""

from __future__ import annotations

import argparse
import sys

from . import VERL_VERSION, __version__
from .commands import VERBS
from .jobs.errors import JobsError
from .problems import Problems, one_line

EXIT_INVALID = 1


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
    except Exception as e:  # noqa: BLE001 - one line, never a traceback; the fuzz tests keep this unused
        print(f"verl-grpo: internal error: {type(e).__name__}: {e} (please report)", file=sys.stderr)
        return EXIT_INVALID


if __name__ == "__main__":
    sys.exit(main())
