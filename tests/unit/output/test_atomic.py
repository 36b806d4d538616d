"""output/atomic.py: trees replaced together; a failed or killed run leaves every old tree or every
new one, and the next writer finishes or undoes what a killed one left."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from verl_grpo.output import atomic
from verl_grpo.output.atomic import TreeWrite, finish_interrupted, journal, write_tree, write_trees

from ...conftest import tree


def contents(path: Path) -> dict[str, str]:
    return {k: v.decode() for k, v in tree(path).items()}


@pytest.mark.parametrize("exchange", [True, False], ids=["renameat2", "two-renames"])
def test_a_whole_replace_leaves_exactly_the_new_files(tmp_path: Path, monkeypatch, exchange: bool) -> None:
    """With or without the kernel's atomic exchange: stale files go, nothing else is left beside."""
    if not exchange:
        monkeypatch.setattr(atomic, "_exchange", lambda a, b: False)
    out = tmp_path / "out"
    write_tree(out, {"a.yaml": "old", "gone/b.yaml": "old"})
    write_tree(out, {"a.yaml": "new", "c/d.yaml": b"\x00bytes"})
    assert tree(out) == {"a.yaml": b"new", "c/d.yaml": b"\x00bytes"}
    assert os.listdir(tmp_path) == ["out"]  # no staging folder, no journal


def test_a_partial_replace_carries_the_other_entries_over(tmp_path: Path) -> None:
    """`replace` names what the new content replaces (one profile, an old archive): other entries stay as
    they were."""
    out = tmp_path / "dist"
    write_tree(out, {"p1/x.yaml": "1", "p1/old.yaml": "1", "p2/y.yaml": "2", "chart.tgz": "c"})
    write_tree(out, {"p1/x.yaml": "one"}, replace=["p1", "chart.tgz"])
    assert contents(out) == {"p1/x.yaml": "one", "p2/y.yaml": "2"}


def test_a_write_that_changes_nothing_touches_nothing(tmp_path: Path) -> None:
    """A tree that already holds the content keeps its files (inodes and times); a stray file is a change."""
    files = {"a.yaml": "a", "sub/b.yaml": "b"}
    assert write_trees(tmp_path, {"t": TreeWrite(files)}) == ["t"]
    before = {p: (p.stat().st_ino, p.stat().st_mtime_ns) for p in (tmp_path / "t").rglob("*")}
    assert write_trees(tmp_path, {"t": TreeWrite(files)}) == []
    assert {p: (p.stat().st_ino, p.stat().st_mtime_ns) for p in (tmp_path / "t").rglob("*")} == before
    # A file the write would not leave makes it a change.
    (tmp_path / "t" / "stray.txt").write_text("x")
    assert write_trees(tmp_path, {"t": TreeWrite(files)}) == ["t"]
    assert contents(tmp_path / "t") == files


def test_a_failure_while_staging_leaves_every_old_tree(tmp_path: Path, monkeypatch) -> None:
    """The second tree fails to stage: neither tree changes, and no staging folder or journal is left."""
    write_trees(tmp_path, {"a": TreeWrite({"f": "old a"}), "b": TreeWrite({"f": "old b"})})
    real_stage = atomic._stage

    def stage(target: Path, tree_write: TreeWrite) -> Path:
        if target.name == "b":
            raise OSError("disk full")
        return real_stage(target, tree_write)

    monkeypatch.setattr(atomic, "_stage", stage)
    with pytest.raises(OSError, match="disk full"):
        write_trees(tmp_path, {"a": TreeWrite({"f": "new a"}), "b": TreeWrite({"f": "new b"})})
    assert contents(tmp_path / "a") == {"f": "old a"} and contents(tmp_path / "b") == {"f": "old b"}
    assert sorted(os.listdir(tmp_path)) == ["a", "b"]


def test_a_run_killed_after_its_commit_is_finished_by_the_next_writer(tmp_path: Path, monkeypatch) -> None:
    """Killed after the journal names the swaps: the next writer of these trees swaps every new tree in."""
    write_trees(tmp_path, {"a": TreeWrite({"f": "old a"}), "b": TreeWrite({"f": "old b"})})
    new = {"a": TreeWrite({"f": "new a"}), "b": TreeWrite({"f": "new b"})}

    def killed(*args: object) -> None:
        raise KeyboardInterrupt

    with monkeypatch.context() as m:
        m.setattr(atomic, "_complete", killed)
        with pytest.raises(KeyboardInterrupt):
            write_trees(tmp_path, new)
    assert "swaps" in json.loads(journal(tmp_path, ["b", "a"]).read_text())  # committed, not swapped
    assert finish_interrupted(tmp_path, ["a", "b"]) is True
    assert contents(tmp_path / "a") == {"f": "new a"} and contents(tmp_path / "b") == {"f": "new b"}
    assert sorted(os.listdir(tmp_path)) == ["a", "b"]


def test_a_run_killed_before_its_commit_leaves_staging_the_next_writer_drops(tmp_path: Path) -> None:
    """Killed while staging: the next writer deletes the staging folder and journal, the old tree stays."""
    write_tree(tmp_path / "a", {"f": "old"})
    (tmp_path / ".a.new-killed").mkdir()
    (tmp_path / ".a.new-killed" / "f").write_text("half")
    journal(tmp_path, ["a"]).write_text(json.dumps({"staging": ["a"]}))
    assert finish_interrupted(tmp_path, ["a"]) is False
    assert contents(tmp_path / "a") == {"f": "old"}
    assert os.listdir(tmp_path) == ["a"]
    assert finish_interrupted(tmp_path, ["a"]) is False  # nothing left to do
