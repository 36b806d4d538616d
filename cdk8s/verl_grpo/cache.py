"""Results cached on disk, keyed by every input, so that a hit cannot be stale.

A key is a sha256 over the inputs the caller names plus `code_digest()`: the bytes of every file of
this package (its code and its data) and the versions of the libraries whose behaviour shapes a
result. Any edit or upgrade changes the key; nothing is ever invalidated by hand. A cache that
cannot be read or written only costs time.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import json
import os
import sys
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

PACKAGE = Path(__file__).resolve().parent


def root() -> Path:
    """$XDG_CACHE_HOME/verl-grpo (default ~/.cache/verl-grpo), read when called: tests point it
    at empty folders."""
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "verl-grpo"


@functools.cache
def code_digest() -> str:
    """The package's files, the Python version and every installed library's name and version (the
    `*.dist-info` folders on sys.path: listing them costs far less than importlib.metadata)."""
    h = hashlib.sha256(sys.version.encode())
    for path in sorted(PACKAGE.rglob("*")):
        if path.is_file() and "__pycache__" not in path.parts:
            h.update(f"\0{path.relative_to(PACKAGE)}\0".encode())
            h.update(path.read_bytes())
    for entry in sys.path:
        try:
            names = sorted(n for n in os.listdir(entry or ".") if n.endswith(".dist-info"))
        except OSError:
            continue
        h.update("\0".join(names).encode())
    return h.hexdigest()


def key(parts: Iterable[str | bytes]) -> str:
    h = hashlib.sha256(code_digest().encode())
    for part in parts:
        data = part.encode() if isinstance(part, str) else part
        h.update(len(data).to_bytes(8, "big"))  # lengths, so that no two part lists hash alike
        h.update(data)
    return h.hexdigest()[:40]


def read(kind: str, digest: str) -> Any | None:
    try:
        return json.loads((root() / kind / f"{digest}.json").read_text())
    except (OSError, ValueError):
        return None


def write(kind: str, digest: str, value: Any) -> None:
    folder = root() / kind
    tmp = folder / f"{digest}.{os.getpid()}.tmp"
    try:
        folder.mkdir(parents=True, exist_ok=True)
        tmp.write_text(json.dumps(value))
        os.replace(tmp, folder / f"{digest}.json")  # readers see the whole entry or none
    except OSError:
        with contextlib.suppress(OSError):
            tmp.unlink(missing_ok=True)


def cached(kind: str, parts: Iterable[str | bytes], compute: Callable[[], Any]) -> Any:
    """`compute()`'s JSON value, or the one a run with the same inputs (`kind`, `parts`, the code)
    stored before."""
    digest = key([kind, *parts])
    hit = read(kind, digest)
    if hit is not None:
        return hit
    value = compute()
    write(kind, digest, value)
    return value
