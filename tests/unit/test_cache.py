"""Cached results are keyed by every input: a hit gives what a miss computes, an edit misses."""

from __future__ import annotations

import shutil

import pytest

from verl_grpo import cache
from verl_grpo.cli import main

from ..conftest import tree


@pytest.fixture
def empty_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    return tmp_path / "cache" / "verl-grpo"


def test_generate_from_a_warm_cache_writes_what_a_cold_one_does(tmp_path, empty_cache):
    assert main(["generate", "--root", str(tmp_path / "cold")]) == 0
    assert list((empty_cache / "validate").glob("*.json")), "the validation was not cached"
    assert main(["generate", "--root", str(tmp_path / "warm")]) == 0
    for folder in ("dist", "charts", "overlays"):
        assert tree(tmp_path / "warm" / folder) == tree(tmp_path / "cold" / folder)


GOOD = """apiVersion: v1
kind: ConfigMap
metadata: {name: fine}
data: {a: b}
"""


def test_validate_findings_follow_the_files_and_the_settings(tmp_path, empty_cache, capsys):
    manifest = tmp_path / "m.yaml"
    manifest.write_text(GOOD)
    assert main(["validate", str(manifest)]) == 0
    manifest.write_text(GOOD.replace("data:", "dta:"))  # an unknown field: the schema refuses it
    assert main(["validate", str(manifest)]) == 1
    assert "unknown field 'dta'" in capsys.readouterr().out
    manifest.write_text(GOOD)
    assert main(["validate", str(manifest)]) == 0  # the first run's entry
    assert main(["validate", str(manifest), "--kube-version", "1.33"]) == 0
    assert len(list((empty_cache / "validate").glob("*.json"))) == 3
    assert main(["validate", str(manifest), "--crds", str(tmp_path / "none")]) == 2  # never a hit
    assert "no such directory" in capsys.readouterr().err


def test_the_code_digest_changes_with_any_package_file(tmp_path, monkeypatch):
    package = tmp_path / "verl_grpo"
    shutil.copytree(cache.PACKAGE, package, ignore=shutil.ignore_patterns("__pycache__"))
    monkeypatch.setattr(cache, "PACKAGE", package)
    digests = []
    for edit in ("", "data/NOTES.txt", "values/model.py"):
        if edit:
            with (package / edit).open("a") as f:
                f.write("\n")
        cache.code_digest.cache_clear()
        digests.append(cache.code_digest())
    cache.code_digest.cache_clear()
    assert len(set(digests)) == 3


def test_an_unwritable_cache_only_costs_time(tmp_path, monkeypatch, capsys):
    (tmp_path / "file").write_text("not a folder")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "file"))
    manifest = tmp_path / "m.yaml"
    manifest.write_text(GOOD)
    assert main(["validate", str(manifest)]) == 0
    assert capsys.readouterr().err.strip() == "1 objects, 0 errors, 0 warnings"
