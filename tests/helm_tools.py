"""The real helm and kubectl, as subprocesses (installed into .venv/bin by `make tools`)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

from verl_grpo.yaml_io import load_all

from .conftest import DIST_VALUES, REPO

CHART = REPO / "charts" / "verl-grpo"
HELMS = ("helm", "helm3")


def tool(name: str) -> str:
    path = shutil.which(name) or shutil.which(name, path=str(REPO / ".venv" / "bin"))
    assert path, f"{name} not found: run `make tools`"
    return path


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(args, capture_output=True, text=True, check=False)


def helm_template(
    *args: str, helm: str = "helm", release: str = "verl", namespace: str = "default", chart: Path = CHART
) -> list[dict]:
    done = run(tool(helm), "template", release, str(chart), "-n", namespace, "-f", str(DIST_VALUES), *args)
    assert done.returncode == 0, done.stderr
    return load_all(done.stdout)


def kustomize(path: Path) -> list[dict]:
    done = run(tool("kubectl"), "kustomize", str(path))
    assert done.returncode == 0, done.stderr
    return load_all(done.stdout)


def by_identity(objects: list[dict]) -> dict[tuple[str, str, str], dict]:
    out = {}
    for m in objects:
        key = (m["kind"], m["metadata"].get("namespace", ""), m["metadata"]["name"])
        assert key not in out, f"duplicate object {key}"
        out[key] = m
    return out
