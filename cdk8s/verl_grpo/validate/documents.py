"""Read manifests from files and folders: every YAML/JSON document with its source."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from ..render.yaml_io import TooLarge, load_all_limited

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
    docs: list[Document] = []
    for root in paths:
        if not root.exists():
            raise UnreadableInput(f"{root}: no such file or directory")
        files = sorted(p for p in root.rglob("*") if p.is_file()) if root.is_dir() else [root]
        for path in files:
            if path.suffix not in SUFFIXES or path.name in NOT_MANIFESTS:
                continue
            try:
                bodies = load_all_limited(path.read_text(encoding="utf-8"))
            except UnicodeDecodeError as e:
                raise UnreadableInput(f"{path}: not UTF-8 text ({e.reason})") from e
            except TooLarge as e:
                raise UnreadableInput(f"{path}: refused: {e}") from e
            except yaml.YAMLError as e:
                first = str(e).splitlines()[0] if str(e) else type(e).__name__
                raise UnreadableInput(f"{path}: not valid YAML: {first}") from e
            many = len(bodies) > 1
            docs += [Document(f"{path}#{i}" if many else str(path), b) for i, b in enumerate(bodies)]
    return docs
