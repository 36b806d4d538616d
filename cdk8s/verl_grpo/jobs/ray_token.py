"""The Ray cluster's auth token, for the Jobs API's requests: from its Secret or a file, never from
a command line, never printed.

Ray 2.52+ with RAY_AUTH_MODE=token refuses dashboard and Jobs API requests without
`Authorization: Bearer <token>` (401; a wrong one 403), /api/version included
(ray python/ray/dashboard/authentication middleware; docs/research/issue-27-security-facts.md §1).
KubeRay (authOptions.mode token, secretName: v1.6+) hands the Ray containers and its submitter the
Secret's `auth_token` key (ray-operator common/pod.go SetContainerTokenAuthEnvVars).
"""

from __future__ import annotations

import base64
from pathlib import Path

from .errors import JobsError, run_tool

SECRET_KEY = "auth_token"


def from_secret(name: str, namespace: str) -> str:
    cmd = ["kubectl", "get", "secret", name, "-n", namespace, "-o", f"jsonpath={{.data.{SECRET_KEY}}}"]
    try:
        encoded = run_tool(cmd, "it reads the Ray token's Secret (or pass --token-file)").strip()
    except JobsError as e:
        raise JobsError(f"Ray token Secret {namespace}/{name}: {e}") from e
    if not encoded:
        raise JobsError(f"Ray token Secret {namespace}/{name}: it has no {SECRET_KEY} key")
    return base64.b64decode(encoded).decode().strip()


def from_file(path: Path) -> str:
    try:
        token = path.read_text().strip()
    except OSError as e:
        raise JobsError(f"--token-file {path}: {e.strerror or e}") from e
    if not token:
        raise JobsError(f"--token-file {path}: empty")
    return token


def headers(token: str | None) -> dict[str, str] | None:
    return {"Authorization": f"Bearer {token}"} if token else None
