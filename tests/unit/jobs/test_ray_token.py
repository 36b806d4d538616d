"""jobs/ray_token.py: the Ray cluster's token from its Secret (through kubectl, replaced here) or a
file; refusals name where it was looked for and never show a token."""

from __future__ import annotations

import base64
from pathlib import Path

import pytest

from verl_grpo.jobs import ray_token
from verl_grpo.jobs.errors import JobsError

TOKEN = "canary-0123456789abcdef"


def test_a_secrets_auth_token_is_decoded_and_asked_for_by_key(monkeypatch: pytest.MonkeyPatch) -> None:
    """The Secret's auth_token key, base64-decoded and stripped, read in the given namespace."""
    asked: list[list[str]] = []

    def kubectl(cmd: list[str], why: str) -> str:
        asked.append(cmd)
        return base64.b64encode(f"{TOKEN}\n".encode()).decode() + "\n"

    monkeypatch.setattr(ray_token, "run_tool", kubectl)
    assert ray_token.from_secret("verl-ray-token", "team-a") == TOKEN
    (cmd,) = asked
    assert cmd[:6] == ["kubectl", "get", "secret", "verl-ray-token", "-n", "team-a"]
    assert cmd[-1] == "jsonpath={.data.auth_token}"  # KubeRay's key, read from the Secret


def test_a_secret_without_the_key_or_that_kubectl_cannot_read_is_named(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Refusals name the Secret as namespace/name, and keep kubectl's words."""
    monkeypatch.setattr(ray_token, "run_tool", lambda cmd, why: "\n")
    with pytest.raises(JobsError, match=r"^Ray token Secret team-a/tok: it has no auth_token key$"):
        ray_token.from_secret("tok", "team-a")

    def refused(cmd: list[str], why: str) -> str:
        raise JobsError('kubectl get secret failed: Error from server (NotFound): secrets "tok" not found')

    monkeypatch.setattr(ray_token, "run_tool", refused)
    with pytest.raises(
        JobsError, match=r"^Ray token Secret team-a/tok: kubectl get secret failed: .*NotFound"
    ):
        ray_token.from_secret("tok", "team-a")


def test_a_token_file_is_read_stripped_and_refused_when_empty_or_missing(tmp_path: Path) -> None:
    """--token-file: surrounding whitespace dropped; an empty or missing file refused by path."""
    path = tmp_path / "token"
    path.write_text(f"  {TOKEN}\n\n")
    assert ray_token.from_file(path) == TOKEN
    path.write_text(" \n")
    with pytest.raises(JobsError, match=r"^--token-file .*/token: empty$"):
        ray_token.from_file(path)
    with pytest.raises(JobsError) as e:
        ray_token.from_file(tmp_path / "nope")
    assert str(e.value) == f"--token-file {tmp_path / 'nope'}: No such file or directory"


def test_requests_carry_a_bearer_header_only_with_a_token() -> None:
    """No token, no Authorization header at all."""
    assert ray_token.headers(TOKEN) == {"Authorization": f"Bearer {TOKEN}"}
    assert ray_token.headers(None) is None and ray_token.headers("") is None
