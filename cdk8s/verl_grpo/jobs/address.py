"""Where the Ray dashboard (the Jobs API) answers: --address, or a kubectl port-forward to the head.

The head Service is found by KubeRay's labels, not by name: KubeRay names it, and the name
changed between releases.
"""

from __future__ import annotations

import json
import re
import selectors
import shutil
import subprocess
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from urllib.parse import urlparse

from ..facts.kuberay import DASHBOARD_PORT
from .errors import JobsError

HEAD_SELECTOR = "ray.io/node-type=head"
FORWARDING = re.compile(r"Forwarding from 127\.0\.0\.1:(\d+) -> \d+")
FORWARD_TIMEOUT_S = 30.0


def normalize(address: str) -> str:
    """host:port or a URL -> http(s)://host:port; anything else is refused here, not deep in Ray."""
    url = address if "://" in address else f"http://{address}"
    parsed = urlparse(url)
    try:
        port = parsed.port
    except ValueError:
        port = None
    if parsed.scheme not in ("http", "https") or not parsed.hostname or port is None:
        raise JobsError(
            f"--address: {address!r} is not a dashboard address; "
            f"allowed: http://HOST:PORT or HOST:PORT (the head's dashboard port, {DASHBOARD_PORT})"
        )
    return f"{parsed.scheme}://{parsed.netloc}"


def head_selector(cluster: str | None) -> str:
    return HEAD_SELECTOR + (f",ray.io/cluster={cluster}" if cluster else "")


def _kubectl() -> str:
    found = shutil.which("kubectl")
    if not found:
        raise JobsError(
            "kubectl not found on PATH: it port-forwards to the Ray head; "
            f"or pass --address http://HOST:{DASHBOARD_PORT}"
        )
    return found


def _last_line(stderr: str, code: int) -> str:
    # kubectl repeats its retries; the last line is the one that says what is wrong.
    return (stderr.strip().splitlines() or [f"exit {code}"])[-1]


def find_head_service(namespace: str, cluster: str | None) -> str:
    selector = head_selector(cluster)
    cmd = [_kubectl(), "get", "services", "-n", namespace, "-l", selector, "-o", "json"]
    done = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise JobsError(
            f"kubectl get services -l {selector} failed: {_last_line(done.stderr, done.returncode)}"
        )
    try:
        names = sorted(item["metadata"]["name"] for item in json.loads(done.stdout)["items"])
    except (ValueError, KeyError, TypeError) as e:
        raise JobsError(f"kubectl get services: unreadable output ({e})") from e
    if not names:
        raise JobsError(
            f"no Ray head Service in namespace {namespace!r} with labels {selector}: is the RayCluster "
            f"up (kubectl get rayclusters -n {namespace})? Or pass --address http://HOST:{DASHBOARD_PORT}"
        )
    if len(names) > 1:
        raise JobsError(
            f"{len(names)} Ray head Services in namespace {namespace!r} ({', '.join(names)}); "
            "pick one with --cluster NAME (the RayCluster's name)"
        )
    return names[0]


@contextmanager
def port_forward(namespace: str, service: str) -> Iterator[str]:
    """`kubectl port-forward svc/NAME :8265` on a free local port, for as long as the block runs."""
    cmd = [_kubectl(), "port-forward", "-n", namespace, f"svc/{service}", f":{DASHBOARD_PORT}"]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        port = _forwarded_port(proc, service)
        # kubectl logs every connection: keep reading its pipes, or a full pipe stalls the forward.
        for pipe in (proc.stdout, proc.stderr):
            threading.Thread(target=pipe.read, daemon=True).start()  # type: ignore[union-attr]
        yield f"http://127.0.0.1:{port}"
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def _forwarded_port(proc: subprocess.Popen, service: str) -> int:
    assert proc.stdout is not None and proc.stderr is not None
    deadline = time.monotonic() + FORWARD_TIMEOUT_S
    with selectors.DefaultSelector() as sel:
        sel.register(proc.stdout, selectors.EVENT_READ)
        while (left := deadline - time.monotonic()) > 0:
            if not sel.select(timeout=left):
                continue
            line = proc.stdout.readline()
            if not line:  # kubectl exited
                proc.wait()
                raise JobsError(
                    f"kubectl port-forward svc/{service} failed: "
                    f"{_last_line(proc.stderr.read(), proc.returncode)}"
                )
            match = FORWARDING.search(line)
            if match:
                return int(match.group(1))
    raise JobsError(f"kubectl port-forward svc/{service}: no forwarding after {FORWARD_TIMEOUT_S:g} s")


@contextmanager
def dashboard_address(address: str | None, namespace: str, cluster: str | None) -> Iterator[str]:
    if address:
        yield normalize(address)
        return
    with port_forward(namespace, find_head_service(namespace, cluster)) as url:
        yield url
