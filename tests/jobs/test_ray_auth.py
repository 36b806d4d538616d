"""Ray token authentication, on a real Ray cluster that enforces it: Ray 2.60 from the verl 0.9.1
venv, started with RAY_AUTH_MODE=token as KubeRay starts it (authOptions.mode token hands each Ray
container RAY_AUTH_MODE and RAY_AUTH_TOKEN from the Secret). A pod of the namespace without the
token is refused by the Jobs API; verl-grpo's verbs carry the token from the Secret (through
kubectl, here the recording fake) or a file, and the token shows up in no command line and no
output. The chart only ever names the Secret."""

from __future__ import annotations

import base64
import json
import os
import secrets
import subprocess
import tempfile
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from ..conftest import REPO, render_one
from ..local_ray import free_port
from ..scripts_harness import FAKES, calls

pytestmark = pytest.mark.slow

RAY = REPO / ".venv-verl-0.9.1" / "bin" / "ray"  # Ray 2.60: token auth from 2.52
CLI = REPO / ".venv" / "bin" / "verl-grpo"
TOKEN = "canary-" + secrets.token_hex(16)


@pytest.fixture(scope="module")
def secured():
    temp = Path(tempfile.mkdtemp(prefix="vga", dir="/tmp"))
    dashboard = free_port()
    env = {**os.environ, "RAY_AUTH_MODE": "token", "RAY_AUTH_TOKEN": TOKEN, "RAY_USAGE_STATS_ENABLED": "0"}
    start = [
        str(RAY), "start", "--head", f"--port={free_port()}", "--num-cpus=1", "--include-dashboard=true",
        "--dashboard-host=127.0.0.1", f"--dashboard-port={dashboard}", f"--temp-dir={temp}",
        f"--dashboard-agent-listen-port={free_port()}", "--disable-usage-stats",
    ]  # fmt: skip
    done = subprocess.run(start, env=env, capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    try:
        yield f"http://127.0.0.1:{dashboard}"
    finally:
        subprocess.run([str(RAY), "stop", "--force"], capture_output=True, check=False)


def status(url: str, token: str | None) -> int:
    request = urllib.request.Request(f"{url}/api/jobs/")
    if token:
        request.add_header("Authorization", f"Bearer {token}")
    try:
        return urllib.request.urlopen(request, timeout=30).status
    except urllib.error.HTTPError as e:
        return e.code


def test_the_jobs_api_refuses_whoever_lacks_the_token(secured):
    """What a pod of the namespace that reaches port 8265 gets."""
    assert status(secured, None) == 401
    assert status(secured, "not-" + TOKEN) == 403
    assert status(secured, TOKEN) == 200


def cli(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [str(CLI), *args], capture_output=True, text=True, env={**os.environ, **(env or {})}, check=False
    )


def test_the_verbs_carry_the_token_from_the_secret_and_nowhere_else(secured, tmp_path):
    state = tmp_path / "cloud"
    state.mkdir()
    secret = {"team-a/verl-ray-token": {"auth_token": base64.b64encode(TOKEN.encode()).decode()}}
    (state / "state.json").write_text(
        json.dumps({"resources": [], "iam": [], "objects": [], "mutations": 0, "secrets": secret})
    )
    env = {"PATH": f"{FAKES}:/usr/bin:/bin", "FAKE_STATE": str(state)}
    common = ["--address", secured, "--allow-version-mismatch", "-n", "team-a"]  # client Ray 2.47

    refused = cli("status", "no-such-job", *common, env=env)
    assert refused.returncode == 1
    assert "requires a token (ray.auth: token): pass --token-secret" in refused.stderr

    found = cli("status", "no-such-job", *common, "--token-secret", "verl-ray-token", env=env)
    assert found.returncode == 1 and "no job 'no-such-job'" in found.stderr  # past the auth check
    (read,) = calls(state)
    assert read["args"][:3] == ["get", "secret", "verl-ray-token"]

    token_file = tmp_path / "token"
    token_file.write_text(TOKEN + "\n")
    by_file = cli("status", "no-such-job", *common, "--token-file", str(token_file), env=env)
    assert "no job 'no-such-job'" in by_file.stderr

    wrong = cli("status", "x", *common, "--token-secret", "nope", env=env)
    assert (
        wrong.returncode == 1
        and "Ray token Secret team-a/nope: kubectl get secret failed: Error from server (NotFound)"
        in wrong.stderr
    )

    for done in (refused, found, by_file, wrong):  # canaries
        assert TOKEN not in done.stdout + done.stderr
    assert all(TOKEN not in " ".join(c["args"]) for c in calls(state))


def test_the_manifests_name_the_secret_never_a_token(tmp_path):
    # token auth needs Ray 2.52+: the user's own build (verl's 0.6.1 image carries 2.49.2)
    sets = ("ray.auth=token", "ray.version=2.52.0", "image.repository=example.com/my/verl")
    r = render_one(*sets, profile="h200-standard")
    (job,) = [o.manifest for o in r.objects if o.manifest["kind"] == "RayJob"]
    assert job["spec"]["rayClusterSpec"]["authOptions"] == {"mode": "token", "secretName": "verl-ray-token"}
    assert "auth_token" not in json.dumps([o.manifest for o in r.objects])
