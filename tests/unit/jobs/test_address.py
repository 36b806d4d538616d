"""jobs/address.py: dashboard addresses, and failing fast on a wrong one.
The verbs against a real Ray cluster: test_commands.py."""

from __future__ import annotations

import socket
import subprocess
import time

import pytest

from verl_grpo.jobs.address import normalize
from verl_grpo.jobs.errors import JobsError

from ...conftest import REPO

CLI = str(REPO / ".venv" / "bin" / "verl-grpo")


def cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([CLI, *args], capture_output=True, text=True, check=False, timeout=120)


@pytest.mark.parametrize(
    "address, url",
    [
        ("127.0.0.1:8265", "http://127.0.0.1:8265"),
        ("https://ray.example.com:443/", "https://ray.example.com:443"),
    ],
)
def test_addresses_take_host_and_port(address: str, url: str) -> None:
    assert normalize(address) == url


@pytest.mark.parametrize("address", ["ray://10.0.0.1:10001", "http://head", "localhost", "http://h:port"])
def test_addresses_without_a_dashboard_port_are_refused(address: str) -> None:
    with pytest.raises(JobsError, match="is not a dashboard address; allowed: http://HOST:PORT"):
        normalize(address)


def test_a_wrong_address_fails_fast_and_clearly() -> None:
    with socket.socket() as s:  # a port nothing listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    started = time.monotonic()
    done = cli("status", "some-job", "--address", f"127.0.0.1:{port}")
    assert done.returncode == 1
    assert f"verl-grpo status: cannot reach the Ray dashboard at http://127.0.0.1:{port}" in done.stderr
    assert "Traceback" not in done.stderr and time.monotonic() - started < 15
    done = cli("submit", "--address", "ray://head:10001")
    assert done.returncode == 1 and "--address: 'ray://head:10001' is not a dashboard address" in done.stderr
