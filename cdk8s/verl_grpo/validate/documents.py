"""Read manifests from files and folders: every YAML/JSON document with its source."""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from ..yaml_io import TooLarge, load_all_limited

SUFFIXES = {".yaml", ".yml", ".json"}
# Files that live beside manifests but are not objects for the API server.
NOT_MANIFESTS = {"kustomization.yaml", "kustomization.yml", "Chart.yaml", "values.yaml", "runtime-env.yaml"}


@dataclass(frozen=True)
class Document:
    source: str
    body: Any


class UnreadableInput(Exception):
    pass


def read_documents(paths: list[Path]) -> list[Document]:
    """Every object in `paths` (files, folders, `-` for stdin); input with no object at all is an
    error, as a validation that checked nothing must not pass."""
    return parse(read_sources(paths))


Sources = list[tuple[str, list[tuple[str, str]]]]


def read_sources(paths: list[Path]) -> Sources:
    """Each path as given -> its manifest files' (name, text), unparsed: the validation cache is
    keyed by the text, so that a hit parses nothing."""
    return [(str(root), [("stdin", sys.stdin.read())] if str(root) == "-" else _read(root)) for root in paths]


def parse(sources: Sources) -> list[Document]:
    docs: list[Document] = []
    for root, files in sources:
        found = [doc for name, text in files for doc in _documents(name, text)]
        if not found:
            raise UnreadableInput(f"{root}: no Kubernetes objects to validate")
        docs += found
    return docs


def _read(root: Path) -> list[tuple[str, str]]:
    if not root.exists():
        raise UnreadableInput(f"{root}: no such file or directory")
    files = sorted(p for p in root.rglob("*") if p.is_file()) if root.is_dir() else [root]
    texts = []
    for path in files:
        if path.suffix not in SUFFIXES or path.name in NOT_MANIFESTS:
            continue
        try:
            texts.append((str(path), path.read_text(encoding="utf-8")))
        except UnicodeDecodeError as e:
            raise UnreadableInput(f"{path}: not UTF-8 text ({e.reason})") from e
    return texts


def _documents(source: str, text: str) -> list[Document]:
    try:
        bodies = [b for b in load_all_limited(text) if b is not None]
    except TooLarge as e:
        raise UnreadableInput(f"{source}: refused: {e}") from e
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        where = f"{source}:{mark.line + 1}:{mark.column + 1}" if mark else source
        problem = getattr(e, "problem", None) or (str(e).splitlines()[0] if str(e) else type(e).__name__)
        raise UnreadableInput(f"{where}: not valid YAML: {problem}") from e
    many = len(bodies) > 1
    return [Document(f"{source}#{i}" if many else source, b) for i, b in enumerate(bodies)]
