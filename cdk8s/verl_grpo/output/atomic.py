"""Replace directory trees together: a failed or killed run leaves either every old tree or every
new one, never a mix of two runs.

A journal beside the trees names them first. Each tree is then written in full to a staging folder
beside it, and the journal rewritten, in one rename, to name every (staging folder, tree) pair:
from that moment the run is committed, and its swaps are finished by this run or, if it is killed,
by the next writer (`finish_interrupted`, which every writer calls first). A run killed before
that left only staging folders, which the next writer deletes.
"""

from __future__ import annotations

import ctypes
import hashlib
import json
import os
import shutil
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

_AT_FDCWD = -100
_RENAME_EXCHANGE = 2
_libc = ctypes.CDLL(None, use_errno=True)
JOURNAL_PREFIX = ".verl-grpo-swap."
_STAGE, _OLD = ".new-", ".old"


@dataclass(frozen=True)
class TreeWrite:
    """`files`: relative path -> content. `replace`: the entries (folders or files) the new content
    replaces; everything else already in the tree is carried over. None replaces the whole tree."""

    files: Mapping[str, str | bytes]
    replace: list[str] | None = None


def write_tree(target: Path, files: dict[str, str | bytes], replace: list[str] | None = None) -> None:
    target = Path(os.path.abspath(target))
    write_trees(target.parent, {target.name: TreeWrite(files, replace)})


def journal(root: Path, targets: list[str]) -> Path:
    """The journal of a set of trees: one per set, so that writers of other trees in the same
    folder (`synth -o /tmp/a` and `-o /tmp/b`) never touch each other's."""
    digest = hashlib.sha256("\0".join(sorted(targets)).encode()).hexdigest()[:12]
    return root / f"{JOURNAL_PREFIX}{digest}.json"


def write_trees(root: Path, trees: dict[str, TreeWrite]) -> list[str]:
    """Make each `root/<relative path>` hold its TreeWrite, all of them swapped in together; the
    trees that changed (the others already held their content and were left alone)."""
    root.mkdir(parents=True, exist_ok=True)
    targets = list(trees)
    finish_interrupted(root, targets)
    log = journal(root, targets)
    # A tree that already holds what the write would leave is left alone, files and times: a run
    # that changes nothing writes nothing (as make), and the others still swap in together.
    changed = {rel: tree for rel, tree in trees.items() if not _holds(root / rel, tree)}
    if not changed:
        return []
    entries: list[dict[str, str | int]] = []
    try:
        _write_journal(log, {"staging": targets})
        for rel, tree in changed.items():
            stage = _stage(root / rel, tree)
            entries.append(
                {"target": rel, "stage": str(stage.relative_to(root)), "inode": stage.stat().st_ino}
            )
        _write_journal(log, {"swaps": entries})  # the commit point
    except BaseException:
        _drop_stages(root, targets, log)
        raise
    try:
        _complete(root, entries, log)
    except OSError:
        _roll_back(root, entries, log)
        raise
    return list(changed)


def finish_interrupted(root: Path, targets: list[str]) -> bool:
    """Finish the swaps a killed writer of these trees committed, or delete the staging folders
    of one that had not committed. True when there was a committed run to finish."""
    log = journal(root, targets)
    if not log.is_file():
        return False
    state = json.loads(log.read_text())
    if "swaps" in state:
        _complete(root, state["swaps"], log)
        return True
    _drop_stages(root, state["staging"], log)
    return False


def _write_journal(log: Path, state: dict) -> None:
    tmp = log.with_name(f"{log.name}.{os.getpid()}.tmp")
    tmp.write_text(json.dumps(state))
    os.replace(tmp, log)


def _drop_stages(root: Path, targets: list[str], log: Path) -> None:
    for rel in targets:
        target = root / rel
        for stale in target.parent.glob(f".{target.name}{_STAGE}*"):
            shutil.rmtree(stale, ignore_errors=True)
    for tmp in root.glob(f"{log.name}.*.tmp"):
        tmp.unlink(missing_ok=True)
    log.unlink(missing_ok=True)


def _holds(target: Path, tree: TreeWrite) -> bool:
    """`target` is a folder whose entries are exactly those the write would leave: the new files
    byte for byte, and outside the replaced entries what is there now (carried over as it is)."""
    if not target.is_dir() or target.is_symlink():
        return False
    replaced = None if tree.replace is None else [PurePosixPath(e) for e in tree.replace]

    def carried(rel: PurePosixPath) -> bool:
        return replaced is not None and not any(rel == e or e in rel.parents for e in replaced)

    new_dirs = {d for f in tree.files for d in PurePosixPath(f).parents} - {PurePosixPath(".")}
    seen = 0
    for path in target.rglob("*"):
        rel = PurePosixPath(path.relative_to(target).as_posix())
        if carried(rel):
            continue
        if path.is_symlink():
            return False
        if path.is_dir():
            if rel not in new_dirs:
                return False
            continue
        content = tree.files.get(str(rel))
        if content is None:
            return False
        if path.read_bytes() != (content if isinstance(content, bytes) else content.encode()):
            return False
        seen += 1
    return seen == len(tree.files)


def _stage(target: Path, tree: TreeWrite) -> Path:
    target.parent.mkdir(parents=True, exist_ok=True)
    stage = Path(tempfile.mkdtemp(prefix=f".{target.name}{_STAGE}", dir=target.parent))
    stage.chmod(0o755)  # mkdtemp makes it private; the result is an ordinary directory
    try:
        if target.exists() and tree.replace is not None:
            shutil.copytree(target, stage, dirs_exist_ok=True, symlinks=True)
            for entry in tree.replace:
                path = stage / entry
                if path.is_dir():
                    shutil.rmtree(path)
                else:
                    path.unlink(missing_ok=True)
        for rel, content in tree.files.items():
            path = stage / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            if isinstance(content, bytes):
                path.write_bytes(content)
            else:
                path.write_text(content)
    except BaseException:
        shutil.rmtree(stage, ignore_errors=True)
        raise
    return stage


def _complete(root: Path, entries: list[dict], log: Path) -> None:
    """Swap in every staged tree not yet in place (its inode tells), then delete the old trees and
    the journal. Safe to run again from any point."""
    for entry in entries:
        target, stage = root / entry["target"], root / entry["stage"]
        if _inode(target) == entry["inode"]:
            continue  # swapped already: `stage` holds the old tree, or is gone
        if not target.exists():  # new, or killed between the two renames of the fallback
            os.replace(stage, target)
        elif not _exchange(stage, target):
            os.replace(target, Path(f"{stage}{_OLD}"))
            os.replace(stage, target)
    for entry in entries:
        stage = root / entry["stage"]
        for old in (stage, Path(f"{stage}{_OLD}")):
            shutil.rmtree(old, ignore_errors=True)
    log.unlink(missing_ok=True)


def _roll_back(root: Path, entries: list[dict], log: Path) -> None:
    """After a failed swap: put the old trees back where they were swapped out, drop the new ones.
    Where even that fails the journal stays, and the next run finishes the swap instead."""
    for entry in reversed(entries):
        target, stage = root / entry["target"], root / entry["stage"]
        old = Path(f"{stage}{_OLD}")
        if old.exists():  # the fallback moved the old tree aside, and maybe the new one in
            if _inode(target) == entry["inode"]:
                os.replace(target, stage)
            os.replace(old, target)
        elif _inode(target) == entry["inode"]:
            if not stage.exists():
                os.replace(target, stage)  # the tree was new: nothing to put back
            elif not _exchange(stage, target):
                return
    for entry in entries:
        shutil.rmtree(root / entry["stage"], ignore_errors=True)
    log.unlink(missing_ok=True)


def _inode(path: Path) -> int | None:
    try:
        return path.stat().st_ino
    except FileNotFoundError:
        return None


def _exchange(a: Path, b: Path) -> bool:
    """Swap two paths in one step (Linux renameat2); False where the kernel or libc cannot."""
    fn = getattr(_libc, "renameat2", None)
    if fn is None:
        return False
    rc = fn(_AT_FDCWD, os.fsencode(a), _AT_FDCWD, os.fsencode(b), _RENAME_EXCHANGE)
    return rc == 0
