"""Validation findings cached by everything they depend on (cache.py): the documents' text, the
Kubernetes version, the CRD files, how an unknown kind counts, and the code. A warm `validate`
reads the files, hashes them and prints; it parses nothing and imports no schema library."""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable, Iterable
from pathlib import Path

from .. import cache
from ..problems import Problem

KIND = "validate"


def default_crd_dirs() -> list[Path]:
    """$VERL_GRPO_CRDS (path-separated): CRD folders beside the package's own (crds.BUNDLE)."""
    return [Path(p) for p in os.environ.get("VERL_GRPO_CRDS", "").split(os.pathsep) if p]


def crd_inputs(crd_dirs: list[Path]) -> list[str | bytes]:
    """Each folder's name and every CRD file's name and bytes (a missing folder keys apart, so that
    its error is never skipped by a hit)."""
    parts: list[str | bytes] = []
    for folder in crd_dirs:
        parts.append(f"crds:{folder}:{folder.is_dir()}")
        for path in sorted(folder.rglob("*.yaml")) if folder.is_dir() else []:
            parts += [str(path), path.read_bytes()]
    return parts


def findings(
    texts: Iterable[str],
    settings: tuple[str, ...],
    crd_dirs: list[Path],
    run: Callable[[], tuple[int, list[Problem]]],
) -> tuple[int, list[Problem]]:
    """(objects, findings) of `run`, or of the run before it with the same inputs. `settings`:
    everything else the validator was given (Kubernetes version, unknown-kind severity)."""

    def stored() -> dict:
        objects, found = run()
        return {"objects": objects, "findings": [dataclasses.asdict(f) for f in found]}

    result = cache.cached(KIND, [*settings, *crd_inputs(crd_dirs), *texts], stored)
    return result["objects"], [Problem(**f) for f in result["findings"]]
