"""Turn marker-mode renderings into Helm templates: one file per object, one block per variant."""

from __future__ import annotations

import itertools
import json
from collections import defaultdict
from dataclasses import dataclass
from typing import Any

from ..values.refs import MARKER, MarkerTable
from .yaml_io import dump


@dataclass(frozen=True)
class Dimension:
    key: str  # values path, e.g. "cluster.mode"
    choices: tuple[Any, ...]

    def test(self, value: Any) -> str:
        """A Go template condition that holds when this key equals `value`."""
        if isinstance(value, bool):
            return f".Values.{self.key}" if value else f"(not .Values.{self.key})"
        return f"(eq .Values.{self.key} {json.dumps(value)})"


Combo = tuple[Any, ...]


def combos(dims: list[Dimension]) -> list[Combo]:
    return list(itertools.product(*(d.choices for d in dims)))


def to_template(manifest: dict[str, Any], table: MarkerTable) -> str:
    """YAML text of one object whose marker strings became `{{ ... }}` actions."""
    actions: list[str] = []

    def convert(node: Any) -> Any:
        if isinstance(node, dict):
            for key in node:
                assert not MARKER.search(str(key)) and "{{" not in str(key), f"template in a key: {key}"
            return {k: convert(v) for k, v in node.items()}
        if isinstance(node, list):
            return [convert(v) for v in node]
        if isinstance(node, str) and (MARKER.search(node) or "{{" in node or "}}" in node):
            actions.append(_action(node, table))
            return f"__TPL{len(actions) - 1}__"
        return node

    text = dump(convert(manifest))
    # Replace the longest numbers first so __TPL1__ never matches inside __TPL12__.
    for i in sorted(range(len(actions)), reverse=True):
        text = text.replace(f"__TPL{i}__", actions[i])
    return text


def _action(value: str, table: MarkerTable) -> str:
    whole = table.lookup(value)
    if whole is not None:
        return f"{{{{ {whole.go} | toJson }}}}"
    parts = []
    for i, piece in enumerate(MARKER.split(value)):
        if i % 2 == 0:
            if piece:
                parts.append(json.dumps(piece, ensure_ascii=False))
        else:
            expr = table.exprs[int(piece)]
            parts.append(expr.go if expr.kind == "str" else f"({expr.go} | toJson)")
    return f'{{{{ list {" ".join(parts)} | join "" | toJson }}}}'


def condition(group: set[Combo], dims: list[Dimension]) -> str | None:
    """The simplest guard for `group` within all combos: drop dimensions that do not matter."""
    everything = combos(dims)
    if set(everything) == group:
        return None
    relevant = [
        i
        for i, d in enumerate(dims)
        if any(c[:i] + (alt,) + c[i + 1 :] not in group for c in group for alt in d.choices)
    ]
    projected = sorted({tuple(c[i] for i in relevant) for c in group}, key=repr)
    per_dim = [sorted({p[j] for p in projected}, key=repr) for j in range(len(relevant))]
    if len(projected) == _product_size(per_dim):
        return _and([_any_of(dims[i], vals) for i, vals in zip(relevant, per_dim, strict=True)])
    return (
        "(or "
        + " ".join(_and([dims[i].test(v) for i, v in zip(relevant, p, strict=True)]) for p in projected)
        + ")"
    )


def _product_size(lists: list[list[Any]]) -> int:
    n = 1
    for values in lists:
        n *= len(values)
    return n


def _any_of(dim: Dimension, values: list[Any]) -> str:
    if len(values) == 1:
        return dim.test(values[0])
    if all(isinstance(v, bool) for v in values):
        return "true"
    return f"(eq .Values.{dim.key} {' '.join(json.dumps(v) for v in values)})"


def _and(tests: list[str]) -> str:
    return tests[0] if len(tests) == 1 else "(and " + " ".join(tests) + ")"


def template_file(texts: dict[Combo, str], dims: list[Dimension]) -> str:
    """One template: the object's text per combo where it exists, grouped and guarded."""
    groups: dict[str, set[Combo]] = defaultdict(set)
    for combo, text in texts.items():
        groups[text].add(combo)
    ordered = sorted(groups.items(), key=lambda item: min(combos(dims).index(c) for c in item[1]))
    if len(ordered) == 1 and condition(ordered[0][1], dims) is None:
        return ordered[0][0]
    out = []
    for i, (text, group) in enumerate(ordered):
        guard = condition(group, dims) or "true"
        out.append(f"{{{{- {'if' if i == 0 else 'else if'} {guard} }}}}\n{text}")
    out.append("{{- end }}\n")
    return "".join(out)
