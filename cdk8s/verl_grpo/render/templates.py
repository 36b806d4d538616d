"""Turn marker-mode renderings into Helm templates: one file per object, its variants merged into
one tree with guards only around the subtrees where they differ."""

from __future__ import annotations

import itertools
import json
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, NamedTuple

from ..values.refs import GATE, MARKER, MarkerTable
from ..yaml_io import dump

if TYPE_CHECKING:
    from .facts import Facts


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
# A Go template string literal, as json.dumps writes the ones in our actions (_action).
LITERAL = re.compile(r'"(?:[^"\\]|\\.)*"')


def combos(dims: list[Dimension]) -> list[Combo]:
    return list(itertools.product(*(d.choices for d in dims)))


@dataclass(frozen=True)
class Action:
    """A scalar the template computes: the text of one `{{ ... }}` action."""

    text: str


@dataclass(frozen=True)
class Variants:
    """A value that differs between variants: (guard, value) pairs; a None guard is the `else`."""

    choices: tuple[tuple[str | None, Any], ...]


class GatedKey(NamedTuple):
    """A mapping key present only when `condition` holds (Ops.fields_since)."""

    condition: str
    key: str


def to_tree(node: Any, table: MarkerTable) -> Any:
    """One variant's object with its marker strings turned into Actions and its gated keys into
    GatedKeys, so that trees of different variants (each with its own marker table) compare."""
    if isinstance(node, dict):
        out = {}
        for key, value in node.items():
            if gate := GATE.match(str(key)):
                key = GatedKey(table.gates[int(gate.group(1))], key[gate.end() :])
            else:
                assert not MARKER.search(str(key)) and "{{" not in str(key), f"template in a key: {key}"
            out[key] = to_tree(value, table)
        return out
    if isinstance(node, list):
        return [to_tree(v, table) for v in node]
    if isinstance(node, str) and (MARKER.search(node) or "{{" in node or "}}" in node):
        return Action(_action(node, table))
    return node


def merge(trees: dict[Combo, Any], dims: list[Dimension], facts: Facts | None = None) -> Any:
    """One tree for all variants: what they share once, a Variants node at the smallest subtree
    where they differ (a mapping key missing in some variants is a Variants without an `else`),
    or a lookup in `facts` where a scalar differs only with the GPU type and mode."""
    return _Merge(set(trees), dims, facts).tree(trees, ())


@dataclass(frozen=True)
class _Merge:
    context: set[Combo]  # the variants the object exists in: guards tell apart only these
    dims: list[Dimension]
    facts: Facts | None

    def tree(self, trees: dict[Combo, Any], path: tuple[Any, ...]) -> Any:
        values = list(trees.values())
        if len({repr(v) for v in values}) == 1:
            return values[0]
        if all(isinstance(v, dict) for v in values):
            out = {}
            for k in _key_order([list(v) for v in values]):
                having = {c: t[k] for c, t in trees.items() if k in t}
                if len(having) == len(trees):
                    out[k] = self.tree(having, (*path, k))
                elif isinstance(k, GatedKey):  # present in some variants, and then gated
                    assert len({repr(v) for v in having.values()}) == 1, f"a gated key that varies: {k}"
                    where = condition(set(having), self.dims, self.context)
                    out[GatedKey(f"and ({where}) ({k.condition})", k.key)] = next(iter(having.values()))
                else:  # a key missing in some variants
                    # Within the variants that have it, its value may be one (or a lookup): then
                    # one guard for the key, not one per value.
                    inner = _Merge(set(having), self.dims, self.facts).tree(having, (*path, k))
                    if isinstance(inner, Variants):
                        out[k] = self.variants(having, (*path, k))
                    else:
                        out[k] = Variants(((condition(set(having), self.dims, self.context), inner),))
            return out
        if all(isinstance(v, list) for v in values) and len({len(v) for v in values}) == 1:
            items = [
                self.tree({c: t[i] for c, t in trees.items()}, (*path, i)) for i in range(len(values[0]))
            ]
            # A list item cannot carry a guard, nor can the first key of a mapping item ("- key:").
            if not any(isinstance(i, Variants) or _first_value_varies(i) for i in items):
                return items
        return self.variants(trees, path)

    def variants(self, trees: dict[Combo, Any], path: tuple[Any, ...]) -> Any:
        complete = set(trees) == self.context
        if self.facts is not None and complete and (lookup := self.facts.lookup(trees, path)) is not None:
            return lookup
        groups: dict[str, tuple[set[Combo], Any]] = {}
        for c, v in trees.items():
            groups.setdefault(repr(v), (set(), v))[0].add(c)
        order = combos(self.dims)
        ordered = sorted(groups.values(), key=lambda g: min(order.index(c) for c in g[0]))
        ordered = self._looked_up(trees, ordered, path)
        choices = []
        for i, (group, value) in enumerate(ordered):
            last = i == len(ordered) - 1
            guard = None if complete and last and i > 0 else condition(group, self.dims, self.context)
            choices.append((guard, value))
        return Variants(tuple(choices))

    def _looked_up(
        self, trees: dict[Combo, Any], groups: list[tuple[set[Combo], Any]], path: tuple[Any, ...]
    ) -> list[tuple[set[Combo], Any]]:
        """Groups whose values differ only with the GPU type and mode, joined into one that reads
        the difference from the facts table: a branch for each machine shape, not for each machine
        (A4X's extra settings beside A4's and A3 Ultra's, which differ in a tuner path only)."""
        if self.facts is None:
            return groups
        out = list(groups)
        joined = True
        while joined and len(out) > 1:
            joined = False
            for i, j in itertools.combinations(range(len(out)), 2):
                if self._beyond_facts(out[i][0]) != self._beyond_facts(out[j][0]):
                    continue  # they differ in more than the machine: keep both guards
                union = out[i][0] | out[j][0]
                if (lookup := self.facts.lookup({c: trees[c] for c in union}, path)) is not None:
                    out[i] = (union, lookup)
                    del out[j]
                    joined = True
                    break
        return out

    def _beyond_facts(self, group: set[Combo]) -> set[tuple[Any, ...]]:
        """The group's combos, less the GPU type and mode."""
        assert self.facts is not None
        return {tuple(v for i, v in enumerate(c) if i not in self.facts.index) for c in group}


def _key_order(orders: list[list[Any]]) -> list[Any]:
    """All keys, each after every key that precedes it in any variant (so each variant's output
    keeps its own order); first appearance breaks ties, and a contradiction."""
    first: list[Any] = []
    for order in orders:
        first += [k for k in order if k not in first]
    placed: list[Any] = []
    while len(placed) < len(first):
        ready = [
            k
            for k in first
            if k not in placed and all(set(o[: o.index(k)]) <= set(placed) for o in orders if k in o)
        ]
        placed.append(ready[0] if ready else next(k for k in first if k not in placed))
    return placed


def _first_value_varies(item: Any) -> bool:
    if not isinstance(item, dict) or not item:
        return False
    first_key, first = next(iter(item.items()))
    return isinstance(first, Variants) or isinstance(first_key, GatedKey)


def render_tree(tree: Any) -> str:
    """YAML text of a merged tree: Actions as `{{ ... }}`, Variants and GatedKeys as guarded keys."""
    actions: list[str] = []
    guards: list[tuple[str, str | None]] = []  # (IF, ELIF or ELSE; condition)

    def guarded(kind: str, cond: str | None, key: str) -> str:
        guards.append((kind, cond))
        return f"__{kind}{len(guards) - 1}__{key}"

    def convert(node: Any) -> Any:
        if isinstance(node, Action):
            actions.append(node.text)
            return f"__TPL{len(actions) - 1}__"
        if isinstance(node, list):
            return [convert(v) for v in node]
        if not isinstance(node, dict):
            return node
        out = {}
        for key, value in node.items():
            if isinstance(key, GatedKey):
                out[guarded("IF", key.condition, key.key)] = convert(value)
            elif isinstance(value, Variants):
                for i, (cond, choice) in enumerate(value.choices):
                    kind = "IF" if i == 0 else ("ELIF" if cond else "ELSE")
                    out[guarded(kind, cond, key)] = convert(choice)
            else:
                out[key] = convert(value)
        return out

    text = _guard_lines(dump(convert(tree)), guards)
    # Replace the longest numbers first so __TPL1__ never matches inside __TPL12__.
    for i in sorted(range(len(actions)), reverse=True):
        text = text.replace(f"__TPL{i}__", actions[i])
    return text


_GUARDED_LINE = re.compile(r"^( *)__(IF|ELIF|ELSE)(\d+)__")


def _guard_lines(text: str, guards: list[tuple[str, str | None]]) -> str:
    """Turn each guarded key line (with the lines nested under it) into an if/else-if/else chain."""
    lines, out = text.split("\n"), []
    i = 0
    while i < len(lines):
        found = _GUARDED_LINE.match(lines[i])
        if found is None:
            out.append(lines[i])
            i += 1
            continue
        indent, kind, n = found.group(1), found.group(2), int(found.group(3))
        cond = guards[n][1]
        opener = {"IF": f"if {cond}", "ELIF": f"else if {cond}", "ELSE": "else"}[kind]
        out.append(f"{indent}{{{{- {opener} }}}}")
        out.append(indent + lines[i][found.end() :])
        i += 1
        # Nested lines: deeper ones, and a block sequence's items at the key's own indent.
        while i < len(lines) and (lines[i].startswith(indent + " ") or lines[i].startswith(indent + "- ")):
            out.append(lines[i])
            i += 1
        following = _GUARDED_LINE.match(lines[i]) if i < len(lines) else None
        if not (following and following.group(1) == indent and following.group(2) in ("ELIF", "ELSE")):
            out.append(f"{indent}{{{{- end }}}}")
    return "\n".join(out)


def object_template(trees: dict[Combo, Any], dims: list[Dimension], facts: Facts | None = None) -> str:
    """The template of one object: its merged tree, guarded by the variants where it exists."""
    from .facts import with_lookup

    body = with_lookup(render_tree(merge(trees, dims, facts)))
    guard = condition(set(trees), dims)
    return body if guard is None else f"{{{{- if {guard} }}}}\n{body}{{{{- end }}}}\n"


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


def condition(group: set[Combo], dims: list[Dimension], context: set[Combo] | None = None) -> str | None:
    """The simplest guard that holds for `group` and for no other combo of `context` (all combos
    by default): dimensions that do not tell them apart are dropped."""
    everything = set(combos(dims)) if context is None else context
    if everything <= group:
        return None
    relevant = [
        i
        for i, d in enumerate(dims)
        if any(
            (alt_c := c[:i] + (alt,) + c[i + 1 :]) in everything and alt_c not in group
            for c in group
            for alt in d.choices
        )
    ]
    guard = _guard(group, relevant, dims, everything)
    outside = everything - group
    if any(tuple(c[i] for i in relevant) in {tuple(g[i] for i in relevant) for g in group} for c in outside):
        # the shortcut was too loose: be exact
        guard = _guard(group, list(range(len(dims))), dims, everything)
    if guard.startswith("(or ") and len(outside) < len(group):
        # "all but these few" reads better as the negation of the few
        negated = f"(not {condition(outside, dims, everything)})"
        guard = min(guard, negated, key=len)
    return guard


def _guard(group: set[Combo], relevant: list[int], dims: list[Dimension], everything: set[Combo]) -> str:
    projected = sorted({tuple(c[i] for i in relevant) for c in group}, key=repr)
    per_dim = [sorted({p[j] for p in projected}, key=repr) for j in range(len(relevant))]
    if not relevant:
        return "true"
    if len(projected) == _product_size(per_dim):
        return _and([_any_of(dims[i], vals) for i, vals in zip(relevant, per_dim, strict=True)])
    if (box_less := _box_less(projected, per_dim, relevant, dims, everything)) is not None:
        return box_less
    return (
        "(or "
        + " ".join(_and([dims[i].test(v) for i, v in zip(relevant, p, strict=True)]) for p in projected)
        + ")"
    )


def _box_less(
    projected: list[tuple[Any, ...]],
    per_dim: list[list[Any]],
    relevant: list[int],
    dims: list[Dimension],
    everything: set[Combo],
) -> str | None:
    """`(and <box> (not <hole>))` when the group is the smallest box of choices around it less a
    box-shaped hole ("A4X, except flex-start through Kueue"), else None."""
    seen = {tuple(c[i] for i in relevant) for c in everything}
    box = {p for p in itertools.product(*per_dim) if p in seen}
    hole = sorted(box - set(projected), key=repr)
    hole_dims = [sorted({h[j] for h in hole}, key=repr) for j in range(len(relevant))]
    if not hole or len(hole) != _product_size(hole_dims):
        return None
    narrowed = [j for j in range(len(relevant)) if hole_dims[j] != per_dim[j]]
    every = [{p[j] for p in seen} for j in range(len(relevant))]
    inside = [
        _any_of(dims[relevant[j]], per_dim[j]) for j in range(len(relevant)) if set(per_dim[j]) != every[j]
    ]
    hole_test = _and([_any_of(dims[relevant[j]], hole_dims[j]) for j in narrowed])
    return _and([*inside, f"(not {hole_test})"])


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
