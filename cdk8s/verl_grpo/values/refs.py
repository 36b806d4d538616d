"""Values as references: how one construct code path renders both dist/ and Helm templates.

In *concrete* mode constructs see real values. In *marker* mode every non-variant leaf is a
unique marker string (``@@N@@``) that the chart writer turns into a Go template expression.
Constructs stay oblivious: they only pass leaves through, splice them into strings with
``text()``/``join()`` and pick derived defaults with ``Ops.or_default``. No arithmetic or
branching on a non-variant leaf is allowed (the parity tests catch it).
"""

from __future__ import annotations

import hashlib
import json
import math
import re
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any, NoReturn

MIB = 2**20
QUANTITY_DEFINE = "verl-grpo.quantity"  # expressions.QUANTITY_TEMPLATE, which imports this module

MARKER = re.compile(r"@@(\d+)@@")
# The chart's sum of every worker group's replicas (cross_rules.py defines it in _rules.tpl).
WORKER_COUNT_TEMPLATE = "verl-grpo.workerCount"
# A mapping key that exists only when a condition holds: "@@ifN@@key" (N indexes MarkerTable.gates).
GATE = re.compile(r"^@@if(\d+)@@")


@dataclass(frozen=True)
class Expr:
    """A Go template expression; inside a string 'str' splices raw, 'json' via toJson.

    A whole YAML value is always rendered with toJson, which keeps its type.
    """

    go: str
    kind: str


@dataclass
class MarkerTable:
    exprs: list[Expr] = field(default_factory=list)
    gates: list[str] = field(default_factory=list)  # Go template conditions of gated keys

    def gate(self, condition: str, key: str) -> str:
        self.gates.append(condition)
        return f"@@if{len(self.gates) - 1}@@{key}"

    def add(self, go: str, kind: str) -> Marker:
        self.exprs.append(Expr(go, kind))
        return Marker(f"@@{len(self.exprs) - 1}@@")

    def lookup(self, marker: str) -> Expr | None:
        m = MARKER.fullmatch(marker) if isinstance(marker, str) else None
        return self.exprs[int(m.group(1))] if m else None


class Marker(str):
    """A value the chart computes: it can be passed on and spliced into text (f-strings, text(),
    join()), nothing else. Branching, comparing or arithmetic on it would silently pick one side
    for every release, so they raise; a decision on a value goes through Ops (a guarded block)."""

    def _refuse(self, *_: object) -> NoReturn:
        raise TypeError(
            f"a construct branched on, compared or computed with the chart value {self}: "
            "use an Ops helper (values/refs.py) so the chart gets a guarded block"
        )

    __bool__ = __eq__ = __ne__ = __lt__ = __le__ = __gt__ = __ge__ = _refuse  # type: ignore[assignment]
    __mul__ = __rmul__ = __mod__ = __rmod__ = _refuse  # type: ignore[assignment]
    __hash__ = str.__hash__


class ListMarker(Marker):
    """A marker for a list of scalars; join() turns it into a spliceable string marker."""

    table: MarkerTable
    go: str

    def __new__(cls, table: MarkerTable, go: str) -> ListMarker:
        obj = super().__new__(cls, table.add(go, "json"))
        obj.table, obj.go = table, go
        return obj


def go_json_number(x: int | float) -> str:
    """Format a number exactly as Go's encoding/json (Helm's toJson) does."""
    if isinstance(x, bool):
        return "true" if x else "false"
    if isinstance(x, int):
        return str(x)
    if x == int(x) and abs(x) < 1e21:
        return str(int(x))
    if 1e-6 <= abs(x) < 1e21:
        return format(Decimal(repr(x)), "f")
    mantissa, exp = repr(x).split("e")
    return f"{mantissa}e{exp[0]}{exp[1:].lstrip('0') or '0'}"


def text(x: object) -> str:
    """A leaf as it appears inside a larger string; markers pass through unchanged."""
    if isinstance(x, str):
        return x
    if isinstance(x, bool | int | float):
        return go_json_number(x)
    raise TypeError(f"cannot splice {type(x).__name__} into a string")


def join(x: list | ListMarker, sep: str) -> str:
    if isinstance(x, ListMarker):
        return x.table.add(f"(join {json.dumps(sep)} {x.go})", "str")
    assert isinstance(x, list), f"join needs a list, got {x!r}"
    return sep.join(text(i) for i in x)


def join_prefixed(x: list | ListMarker, sep: str) -> str:
    """Each item preceded by `sep`; empty for an empty list (no trailing blanks in the output)."""
    if isinstance(x, ListMarker):
        sep_go = json.dumps(sep)
        go = f'(ternary "" (printf "%s%s" {sep_go} (join {sep_go} {x.go})) (empty {x.go}))'
        return x.table.add(go, "str")
    assert isinstance(x, list), f"join_prefixed needs a list, got {x!r}"
    return "".join(sep + text(i) for i in x)


def go_json(x: object) -> str:
    """Go's encoding/json (Helm's toJson): sorted keys, no spaces, <>& and U+2028/9 escaped."""
    if isinstance(x, dict):
        return "{" + ",".join(f"{go_json(str(k))}:{go_json(v)}" for k, v in sorted(x.items())) + "}"
    if isinstance(x, list | tuple):
        return "[" + ",".join(go_json(v) for v in x) + "]"
    if isinstance(x, str):
        text = json.dumps(x, ensure_ascii=False)
        for char in "<>&\u2028\u2029":
            text = text.replace(char, f"\\u{ord(char):04x}")
        return text
    if x is None:
        return "null"
    return go_json_number(x)  # type: ignore[arg-type]


class Ops:
    """Derived-value operations; concrete mode computes, marker mode records an expression."""

    def or_default(self, leaf: object, fallback: str) -> str:
        return leaf or fallback  # type: ignore[return-value]

    def fields_since(self, version: str, minimum: str, fields: dict[str, object]) -> dict[str, object]:
        """`fields` when `version` (x.y.z) is at least `minimum`, else none of them."""
        return dict(fields) if version_at_least(version, minimum) else {}

    def fields_if(
        self, leaf: object, equals: str, fields: dict[str, object], negate: bool = False
    ) -> dict[str, object]:
        """`fields` when the leaf is `equals` (is not, with `negate`), else none of them."""
        return dict(fields) if (leaf == equals) != negate else {}

    def fields_when(self, flag: object, fields: dict[str, object]) -> dict[str, object]:
        """`fields` when the boolean leaf is true, else none of them."""
        return dict(fields) if flag else {}

    def plus(self, a: object, b: object) -> object:
        """The sum of two integer leaves."""
        return a + b  # type: ignore[operator]

    def quantity_plus(self, leaf: object, extra: str) -> str:
        """The quantity leaf plus `extra`, in whole MiB rounded up ("107520Mi")."""
        from .quantity import parse_quantity

        total = parse_quantity(str(leaf)) + parse_quantity(extra)
        return f"{math.ceil(total / MIB)}Mi"

    def holds(self, leaf: object, equals: str, negate: bool = False) -> bool | str:
        """Whether the leaf is `equals` (is not, with `negate`): an object's existence decided by a
        value that is not a variant key. Marker mode: the chart's condition (a truthy string, which
        `ManifestConstruct.add_object(when=...)` wraps the object's template in)."""
        return (leaf == equals) != negate

    def prefixed(self, leaf: object, prefix: str) -> str:
        """`prefix` then the string leaf when it is set, else nothing (an optional suffix)."""
        return f"{prefix}{leaf}" if leaf else ""

    def appended(self, leaf: object, items: list[object]) -> object:
        """A list leaf with `items` after its own."""
        return [*leaf, *items]  # type: ignore[misc]

    def worker_groups(self, values: Any) -> list[Any]:
        """Each worker group as its pods see the values (values/worker_groups.py GroupView)."""
        from .worker_groups import group_views

        return group_views(values)

    def backoff_limit(self, values: Any) -> Any:
        """The RayJob's retries: job.backoffLimit, or its capacity's (worker_groups.backoff_limit)."""
        from .worker_groups import backoff_limit

        return backoff_limit(values)

    def total_workers(self, values: Any) -> Any:
        """The GPU worker pods of every group (verl's trainer.nnodes)."""
        from .worker_groups import total_workers

        return total_workers(values)

    def one_capacity(self, values: Any) -> Any:
        """Every worker group's nodes come from cluster.capacity (a boolean leaf)."""
        from .worker_groups import one_capacity

        return one_capacity(values)

    def leaves_digest(self, *leaves: object) -> str:
        """8 hex digits of sha256 over the leaves as Helm's `list ... | toJson` writes them."""
        return _digest(go_json(list(leaves)))

    def spec_digest(self, spec: dict[str, object], template: str) -> str:
        """8 hex digits of sha256 over a rendered spec as JSON. The chart keeps that spec in the
        named template `<template>.spec` and gets the same digest from `<template>.digest`
        (`include ... | fromYaml | toJson | sha256sum | trunc 8`)."""
        return _digest(go_json(spec))


class MarkerOps(Ops):
    def __init__(self, table: MarkerTable) -> None:
        self.table = table

    def or_default(self, leaf: object, fallback: str) -> str:
        expr = self.table.lookup(leaf)  # type: ignore[arg-type]
        assert expr is not None, f"or_default needs a marker leaf, got {leaf!r}"
        fb = self.table.lookup(fallback)
        fb_go = fb.go if fb else json.dumps(fallback)
        return self.table.add(f"({expr.go} | default {fb_go})", "str")

    def fields_since(self, version: str, minimum: str, fields: dict[str, object]) -> dict[str, object]:
        expr = self.table.lookup(version)
        assert expr is not None, f"fields_since needs a marker leaf, got {version!r}"
        condition = f"semverCompare {json.dumps('>=' + minimum)} {expr.go}"
        return {self.table.gate(condition, key): value for key, value in fields.items()}

    def fields_if(
        self, leaf: object, equals: str, fields: dict[str, object], negate: bool = False
    ) -> dict[str, object]:
        expr = self.table.lookup(leaf)  # type: ignore[arg-type]
        assert expr is not None, f"fields_if needs a marker leaf, got {leaf!r}"
        condition = f"{'ne' if negate else 'eq'} {expr.go} {json.dumps(equals)}"
        return {self.table.gate(condition, key): value for key, value in fields.items()}

    def plus(self, a: object, b: object) -> object:
        exprs = [self.table.lookup(x) for x in (a, b)]  # type: ignore[arg-type]
        assert all(exprs), f"plus needs marker leaves, got {a!r}, {b!r}"
        return self.table.add(f"(add {exprs[0].go} {exprs[1].go})", "json")  # type: ignore[union-attr]

    def quantity_plus(self, leaf: object, extra: str) -> str:
        from .quantity import parse_quantity

        expr = self.table.lookup(leaf)  # type: ignore[arg-type]
        assert expr is not None, f"quantity_plus needs a marker leaf, got {leaf!r}"
        total = f"(addf (include {json.dumps(QUANTITY_DEFINE)} {expr.go}) {float(parse_quantity(extra))!r})"
        return self.table.add(f'(printf "%.0fMi" (ceil (divf {total} {float(MIB)!r})))', "str")

    def holds(self, leaf: object, equals: str, negate: bool = False) -> bool | str:
        expr = self.table.lookup(leaf)  # type: ignore[arg-type]
        assert expr is not None, f"holds needs a marker leaf, got {leaf!r}"
        return f"{'ne' if negate else 'eq'} {expr.go} {json.dumps(equals)}"

    def prefixed(self, leaf: object, prefix: str) -> str:
        expr = self.table.lookup(leaf)  # type: ignore[arg-type]
        assert expr is not None, f"prefixed needs a marker leaf, got {leaf!r}"
        return self.table.add(f'(ternary "" (print {json.dumps(prefix)} {expr.go}) (empty {expr.go}))', "str")

    def fields_when(self, flag: object, fields: dict[str, object]) -> dict[str, object]:
        expr = self.table.lookup(flag)  # type: ignore[arg-type]
        assert expr is not None, f"fields_when needs a marker leaf, got {flag!r}"
        return {self.table.gate(expr.go, key): value for key, value in fields.items()}

    def appended(self, leaf: object, items: list[object]) -> object:
        expr = self.table.lookup(leaf)  # type: ignore[arg-type]
        assert expr is not None, f"appended needs a marker leaf, got {leaf!r}"
        return self.table.add(f"(concat {expr.go} ({json.dumps(go_json(items))} | fromJsonArray))", "json")

    def worker_groups(self, values: Any) -> list[Any]:
        """One group, its fields read from `.group` (render/chart.py GROUP_CONTEXT), the values
        from the group's view of them: the chart ranges over workerGroups."""
        from .worker_groups import GroupView

        def leaf(key: str, kind: str) -> str:
            return self.table.add(f".group.{key}", kind)

        return [
            GroupView(
                name=leaf("name", "str"),
                replicas=leaf("replicas", "json"),  # type: ignore[arg-type]
                min_replicas=leaf("minReplicas", "json"),  # type: ignore[arg-type]
                max_replicas=leaf("maxReplicas", "json"),  # type: ignore[arg-type]
                pool=leaf("pool", "str"),
                pinned=leaf("pinned", "json"),  # type: ignore[arg-type]
                values=values,
            )
        ]

    def backoff_limit(self, values: Any) -> Any:
        from .expressions import CAPACITIES
        from .worker_groups import OTHER_RETRIES, SPOT_RETRIES

        expr = self.table.lookup(values.job.backoff_limit)
        assert expr is not None, "backoff_limit needs a marker leaf"
        spot = f'(contains "|spot|" (include {json.dumps(CAPACITIES)} .))'
        derived = f"(ternary {SPOT_RETRIES} {OTHER_RETRIES} {spot})"
        return self.table.add(f"(ternary {derived} (int {expr.go}) (lt (int {expr.go}) 0))", "json")

    def total_workers(self, values: Any) -> Any:
        return self.table.add(f"(include {json.dumps(WORKER_COUNT_TEMPLATE)} . | atoi)", "json")

    def one_capacity(self, values: Any) -> Any:
        from .expressions import OneCapacity  # expressions imports this module

        return self.table.add(OneCapacity().go(), "json")

    def spec_digest(self, spec: dict[str, object], template: str) -> str:
        return self.table.add(f"(include {json.dumps(template + '.digest')} .)", "str")

    def leaves_digest(self, *leaves: object) -> str:
        exprs = [self.table.lookup(leaf) for leaf in leaves]  # type: ignore[arg-type]
        assert all(exprs), f"leaves_digest needs marker leaves, got {leaves!r}"
        go = " ".join(e.go for e in exprs)  # type: ignore[union-attr]
        return self.table.add(f"(list {go} | toJson | sha256sum | trunc 8)", "str")


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:8]


def version_at_least(version: str, minimum: str) -> bool:
    """Helm's `semverCompare ">=minimum" version`, for plain x.y.z versions."""

    def parts(v: str) -> tuple[int, ...]:
        return tuple(int(part) for part in v.split("."))

    return parts(version) >= parts(minimum)


# Leaves whose values change the *structure* of the output (which objects, which fields).
# They stay concrete in marker mode; the chart renders one guarded block per combination.
VARIANT_KEYS: tuple[str, ...] = (
    "gpu.type",
    "cluster.mode",
    "cluster.capacity",
    "run.kind",
    "queue.enabled",
    "network.rdma",
)
# Switches that only decide whether whole objects exist: rendered on in marker mode, and each
# template of an object whose key starts with the prefix is wrapped in `if .Values.<key>`.
OBJECT_GATES: dict[str, str] = {
    "dataPrep.enabled": "data-prep-",
    "network.createObjects": "network-",
    "queue.createObjects": "queue-",
}


def marker_values(model_cls: type, table: MarkerTable, variant: dict[str, object], prefix: str = ""):
    """An instance of a values model whose leaves are markers, except the variant keys."""
    from pydantic import BaseModel

    kwargs = {}
    for name, info in model_cls.model_fields.items():
        key = info.alias or name
        path = f"{prefix}{key}"
        ann = info.annotation
        if isinstance(ann, type) and issubclass(ann, BaseModel):
            kwargs[name] = marker_values(ann, table, variant, prefix=f"{path}.")
        elif path in variant:
            kwargs[name] = variant[path]
        elif path in OBJECT_GATES:
            kwargs[name] = True
        elif getattr(ann, "__origin__", None) is list and _is_scalar_list(ann):
            kwargs[name] = ListMarker(table, f".Values.{path}")
        else:
            kind = "str" if ann is str or _is_str_literal(ann) else "json"
            kwargs[name] = table.add(f".Values.{path}", kind)
    return model_cls.model_construct(**kwargs)


def _is_str_literal(ann: object) -> bool:
    args = getattr(ann, "__args__", ())
    return str(ann).startswith("typing.Literal") and all(isinstance(a, str) for a in args)


def _is_scalar_list(ann: object) -> bool:
    (item,) = ann.__args__  # type: ignore[attr-defined]
    item = getattr(item, "__origin__", item) if str(item).startswith("typing.Annotated") else item
    return item is str or _is_str_literal(item)
