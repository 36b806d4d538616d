"""The local Ray cluster the job tests run against (tests/local_ray.py), one per test module."""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

import pytest

from ..local_ray import LocalRay, fill_mounts, mount_preflight, start_cluster, stop_cluster


@pytest.fixture(scope="module")
def local_ray():
    # Outside /tmp: the kit refuses mount paths under /tmp (Ray's scratch space in the pods).
    root = Path(tempfile.mkdtemp(prefix="verl-grpo-ray-", dir="/var/tmp"))
    temp = Path(tempfile.mkdtemp(prefix="vgr", dir="/tmp"))
    try:
        url = start_cluster(root, temp)
        local = LocalRay(url, root, fill_mounts(root), temp)
        mount_preflight(local)
        yield local
    finally:
        stop_cluster()
        shutil.rmtree(root, ignore_errors=True)
        shutil.rmtree(temp, ignore_errors=True)
