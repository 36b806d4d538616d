from __future__ import annotations

import os
from pathlib import Path

import pytest

os.environ.setdefault("JSII_SILENCE_WARNING_END_OF_LIFE_NODE_VERSION", "20")

REPO = Path(__file__).resolve().parent.parent
# storage.bucket has no default: tests render with the bucket dist/ carries, as their first layer.
DIST_VALUES = Path(__file__).resolve().parent / "dist-bucket.yaml"


@pytest.fixture(scope="session")
def shipped():
    """Every shipped profile rendered once, in this session's one cdk8s process, as dist/ has it
    (the placeholder bucket, and on A4X the placeholder multi-arch image)."""
    from verl_grpo.output.dist import dist_layer
    from verl_grpo.pipeline import Request, synthesize
    from verl_grpo.profiles import shipped_profiles

    return synthesize([Request(p.name, dist_layer(p)) for p in shipped_profiles()])


def oracle_python(version: str) -> Path:
    """The Python of the venv with verl `version` installed (`make oracle`)."""
    path = REPO / f".venv-verl-{version}" / "bin" / "python"
    if not path.exists():
        pytest.fail(f"{path} missing: run `make oracle`")
    return path


def objects_of_kind(rendering, kind: str) -> list[dict]:
    return [o.manifest for o in rendering.objects if o.manifest["kind"] == kind]


def ray_cluster_spec(rendering) -> dict:
    for m in (o.manifest for o in rendering.objects):
        if m["kind"] == "RayJob":
            return m["spec"]["rayClusterSpec"]
        if m["kind"] == "RayCluster":
            return m["spec"]
    raise AssertionError("no Ray object")


def pods(rendering):
    spec = ray_cluster_spec(rendering)
    yield "head", spec["headGroupSpec"]["template"]
    for group in spec["workerGroupSpecs"]:
        yield group["groupName"], group["template"]


def render_one(*sets: str, profile: str = "b200-standard", files=()):
    from verl_grpo.output.dist import dist_layer
    from verl_grpo.pipeline import Request, synthesize
    from verl_grpo.profiles import find_profile

    return synthesize([Request(profile, dist_layer(find_profile(profile)), files, sets)])[profile]


def tree(path: Path) -> dict[str, bytes]:
    return {str(p.relative_to(path)): p.read_bytes() for p in sorted(path.rglob("*")) if p.is_file()}
