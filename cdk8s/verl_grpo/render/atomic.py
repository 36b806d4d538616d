"""Replace a directory tree all at once: a failed or killed run leaves the old tree as it was."""

from __future__ import annotations

import ctypes
import os
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

_AT_FDCWD = -100
_RENAME_EXCHANGE = 2
_libc = ctypes.CDLL(None, use_errno=True)


def _exchange(a: Path, b: Path) -> bool:
    """Swap two paths in one step (Linux renameat2); False where the kernel or libc cannot."""
    fn = getattr(_libc, "renameat2", None)
    if fn is None:
        return False
    rc = fn(_AT_FDCWD, os.fsencode(a), _AT_FDCWD, os.fsencode(b), _RENAME_EXCHANGE)
    return rc == 0


@contextmanager
def staged_dir(target: Path) -> Iterator[Path]:
    """Yield an empty directory beside `target`; on success it becomes `target`, else it vanishes."""
    target.parent.mkdir(parents=True, exist_ok=True)
    stage = Path(tempfile.mkdtemp(prefix=f".{target.name}.new-", dir=target.parent))
    stage.chmod(0o755)  # mkdtemp makes it private; the result is an ordinary directory
    try:
        yield stage
        if target.exists():
            if not _exchange(stage, target):
                old = Path(tempfile.mkdtemp(prefix=f".{target.name}.old-", dir=target.parent))
                os.replace(target, old / target.name)
                os.replace(stage, target)
                stage = old
        else:
            os.replace(stage, target)
            return
    finally:
        shutil.rmtree(stage, ignore_errors=True)


def write_tree(target: Path, subtrees: dict[str, dict[str, str]]) -> None:
    """Replace the folders `target/<name>/` with the given files (relative path -> text) in one step.

    Everything else under `target` is carried over, so the swap replaces only what was asked.
    """
    with staged_dir(target) as stage:
        if target.exists():
            shutil.copytree(target, stage, dirs_exist_ok=True, symlinks=True)
        for name, files in subtrees.items():
            shutil.rmtree(stage / name, ignore_errors=True)
            for rel, text in files.items():
                path = stage / name / rel
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_text(text)
