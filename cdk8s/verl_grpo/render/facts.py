"""Per-GPU and per-mode facts as chart data.

A value that differs between variants only with gpu.type and cluster.mode (an accelerator label,
a machine's derived memory default) is looked up in one table, templates/_facts.tpl, instead of
being spelled out in an if/else chain per GPU type: `index $facts "..."` reads like what a Helm
author writes, and adding a GPU type adds rows to the table, not branches to every template.
"""

from __future__ import annotations

import json
import os
import re
from typing import Any

from ..yaml_io import dump
from .templates import LITERAL, Action, Combo, Dimension

FACT_KEYS = ("gpu.type", "cluster.mode")
TEMPLATE = "verl-grpo.facts"
LOOKUP = (
    f'{{{{- $facts := index (include "{TEMPLATE}" . | fromYaml) .Values.gpu.type .Values.cluster.mode }}}}'
)
# Actions split at their string literals: code, literal, code, ... (re.split keeps the group).
LITERALS = re.compile(f"({LITERAL.pattern})")
JOINED = re.compile(r"^\{\{ list ")  # a `{{ list ... | join "" | toJson }}` action (templates._action)
DEFAULT_OF = re.compile(r"\.Values\.([A-Za-z0-9_.]+) \| default $")
WORD = re.compile(r"[A-Za-z0-9_]")
TOKEN = re.compile(r"[A-Za-z0-9_./-]")  # a word, a file name or a path
QUOTABLE = re.compile(r"^[A-Za-z0-9_./-]+$")  # strings `quote` writes as they are, in double quotes


class Facts:
    """The table the templates look up, filled while their variants are merged."""

    def __init__(self, dims: list[Dimension]) -> None:
        self.dims = dims
        self.index = [i for i, d in enumerate(dims) if d.key in FACT_KEYS]
        self.table: dict[str, dict[tuple[Any, ...], Any]] = {}

    def lookup(self, trees: dict[Combo, Any], path: tuple[Any, ...]) -> Action | None:
        """An Action that reads the varying value from the table, or None when the value varies
        with anything but the fact keys or is not a scalar (then it stays a guarded block)."""
        per_fact: dict[tuple[Any, ...], Any] = {}
        for combo, value in trees.items():
            if repr(per_fact.setdefault(self.key(combo), value)) != repr(value):
                return None
        values = list(trees.values())
        if all(isinstance(v, Action) for v in values):
            saved = dict(self.table)
            if (found := self._in_action(trees, path)) is None:
                self.table = saved  # facts added for a literal before another failed are not read
            return found
        if all(_plain(v) for v in values):
            return Action(f"{{{{ $facts.{self.add(trees, _name(path))} }}}}")
        if all(isinstance(v, str) and QUOTABLE.match(v) for v in values):
            # a string YAML would read as a number ('8'): the table keeps it quoted, so does `quote`
            return Action(f"{{{{ $facts.{self.add(trees, _name(path))} | quote }}}}")
        return None

    def _in_action(self, trees: dict[Combo, Action], path: tuple[Any, ...]) -> Action | None:
        """Actions that differ in string literals only. In a `list ... | join ""` action only the
        differing word of the literal is looked up (or read from .Values where it is the GPU
        type or mode itself); elsewhere the whole literal is."""
        split = {c: LITERALS.split(a.text) for c, a in trees.items()}
        pieces = list(split.values())
        if len({len(p) for p in pieces}) != 1 or len({tuple(p[0::2]) for p in pieces}) != 1:
            return None
        differing = [i for i in range(1, len(pieces[0]), 2) if len({p[i] for p in pieces}) > 1]
        out = list(pieces[0])
        for at in differing:
            texts = {c: json.loads(p[at]) for c, p in split.items()}
            # `.Values.worker.memory | default "3597Gi"`: the fact is that value's default.
            defaulted = DEFAULT_OF.search(pieces[0][at - 1])
            if JOINED.match(pieces[0][0]) and not defaulted:
                if (replacement := self._in_joined_literal(texts, path)) is None:
                    return None
            else:
                name = _camel(defaulted.group(1).split(".")[-2:]) if defaulted else _name(path)
                replacement = f"$facts.{self.add(texts, name)}"
            out[at] = replacement
        return Action("".join(out))

    def _in_joined_literal(self, texts: dict[Combo, str], path: tuple[Any, ...]) -> str | None:
        """`"prefix" <lookup> "suffix"`: list items around the word that differs; None where whole
        lines differ (settings one machine has and another lacks: a guarded block says it better)."""
        values = list(texts.values())
        start = len(os.path.commonprefix(values))
        end = len(os.path.commonprefix([v[::-1] for v in values]))
        start, end = min(start, *(len(v) - end for v in values)), end
        for chars, read in ((WORD, self._dimension), (TOKEN, None)):
            lo, hi = _widen(values, start, end, chars)
            middles = {c: v[lo : len(v) - hi] for c, v in texts.items()}
            if any("\n" in m for m in middles.values()):
                return None
            lookup = read(middles) if read else f"$facts.{self.add(middles, _name(path, values[0][:lo]))}"
            if lookup:
                prefix, suffix = values[0][:lo], values[0][len(values[0]) - hi :]
                items = [json.dumps(prefix, ensure_ascii=False)] if prefix else []
                items.append(lookup)
                items += [json.dumps(suffix, ensure_ascii=False)] if suffix else []
                return " ".join(items)
        raise AssertionError("unreachable")

    def _dimension(self, middles: dict[Combo, str]) -> str | None:
        """`.Values.gpu.type` (or cluster.mode) where the differing word is that value itself."""
        for i in self.index:
            if all(m == c[i] for c, m in middles.items()):
                return f".Values.{self.dims[i].key}"
        return None

    def key(self, combo: Combo) -> tuple[Any, ...]:
        return tuple(combo[i] for i in self.index)

    def add(self, values: dict[Combo, Any], name: str) -> str:
        rows = {self.key(c): v for c, v in values.items()}
        for known, existing in self.table.items():
            if existing == rows:
                return known
        unique, n = name, 2
        while unique in self.table:
            unique, n = f"{name}{n}", n + 1
        self.table[unique] = rows
        return unique

    def template(self) -> str:
        """templates/_facts.tpl: gpu.type -> cluster.mode -> fact -> value."""
        gpus, modes = (self.dims[i].choices for i in self.index)
        tree: dict[Any, Any] = {gpu: {mode: {} for mode in modes} for gpu in gpus}
        for name, rows in sorted(self.table.items()):
            for (gpu, mode), value in rows.items():
                tree[gpu][mode][name] = value
        return (
            "{{- /* By GPU type and mode: machine facts (data/gpus/), defaults (values/derive.py). */}}\n"
            f'{{{{- define "{TEMPLATE}" }}}}\n{dump(tree)}{{{{ end }}}}\n'
        )


def with_lookup(body: str) -> str:
    """The template text with `$facts` bound first, where it reads facts."""
    return f"{LOOKUP}\n{body}" if "$facts." in body else body


def _plain(value: Any) -> bool:
    """A str or int the YAML dumper writes as it is (so `{{ $facts.x }}` prints the same bytes)."""
    return (
        isinstance(value, (str, int))
        and not isinstance(value, bool)
        and dump({"k": value}) == f"k: {value}\n"
    )


def _widen(values: list[str], start: int, end: int, chars: re.Pattern[str]) -> tuple[int, int]:
    """The differing span [start, len - end) of every value grown to whole `chars` tokens:
    how many characters stay common in front and behind."""
    lo, hi = start, end
    while lo > 0 and all(chars.match(v[lo - 1]) for v in values):
        lo -= 1
    while hi > 0 and all(chars.match(v[len(v) - hi]) for v in values):
        hi -= 1
    return lo, hi


def _name(path: tuple[Any, ...], before: str = "") -> str:
    """A fact's name from where it sits: the `KEY:`, `KEY=` or `--key ` just before it inside a text, else
    the last mapping key; camelCase (NCCL_TUNER_CONFIG_PATH -> ncclTunerConfigPath)."""
    inline = re.search(r"([A-Za-z_][A-Za-z0-9_]*)\W*[:=][^\n:=]*$", before) or re.search(
        r"--([A-Za-z][-A-Za-z0-9]*) $", before
    )  # `KEY: `, `KEY=` or a command's `--flag `
    key = (
        inline.group(1).lower()
        if inline
        else next(str(getattr(k, "key", k)) for k in reversed(path) if not isinstance(k, int))
    )
    return _camel(re.split(r"[^A-Za-z0-9]+", key.rsplit("/", 1)[-1]))


def _camel(words: list[str]) -> str:
    words = [w for w in words if w]
    return words[0] + "".join(w[:1].upper() + w[1:] for w in words[1:])
