"""Reports what the job sees (argv, environment, working directory, where verl imports from) as
one JSON line, and fails if the job could not run verl from there."""

from __future__ import annotations

import importlib.util
import json
import os
import sys

MARK = "VERL_GRPO_PROBE "


def main() -> int:
    cwd = os.getcwd()
    verl = importlib.util.find_spec("verl")
    report = {
        "argv": sys.argv[1:],
        "cwd": cwd,
        "cwd_writable": os.access(cwd, os.W_OK),
        "env": dict(os.environ),
        "sys_path": sys.path,
        "verl": verl.origin if verl else None,
    }
    print(MARK + json.dumps(report), flush=True)
    pythonpath = [p for p in os.environ.get("PYTHONPATH", "").split(":") if p]
    problems = [f"PYTHONPATH entry {p} is not on sys.path" for p in pythonpath if p not in sys.path]
    if verl is None:
        problems.append("verl is not importable")
    if not report["cwd_writable"]:
        problems.append(f"working directory {cwd} is not writable (Hydra writes outputs/ there)")
    for p in problems:
        print(f"probe: {p}", file=sys.stderr, flush=True)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
