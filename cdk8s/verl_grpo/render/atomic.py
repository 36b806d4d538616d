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
                stage = _swap_by_two_renames(stage, target)
        else:
            os.replace(stage, target)
            return
    finally:
        shutil.rmtree(stage, ignore_errors=True)


def _swap_by_two_renames(stage: Path, target: Path) -> Path:
    """target := stage where renameat2 cannot swap; returns what to delete. A failed rename puts
    everything back, so neither the old tree is lost nor a `.old-*` folder left."""
    old = Path(tempfile.mkdtemp(prefix=f".{target.name}.old-", dir=target.parent))
    try:
        os.replace(target, old / target.name)
    except OSError:
        old.rmdir()
        raise
    try:
        os.replace(stage, target)
    except OSError:
        os.replace(old / target.name, target)
        old.rmdir()
        raise
    return old


def write_tree(target: Path, files: dict[str, str | bytes], replace: list[str] | None = None) -> None:
    """Make `target` hold `files` (relative path -> content), swapped in as one step.

    `replace` lists the entries (folders or files) the new content replaces; everything else
    already under `target` is carried over. None replaces the whole tree.
    """
    with staged_dir(target) as stage:
        if target.exists() and replace is not None:
            shutil.copytree(target, stage, dirs_exist_ok=True, symlinks=True)
            for entry in replace:
                path = stage / entry
                if path.is_dir():
                    shutil.rmtree(path)
                else:
                    path.unlink(missing_ok=True)
        for rel, content in files.items():
            path = stage / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            if isinstance(content, bytes):
                path.write_bytes(content)
            else:
                path.write_text(content)
