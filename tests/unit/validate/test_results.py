"""validate/results.py: validation findings cached by every input, so that a warm `validate` parses
nothing and a changed text, setting or CRD file is validated again."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from verl_grpo.problems import Problem
from verl_grpo.validate import results


@pytest.fixture(autouse=True)
def empty_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    return tmp_path / "cache"


def test_crd_folders_come_from_the_environment_path_separated(monkeypatch: pytest.MonkeyPatch) -> None:
    """$VERL_GRPO_CRDS lists extra CRD folders, empty entries ignored."""
    monkeypatch.delenv("VERL_GRPO_CRDS", raising=False)
    assert results.default_crd_dirs() == []
    monkeypatch.setenv("VERL_GRPO_CRDS", os.pathsep.join(["/a/crds", "", "/b"]))
    assert results.default_crd_dirs() == [Path("/a/crds"), Path("/b")]


def test_a_crd_folders_files_and_a_missing_folder_key_apart(tmp_path: Path) -> None:
    """A missing folder must never share a key with an empty one: its error would be skipped by a
    hit. An edited CRD file changes the key."""
    folder = tmp_path / "crds"
    missing = results.crd_inputs([folder])
    folder.mkdir()
    assert results.crd_inputs([folder]) != missing
    (folder / "a.yaml").write_text("kind: CustomResourceDefinition\n")
    (folder / "notes.txt").write_text("ignored")
    before = results.crd_inputs([folder])
    assert before[1:] == [str(folder / "a.yaml"), b"kind: CustomResourceDefinition\n"]
    (folder / "a.yaml").write_text("kind: CustomResourceDefinition # edited\n")
    assert results.crd_inputs([folder]) != before


def test_the_same_inputs_are_validated_once_and_other_inputs_again() -> None:
    """A hit gives back what the run gave; a changed text or setting runs it again."""
    calls: list[str] = []
    found = Problem("error", "validate", "spec.x", "unknown field 'x'", "a.yaml", "RayJob/j", "crd-schema")

    def run() -> tuple[int, list[Problem]]:
        calls.append("run")
        return 3, [found]

    first = results.findings(["text"], ("1.34", "error"), [], run)
    again = results.findings(["text"], ("1.34", "error"), [], run)
    assert first == again == (3, [found]) and calls == ["run"]  # the hit gives back equal Problems
    results.findings(["text "], ("1.34", "error"), [], run)  # another text
    results.findings(["text"], ("1.33", "error"), [], run)  # another Kubernetes version
    assert calls == ["run"] * 3
