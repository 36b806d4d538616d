from __future__ import annotations

import os
from pathlib import Path

import pytest

os.environ.setdefault("JSII_SILENCE_WARNING_END_OF_LIFE_NODE_VERSION", "20")

REPO = Path(__file__).resolve().parent.parent
SHARED = REPO.parent / "shared"


@pytest.fixture(scope="session")
def shipped():
    """Every shipped profile rendered once, in this session's one cdk8s process."""
    from verl_grpo.profiles import shipped_profiles
    from verl_grpo.synth import Request, synthesize

    return synthesize([Request(p.name, p.layer()) for p in shipped_profiles()])


def objects_of_kind(rendering, kind: str) -> list[dict]:
    return [o.manifest for o in rendering.objects if o.manifest["kind"] == kind]


def render_one(*sets: str, profile: str = "b200-standard", files=()):
    from verl_grpo.profiles import find_profile
    from verl_grpo.synth import Request, synthesize

    return synthesize([Request(profile, find_profile(profile).layer(), tuple(files), sets)])[profile]


def tree(path: Path) -> dict[str, bytes]:
    return {str(p.relative_to(path)): p.read_bytes() for p in sorted(path.rglob("*")) if p.is_file()}
