"""The exception lines of a failed job's log: what `--follow` shows when the job fails.

Ray's failure message carries only the last 10 lines of the driver log
(ray 2.47.0 dashboard/modules/job/job_log_storage_client.py NUM_LOG_LINES_ON_ERROR, used by
job_supervisor.py), and what Python and Ray print while shutting down after an error can fill all
of them (seen: "RuntimeError: can't register atexit after shutdown"), pushing out the cause. The
follower has read the whole log, so it names every distinct exception line in it, first first.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from .step_lines import ANSI, RAY_PREFIX

# `module.Name(Cause): message` as Python's traceback ends, e.g.
# `ray.exceptions.RayTaskError(RuntimeError): ray::TaskRunner.run() ...`, `ValueError: ...`.
EXCEPTION_LINE = re.compile(r"^(?:[A-Za-z_]\w*\.)*[A-Z]\w*(?:Error|Exception)(?:\([\w.]+\))?: \S")
MOST = 8


def exception_line(raw: str) -> str | None:
    """The line without Ray's `(Actor pid=...)` prefix and colours, if it ends a traceback."""
    line = RAY_PREFIX.sub("", ANSI.sub("", raw)).strip()
    return line if EXCEPTION_LINE.match(line) else None


def exception_lines(lines: Iterable[str], most: int = MOST) -> list[str]:
    found: dict[str, None] = {}
    for raw in lines:
        if (line := exception_line(raw)) is not None:
            found.setdefault(line)
            if len(found) == most:
                break
    return list(found)
