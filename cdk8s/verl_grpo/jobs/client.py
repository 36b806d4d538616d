"""Ray's own Jobs API client, reached fast or refused with a reason, and its version checked."""

from __future__ import annotations

import socket
from dataclasses import dataclass
from typing import TYPE_CHECKING
from urllib.parse import urlparse

from .errors import JobsError

if TYPE_CHECKING:
    from ray.job_submission import JobSubmissionClient

CONNECT_TIMEOUT_S = 5.0
TERMINAL = frozenset({"SUCCEEDED", "FAILED", "STOPPED"})


@dataclass(frozen=True)
class Connection:
    client: JobSubmissionClient
    url: str
    server_version: str


def client_version() -> str:
    import ray

    return ray.__version__


def _reachable(url: str) -> None:
    # Ray's client has no connect timeout: an unroutable address would hang, not fail.
    parsed = urlparse(url)
    try:
        socket.create_connection((parsed.hostname, parsed.port), timeout=CONNECT_TIMEOUT_S).close()
    except OSError as e:
        raise JobsError(
            f"cannot reach the Ray dashboard at {url} ({e.strerror or e}); is the head running, and is "
            "this its dashboard port (8265)?"
        ) from e


def _auth_error(url: str, text: str, token: str | None) -> JobsError | None:
    """Ray's answer to a request without the cluster's token (401) or with a wrong one (403)."""
    if "401" in text:
        return JobsError(
            f"the Ray cluster at {url} requires a token (ray.auth: token): pass --token-secret "
            "<release>-ray-token (read with kubectl) or --token-file FILE"
        )
    if "403" in text and token:
        return JobsError(f"the Ray cluster at {url} refused the token: is it the cluster's Secret?")
    return None


def connect(url: str, token: str | None = None) -> Connection:
    _reachable(url)
    from ray.job_submission import JobSubmissionClient

    from .ray_token import headers

    try:
        client = JobSubmissionClient(url, headers=headers(token))
        # The version endpoint the client checks itself; it keeps the answer to itself.
        reply = client._do_request("GET", "/api/version")
        reply.raise_for_status()
        server = str(reply.json()["ray_version"])
    except (ConnectionError, RuntimeError, ValueError, KeyError) as e:
        raise _auth_error(url, str(e), token) or JobsError(
            f"{url} does not answer as a Ray dashboard: {e}"
        ) from e
    except Exception as e:  # noqa: BLE001 - requests' errors (HTTP, TLS) from a wrong address
        raise _auth_error(url, str(e), token) or JobsError(
            f"{url} does not answer as a Ray dashboard: {type(e).__name__}: {e}"
        ) from e
    return Connection(client, url, server)


def version_problems(
    connection: Connection, client: str, expected: str | None, allow_mismatch: bool
) -> list[str]:
    """The client is pinned to the cluster's Ray; ray.version (the RayCluster's rayVersion) must agree."""
    server, problems = connection.server_version, []
    if expected is not None and expected != server:
        problems.append(
            f"ray.version: {expected!r}, but the cluster at {connection.url} runs Ray {server}: "
            f"set ray.version (the RayCluster's rayVersion) to the image's Ray, {server}"
        )
    if client != server and not allow_mismatch:
        problems.append(
            f"Ray client {client} (verl-grpo's pin) but the cluster at {connection.url} runs Ray {server}: "
            f"the Jobs API differs across versions; pip install 'ray[default]=={server}' "
            "or pass --allow-version-mismatch"
        )
    return problems


def request_error(job_id: str, url: str, e: Exception) -> JobsError:
    text = str(e)
    if "does not exist" in text or "404" in text:
        return JobsError(f"no job {job_id!r} at {url}: check the id `verl-grpo submit` printed")
    return JobsError(f"job {job_id!r} at {url}: {text}")
