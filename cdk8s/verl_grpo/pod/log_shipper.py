"""Copies a Ray pod's logs into the run's folder in the bucket while the run goes on.

Ray keeps its logs (the job's driver log on the head, raylet and worker logs on every node) under
/tmp/ray/session_latest/logs in the pod, and they vanish with the pod: "Ray does not provide a
native storage solution for log data" (docs.ray.io, cluster/kubernetes/user-guides/
persist-kuberay-custom-resource-logs). Ray's documented answer is a sidecar that reads that
folder; this one copies it into the bucket every --interval seconds, and once more when the pod
is stopped (SIGTERM: a spot preemption gives 30 s), so a preempted or deleted cluster keeps its
logs up to the last interval. `verl-grpo logs/metrics/postmortem --run-logs` read them back.

KubeRay's own answer, the history server's collector (ray-project/kuberay historyserver/, alpha),
needs KubeRay v1.7 with its feature gate and Ray 2.55 or newer in the image; the verl images this
kit supports carry an older Ray (docs/research/issue-24-checkpoints-and-logs.md, section 4).

Standalone (stdlib only): shipped in the pre-flight ConfigMap and run by the image's python3 as a
native sidecar (an init container with restartPolicy Always, stopped after the Ray container).
"""

from __future__ import annotations

import argparse
import os
import shutil
import signal
import sys
import threading
import time

LATEST = "session_latest"  # Ray's link to the running session (ray/_private/node.py try_to_symlink)
# A file this large is copied at most every (size / BIG) intervals: GCS FUSE rewrites the whole
# object on each close, and a chatty worker log grows to gigabytes.
BIG = 64 * 2**20


def session_logs(source: str) -> str:
    """The running session's logs folder. Ray's link holds the absolute path in the Ray
    container (/tmp/ray/session_...): where this container mounts the folder elsewhere, the
    session is the link target's name inside `source`."""
    link = os.path.join(source, LATEST)
    target = os.readlink(link) if os.path.islink(link) else link
    target = os.path.join(source, target) if not os.path.isabs(target) else target
    if not os.path.isdir(target):
        target = os.path.join(source, os.path.basename(target))
    return os.path.join(target, "logs")


def files(logs: str) -> dict[str, os.stat_result]:
    """Every regular file under the logs folder, by its path relative to it."""
    found = {}
    for folder, _, names in os.walk(logs):
        for name in names:
            path = os.path.join(folder, name)
            try:
                stat = os.stat(path)
            except OSError:
                continue  # rotated away meanwhile
            if os.path.isfile(path):
                found[os.path.relpath(path, logs)] = stat
    return found


# Where the pre-flight says which run a Ray cluster serves: <checkpoint mount>/RUNS/<cluster name>
# holds that run's logs folder. A RayCluster outlives its runs (`verl-grpo submit` starts each with
# its own experiment), so the folder rendered into the sidecar is only the first run's.
RUNS = ".verl-grpo/runs"


def run_pointer(checkpoint_mount: str, cluster: str) -> str:
    return os.path.join(checkpoint_mount, RUNS, cluster)


def write_run_pointer(path: str, logs: str) -> None:
    """Written aside, then renamed: a shipper never reads half a path."""
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path + ".tmp", "w", encoding="utf-8") as f:
        f.write(logs)
    os.replace(path + ".tmp", path)


class Shipper:
    def __init__(self, source: str, target: str, interval: float, pointer: str = "", pod: str = "") -> None:
        self.source = source
        self.target = target
        self.interval = interval
        self.pointer, self.pod = pointer, pod
        self.copied: dict[str, tuple[int, float, float]] = {}  # size, mtime, when copied

    def current_target(self) -> str:
        """The folder of the run the cluster serves now (the pointer), else the rendered one. A new
        run gets every file again, into its own folder."""
        try:
            with open(self.pointer, encoding="utf-8") as f:
                logs = f.read().strip()
        except OSError:
            return self.target
        target = os.path.join(logs, self.pod) if logs else self.target
        if target != self.target:
            print(f"log-shipper: a new run: copying into {target}", flush=True)
            self.target, self.copied = target, {}
        return target

    def due(self, name: str, stat: os.stat_result, now: float, final: bool) -> bool:
        last = self.copied.get(name)
        if last is None:
            return True
        if (stat.st_size, stat.st_mtime) == last[:2]:
            return False
        return final or now - last[2] >= self.interval * max(1, stat.st_size // BIG)

    def sync(self, final: bool = False) -> list[str]:
        """Copy what changed since the last copy; the names copied."""
        now, done, logs = time.time(), [], session_logs(self.source)
        if self.pointer:
            self.current_target()
        for name, stat in sorted(files(logs).items()):
            if not self.due(name, stat, now, final):
                continue
            destination = os.path.join(self.target, name)
            try:
                os.makedirs(os.path.dirname(destination), exist_ok=True)
                shutil.copyfile(os.path.join(logs, name), destination)
            except OSError as e:
                print(f"log-shipper: {name}: {e}", file=sys.stderr, flush=True)
                continue
            self.copied[name] = (stat.st_size, stat.st_mtime, now)
            done.append(name)
        return done


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--source", default="/tmp/ray", help="Ray's temp folder (holds session_latest)")
    parser.add_argument("--target", required=True, help="this pod's folder in the bucket")
    parser.add_argument("--interval", type=float, default=30.0, help="seconds between copies")
    parser.add_argument(
        "--checkpoint-mount", default="", help="where the pre-flight names the cluster's current run (RUNS)"
    )
    parser.add_argument(
        "--cluster", default="", help="the Ray cluster's name (its pods' ray.io/cluster label)"
    )
    parser.add_argument("--pod", default="", help="this pod's name: its folder inside the run's logs")
    args = parser.parse_args(argv)
    pointer = (
        run_pointer(args.checkpoint_mount, args.cluster) if args.checkpoint_mount and args.cluster else ""
    )
    shipper = Shipper(args.source, args.target, args.interval, pointer, args.pod)
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    print(f"log-shipper: {args.source}/{LATEST}/logs -> {args.target} every {args.interval:g} s", flush=True)
    shipper.sync()
    while not stop.wait(args.interval):
        shipper.sync()
    copied = shipper.sync(final=True)
    print(f"log-shipper: stopped; last copy: {len(copied)} files", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
