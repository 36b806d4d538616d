"""One process synthesizes N renderings (validated, checked): prints seconds and peak memory.

.venv/bin/python bench/scale.py 100
"""

from __future__ import annotations

import json
import os
import resource
import sys
import time
from pathlib import Path

from verl_grpo.pipeline import Request, synthesize
from verl_grpo.profiles import find_profile
from verl_grpo.values.derive import Release


def child_peak_kb() -> list[int]:
    peaks = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            if int(stat.read_text().rsplit(")", 1)[1].split()[1]) != os.getpid():
                continue
            status = (stat.parent / "status").read_text()
        except (OSError, IndexError, ValueError):
            continue
        peaks += [int(line.split()[1]) for line in status.splitlines() if line.startswith("VmHWM:")]
    return peaks


def main(count: int) -> None:
    start = time.perf_counter()
    layer = find_profile("b200-standard").layer()
    # Each its own bucket: PVs of one bucket share a volume handle, which validation refuses.
    requests = [
        Request(f"r{i}", layer, sets=(f"storage.bucket=bucket-{i}",), release=Release(f"r{i}", "default"))
        for i in range(count)
    ]
    synthesize(requests)
    seconds = time.perf_counter() - start
    python_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    node_mb = sum(child_peak_kb()) / 1024  # jsii's node process, still running
    print(json.dumps({"count": count, "seconds": seconds, "python_mb": python_mb, "node_mb": node_mb}))


if __name__ == "__main__":
    main(int(sys.argv[1]))
