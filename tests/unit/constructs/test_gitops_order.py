"""Argo CD's sync order, as its gitops-engine computes it, over every dist/ profile.

Rules encoded (argoproj/gitops-engine): an object's wave is its `argocd.argoproj.io/sync-wave`
annotation, 0 when absent (pkg/sync/syncwaves/waves.go); a wave is applied only after every object
of the earlier waves is healthy (pkg/sync/sync_context.go); a Job is healthy only once it has
completed, Progressing before (pkg/health/health_job.go). So anything an object needs must sit in
an earlier wave or the same one, and whatever needs the data-prep Job's output must sit in a later one.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
import yaml

from ...conftest import REPO

WAVE = "argocd.argoproj.io/sync-wave"
PROFILES = sorted(p.name for p in (REPO / "dist").iterdir() if p.is_dir())


def wave(obj: dict[str, Any]) -> int:
    return int((obj["metadata"].get("annotations") or {}).get(WAVE, "0"))


def pod_specs(obj: dict[str, Any]) -> Iterator[dict[str, Any]]:
    spec = obj.get("spec") or {}
    if obj["kind"] == "Job":
        yield spec["template"]["spec"]
    cluster = (
        spec.get("rayClusterSpec")
        if obj["kind"] == "RayJob"
        else spec
        if obj["kind"] == "RayCluster"
        else None
    )
    if cluster:
        yield cluster["headGroupSpec"]["template"]["spec"]
        for group in cluster["workerGroupSpecs"]:
            yield group["template"]["spec"]


def needs(obj: dict[str, Any], by_key: dict[tuple[str, str], dict[str, Any]]) -> Iterator[tuple[str, str]]:
    """(kind, name) of every object of the set this one uses."""
    for pod in pod_specs(obj):
        if pod.get("serviceAccountName"):
            yield "ServiceAccount", pod["serviceAccountName"]
        for volume in pod.get("volumes") or []:
            if "persistentVolumeClaim" in volume:
                yield "PersistentVolumeClaim", volume["persistentVolumeClaim"]["claimName"]
            if "configMap" in volume:
                yield "ConfigMap", volume["configMap"]["name"]
            for source in (volume.get("projected") or {}).get("sources") or []:
                if "configMap" in source:
                    yield "ConfigMap", source["configMap"]["name"]
    if obj["kind"] == "PersistentVolumeClaim" and obj["spec"].get("volumeName"):
        yield "PersistentVolume", obj["spec"]["volumeName"]


def order_problems(objects: list[dict[str, Any]]) -> list[str]:
    by_key = {(o["kind"], o["metadata"]["name"]): o for o in objects}
    problems = []
    for obj in objects:
        for key in needs(obj, by_key):
            dep = by_key.get(key)
            # Same wave: applied together, fine. A later wave waits for this one to be healthy,
            # which a Job (or a PVC, Progressing while Pending) never is without it.
            if dep is not None and wave(dep) > wave(obj):
                user = f"{obj['kind']}/{obj['metadata']['name']} (wave {wave(obj)})"
                problems.append(f"{user} needs {key[0]}/{key[1]} (wave {wave(dep)})")
    jobs = [o for o in objects if o["kind"] == "Job"]
    for run in (o for o in objects if o["kind"] in ("RayJob", "RayCluster")):
        for job in jobs:  # the data the run reads comes from the Job
            if wave(job) >= wave(run):
                problems.append(
                    f"{run['kind']} (wave {wave(run)}) is not after the data-prep Job (wave {wave(job)})"
                )
    return problems


def load(profile: str) -> list[dict[str, Any]]:
    folder = REPO / "dist" / profile
    return [
        yaml.safe_load(p.read_text()) for p in sorted(folder.glob("*.yaml")) if p.name != "kustomization.yaml"
    ]


@pytest.mark.parametrize("profile", PROFILES)
def test_every_dependency_is_synced_before_its_user(profile: str) -> None:
    objects = load(profile)
    assert any(o["kind"] == "Job" for o in objects)  # the case that blocks a wave
    assert order_problems(objects) == []


def test_the_old_waves_would_never_finish() -> None:
    """Guards the rule: the waves of before (Job -1, its volumes and account 0) break the first sync."""
    objects = load("h200-standard")
    for obj in objects:
        annotations = obj["metadata"].setdefault("annotations", {})
        annotations[WAVE] = {"Job": "-1", "RayJob": "1"}.get(obj["kind"], "0")
    problems = order_problems(objects)
    (job,) = [o["metadata"]["name"] for o in objects if o["kind"] == "Job"]
    assert f"Job/{job} (wave -1) needs ServiceAccount/verl-ksa-data-prep (wave 0)" in problems
    (claim,) = [
        o["metadata"]["name"]
        for o in objects
        if o["kind"] == "PersistentVolumeClaim" and o["metadata"]["name"].startswith("verl-data-")
    ]
    assert f"Job/{job} (wave -1) needs PersistentVolumeClaim/{claim} (wave 0)" in problems
