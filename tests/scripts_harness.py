"""Run scripts/ against the recording fakes (tests/fakes), and the reviewed golden call lists."""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
from pathlib import Path

from .conftest import REPO

FAKES = REPO / "tests" / "fakes"
GOLDENS = REPO / "tests" / "goldens" / "scripts"
GOLDEN_PROFILES = ["b200-standard", "h200-standard", "b200-autopilot", "h200-autopilot", "a4x-standard"]
# What a profile's run needs to find in the cloud: A4X's shipped profile consumes its example
# reservation and, through DRANET, needs GKE 1.34.1-gke.1829001 (the fake's default list is older).
GOLDEN_SETUP: dict[str, tuple[dict[str, str], list[str]]] = {
    "a4x-standard": (
        {
            "FAKE_GKE_VERSIONS": "1.34.1-gke.1829001;1.35.0-gke.1000000",
            "FAKE_SUB_BLOCKS": "block-a/sub-0/18/17 block-a/sub-1/18/0",
        },
        ["compute reservations my-a4x-reservation"],
    )
}
# What an arm64 run adds to the user's values: their multi-arch image (rule image-carries-arch).
ARM64_IMAGE = FAKES / "my-arm64-image.yaml"
# The user's file for each of a profile's values with no default (Profile.user_keys) but the bucket,
# which a test's first layer names (MY_VALUES, conftest.DIST_VALUES).
USER_FILES = {
    "cluster.zone": FAKES / "my-zone.yaml",
    "cluster.reservation": FAKES / "my-reservation.yaml",
    "image.repository": ARM64_IMAGE,
}


def profile_values(profile: str) -> tuple[str, ...]:
    """The values a user's run of the profile needs beyond a bucket, as -f arguments."""
    from verl_grpo.profiles import find_profile

    found = find_profile(profile)
    assert found, f"no shipped profile {profile!r}"
    return tuple(
        arg for key in found.user_keys() if key in USER_FILES for arg in ("-f", str(USER_FILES[key]))
    )


READ_ONLY = {
    "describe",
    "get",
    "ls",
    "get-iam-policy",
    "get-credentials",
    "get-server-config",
    "print-access-token",
    "list",
}


def script_env(state: Path, data: Path, **extra: str) -> dict[str, str]:
    model, gsm = data / "model", data / "gsm8k"
    model.mkdir(parents=True, exist_ok=True)
    gsm.mkdir(parents=True, exist_ok=True)
    (model / "config.json").write_text("{}")
    for split in ("train", "test"):
        (gsm / f"{split}.parquet").write_bytes(b"PAR1")
    return {
        "PATH": f"{FAKES}:{REPO / '.venv' / 'bin'}:/usr/bin:/bin",
        "HOME": os.environ.get("HOME", "/root"),
        "FAKE_STATE": str(state),
        "PROJECT": "my-project",
        "REGION": "us-central1",
        "ZONE": "us-central1-b",
        "CLUSTER": "verl",
        "MODEL_SOURCE_DIR": str(model),
        "GSM8K_DIR": str(gsm),
        "TMPDIR": str(data),
        # The CLI the scripts run is the code under test (a worktree sets PYTHONPATH).
        **{k: os.environ[k] for k in ("PYTHONPATH",) if k in os.environ},
        **extra,
    }


# The user's values file of README's quick start: the scripts take only a bucket the user named.
MY_VALUES = REPO / "tests" / "fakes" / "my-values.yaml"


def run_script(
    name: str, env: dict[str, str], *args: str, stdin: str = "", my_values: bool = True
) -> subprocess.CompletedProcess:
    """`my_values`: `-f tests/fakes/my-values.yaml` first (a test's own -f comes later and wins)."""
    first = ("-f", str(MY_VALUES)) if my_values else ()
    return subprocess.run(
        [str(REPO / "scripts" / name), *first, *args],
        env=env,
        input=stdin,
        capture_output=True,
        text=True,
        check=False,
    )


def calls(state: Path) -> list[dict]:
    log = state / "calls.jsonl"
    return [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []


def mutating(recorded: list[dict]) -> list[dict]:
    def verb(c: dict) -> str:
        words = [a for a in c["args"] if not a.startswith("-")]
        if c["tool"] == "kubectl":
            return words[0]
        if words[:2] == ["projects", "describe"]:
            return "describe"
        return next(
            (
                w
                for w in words
                if w in READ_ONLY
                or w
                in {
                    "create",
                    "create-auto",
                    "delete",
                    "rsync",
                    "rm",
                    "add-iam-policy-binding",
                    "remove-iam-policy-binding",
                    "clone",
                }
            ),
            "?",
        )

    return [c for c in recorded if verb(c) not in READ_ONLY]


def normalized(recorded: list[dict], data: Path) -> str:
    lines = []
    for c in recorded:
        line = f"{c['tool']} {shlex.join(c['args'])}"
        line = line.replace(str(REPO), "<repo>").replace(str(data), "<data>")
        line = re.sub(r"<data>/tmp\.\w+", "<data>/<clone>", line)
        lines.append(line)
    return "\n".join(lines) + "\n"


def already_there(state: Path, resources: list[str]) -> None:
    """The fake cloud starts with these resources ("compute reservations r1"), as the user made them."""
    state.mkdir(parents=True, exist_ok=True)
    fresh = {"resources": resources, "iam": [], "objects": [], "mutations": 0}  # fakecloud's shape
    (state / "state.json").write_text(json.dumps(fresh))


def recorded_up(profile: str, workdir: Path) -> str:
    state, data = workdir / "state", workdir / "data"
    env, existing = GOLDEN_SETUP.get(profile, ({}, []))
    if existing:
        already_there(state, existing)
    done = run_script("up.sh", script_env(state, data, PROFILE=profile, **env), *profile_values(profile))
    assert done.returncode == 0, done.stderr
    return normalized(calls(state), data)


def update_goldens() -> None:
    import tempfile

    GOLDENS.mkdir(parents=True, exist_ok=True)
    for profile in GOLDEN_PROFILES:
        with tempfile.TemporaryDirectory() as tmp:
            (GOLDENS / f"up-{profile}.txt").write_text(recorded_up(profile, Path(tmp)))


if __name__ == "__main__":
    update_goldens()
