"""cdk8s runs on jsii, whose kernel is a node process: check for it before jsii starts one."""

from __future__ import annotations

import errno
import os
import shutil
import sys
import threading


def require_node() -> None:
    """Without node, jsii fails deep in its start-up and prints a traceback at exit
    (jsii/_kernel/providers/process.py runs $JSII_NODE or `node`): one line instead."""
    node = os.environ.get("JSII_NODE", "node")
    if shutil.which(node) is None:
        raise FileNotFoundError(
            errno.ENOENT,
            f"{node} (Node.js 20, which cdk8s runs on) is not on PATH: "
            "install it (README.md, 'The two commands')",
        )


def start_in_background() -> None:
    """Import cdk8s on a thread: jsii starts node and loads the cdk8s assemblies there (~0.3 s,
    mostly waiting on node), while the caller checks its values on this one. A failure is left
    for the caller's own import of cdk8s to raise, on its thread, with its one-line message.

    An import is thousands of short file reads, each giving up the GIL; at the default 5 ms
    switch interval a busy caller starves it (the convoy effect) and nothing overlaps. A 0.1 ms
    interval while it runs does (bench/phases.py: 0.2 s of `generate` on 2 cores)."""

    def start() -> None:
        try:
            require_node()
            import cdk8s  # noqa: F401
        except BaseException:  # noqa: BLE001 - reported by the caller's import
            pass
        finally:
            sys.setswitchinterval(interval)

    interval = sys.getswitchinterval()
    sys.setswitchinterval(SWITCH_INTERVAL_WHILE_STARTING)
    threading.Thread(target=start, name="jsii-start", daemon=True).start()


SWITCH_INTERVAL_WHILE_STARTING = 0.0001
