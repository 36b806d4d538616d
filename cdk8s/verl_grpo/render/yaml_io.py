"""YAML in and out: the C loader/dumper where available, block style for multi-line strings."""

from __future__ import annotations

from typing import Any

import yaml

_Dumper = getattr(yaml, "CSafeDumper", yaml.SafeDumper)
_Loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class ManifestDumper(_Dumper):  # type: ignore[misc,valid-type]
    pass


def _str(dumper: yaml.SafeDumper, value: str) -> yaml.Node:
    style = "|" if "\n" in value else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)


ManifestDumper.add_representer(str, _str)


def dump(doc: Any) -> str:
    return yaml.dump(doc, Dumper=ManifestDumper, sort_keys=False, width=10_000, allow_unicode=True)


def dump_all(docs: list[Any]) -> str:
    return yaml.dump_all(docs, Dumper=ManifestDumper, sort_keys=False, width=10_000, allow_unicode=True)


def load(text: str) -> Any:
    return yaml.load(text, Loader=_Loader)


def load_all(text: str) -> list[Any]:
    return [d for d in yaml.load_all(text, Loader=_Loader) if d is not None]
