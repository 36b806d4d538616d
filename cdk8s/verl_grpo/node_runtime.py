"""cdk8s runs on jsii, whose kernel is a node process: check for it before jsii starts one."""

from __future__ import annotations

import errno
import os
import shutil


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
