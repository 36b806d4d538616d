"""Values as references, and the decisions constructs make on them: one construct code path
renders both dist/ and the Helm chart.

In concrete mode (dist/, synth) constructs see real values and Decisions computes. In chart mode every
leaf of the values is a marker string (``@@N@@``) that stands for a Go template expression, and
ChartDecisions turns each decision a construct states (`when`, `choose`, `each_group`, `indexes`, ...)
into the `if`, `range` or `printf` a Helm author would write at that place (chart/writer.py).
A marker can be passed on and spliced into text, nothing else: branching on it raises.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import math
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any, NoReturn, TypeVar

from pydantic import BaseModel

from ..facts.versions import version_at_least

T = TypeVar("T")
ModelT = TypeVar("ModelT", bound=BaseModel)
MIB = 2**20
QUANTITY_DEFINE = "verl-grpo.quantity"  # expressions.QUANTITY_TEMPLATE, which imports this module

MARKER = re.compile(r"@@(\d+)@@")
# A mapping key that exists only when a condition holds: "@@ifN@@key" (N indexes ChartTable.gates).
GATE = re.compile(r"^@@if(\d+)@@")
# A value chosen by a condition (ChartTable.choices), and a list built by a range (ChartTable.eaches).
CHOICE = re.compile(r"@@choice(\d+)@@")
# A subtree the chart keeps in a named template (ChartTable.named).
NAMED = re.compile(r"@@named(\d+)@@")
EACH = re.compile(r"@@each(\d+)@@")
# A list item that exists only when a condition holds: {"@@ifN@@__item__": item} (Decisions.listed).
ITEM = "__item__"
# The chart's sum of every worker group's replicas, each group's capacity between bars
# ("|spot|reservation|") and whether all are cluster.capacity: rules/expressions.py defines them
# in _rules.tpl (Workers, UsesCapacity, OneCapacity).
WORKER_COUNT_TEMPLATE = "verl-grpo.workerCount"
CAPACITIES = "verl-grpo.groupCapacities"
ONE_CAPACITY = "verl-grpo.oneCapacity"


@dataclass(frozen=True)
class GoExpr:
    """A Go template expression; inside a string 'str' splices raw, 'json' via toJson.

    A whole YAML value is always rendered with toJson, which keeps its type.
    """

    go: str
    kind: str


@dataclass(frozen=True)
class Helper:
    """A named template of the chart's _helpers.tpl: the Go twin of the Python function `why` names
    (Decisions.helper computes that function outside the chart; the parity tests hold the two equal)."""

    name: str
    body: str
    why: str
    uses: tuple[Helper, ...] = ()  # the helpers its body includes

    def define(self) -> str:
        head = f'{{{{- /* {self.why} */}}}}\n{{{{- define "{self.name}" -}}}}'
        return f"{head}\n{self.body.strip()}\n{{{{- end }}}}\n"


# Decisions.quoted_lines: `<indent>KEY: "VALUE"` per entry of a string map, sorted by key; (list map indent).
QUOTED_LINES = Helper(
    "verl-grpo.quotedLines",
    """
{{- $indent := index . 1 }}
{{- range $key, $value := index . 0 }}
{{- printf "%s%s: %q\\n" $indent $key $value }}
{{- end }}""",
    "Decisions.quoted_lines: a string map's entries as double-quoted YAML lines, sorted by key.",
)


@dataclass(frozen=True)
class Choice:
    condition: str
    then: Any
    otherwise: Any


@dataclass(frozen=True)
class Kept:
    """A subtree the chart keeps in the named template `define`: the body of a range over the
    worker groups (Decisions.each_group) or of an include (Decisions.named)."""

    define: str
    body: Any


@dataclass
class ChartTable:
    """What chart mode's markers stand for."""

    exprs: list[GoExpr] = field(default_factory=list)
    gates: list[str] = field(default_factory=list)  # Go template conditions of gated keys
    choices: list[Choice] = field(default_factory=list)
    eaches: list[Kept] = field(default_factory=list)  # Decisions.each_group
    named: list[Kept] = field(default_factory=list)  # Decisions.named
    files: dict[str, str] = field(default_factory=dict)  # files/<name> the chart ships
    helpers: dict[str, Helper] = field(default_factory=dict)  # the named templates markers call

    def gate(self, condition: str, key: str) -> str:
        self.gates.append(condition)
        return f"@@if{len(self.gates) - 1}@@{key}"

    def add(self, go: str, kind: str) -> Marker:
        self.exprs.append(GoExpr(go, kind))
        marker = Marker(f"@@{len(self.exprs) - 1}@@")
        marker.table, marker.expr = self, self.exprs[-1]
        return marker

    def choice(self, condition: str, then: Any, otherwise: Any) -> str:
        self.choices.append(Choice(condition, then, otherwise))
        return f"@@choice{len(self.choices) - 1}@@"

    def name(self, define: str, body: Any) -> str:
        self.named.append(Kept(define, body))
        return f"@@named{len(self.named) - 1}@@"

    def each(self, define: str, body: Any) -> str:
        self.eaches.append(Kept(define, body))
        return f"@@each{len(self.eaches) - 1}@@"

    def lookup(self, marker: object) -> GoExpr | None:
        m = MARKER.fullmatch(marker) if isinstance(marker, str) else None
        return self.exprs[int(m.group(1))] if m else None


class Marker(str):
    """A value the chart computes: it can be passed on and spliced into text (f-strings, text(),
    join()), nothing else. Branching, comparing or arithmetic on it would silently pick one side
    for every release, so they raise; a decision on a value goes through Decisions."""

    def _refuse(self, *_: object) -> NoReturn:
        raise TypeError(
            f"a construct branched on, compared or computed with the chart value {self}: "
            "use an Decisions helper (values/decisions.py) so the chart gets a guarded block"
        )

    __bool__ = __eq__ = __ne__ = __lt__ = __le__ = __gt__ = __ge__ = _refuse
    __mul__ = __rmul__ = __mod__ = __rmod__ = _refuse
    __hash__ = str.__hash__
    table: ChartTable
    expr: GoExpr


class ListMarker(Marker):
    """A marker for a list of scalars; join() turns it into a spliceable string marker."""

    table: ChartTable
    go: str

    def __new__(cls, table: ChartTable, go: str) -> ListMarker:
        marker = table.add(go, "json")
        obj = super().__new__(cls, marker)
        obj.table, obj.go, obj.expr = table, go, marker.expr
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
    """A leaf as it appears inside a larger string: a number as Go's JSON writes it (a marker for
    one: `toJson` of it, a string)."""
    if isinstance(x, Marker) and not isinstance(x, ListMarker) and x.expr.kind == "json":
        return x.table.add(f"({x.expr.go} | toJson)", "str")
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


class Cond(str):
    """A condition the chart evaluates (the text of a Go template pipeline). Python cannot know it,
    so using it as a bool raises: decide with Decisions.when / Decisions.choose, which write the `if`."""

    def __bool__(self) -> bool:
        raise TypeError(
            f"a construct branched on the chart condition {self!r}: use Decisions.when or Decisions.choose"
        )


Condition = bool | Cond


class Decisions:
    """The decisions constructs make on values, stated where they are made. Concrete mode (dist/,
    synth) computes them; ChartDecisions writes the `if`, `range` and `printf` a Helm author would."""

    # Conditions
    def is_(self, leaf: object, *options: object) -> Condition:
        """The leaf equals one of the options."""
        return leaf in options

    def flag(self, leaf: object) -> Condition:
        """A boolean leaf."""
        return bool(leaf)

    def at_least(self, version: object, minimum: str) -> Condition:
        """An x.y.z version leaf is `minimum` or later (Helm's semverCompare ">=minimum")."""
        return version_at_least(str(version), minimum)

    def negate(self, condition: Condition) -> Condition:
        return not condition

    def all_of(self, *conditions: Condition) -> Condition:
        return all(conditions)

    def any_of(self, *conditions: Condition) -> Condition:
        return any(conditions)

    # Decisions
    def when(self, condition: Condition, fields: dict[str, Any]) -> dict[str, Any]:
        """`fields` when the condition holds, else none of them."""
        return dict(fields) if condition else {}

    def choose(self, condition: Condition, then: Any, otherwise: Any) -> Any:
        return then if condition else otherwise

    def appended_when(self, leaf: object, items: list[tuple[Condition, dict[str, Any]]]) -> object:
        """A list leaf with each item after its own whose condition holds."""
        return [*leaf, *(item for condition, item in items if condition)]  # type: ignore[misc]

    def named(self, define: str, subtree: T) -> T:
        """`subtree`; the chart keeps it in the named template `define` and includes it there."""
        return subtree

    def listed(self, items: list[tuple[Condition, Any]]) -> list[Any]:
        """The items whose condition holds, in order."""
        return [item for condition, item in items if condition]

    def indexes(self, count: object) -> list[Any]:
        """0 .. count-1: objects made once per index (ManifestConstruct.add_object(index=...))."""
        return list(range(count))  # type: ignore[call-overload]

    def each_group(self, values: Any, build: Callable[[Any], dict[str, Any]], define: str) -> list[Any]:
        """`build` for each worker group as its pods see the values (values/worker_groups.py)."""
        from .worker_groups import group_views

        return [build(view) for view in group_views(values)]

    def machine(self, values: Any, cls: type[T], row: Callable[[str, str], T]) -> T:
        """The facts of the values' machine in their cluster mode: `row(gpu.type, cluster.mode)`;
        in the chart, `$facts.<field>` read from `_facts.tpl`."""
        return row(values.gpu.type, values.cluster.mode)

    def file(self, name: str, content: str) -> str:
        """A file's content; the chart ships it as files/<name> and reads it with .Files.Get."""
        return content

    def quoted_lines(self, mapping: object, indent: str) -> str:
        """`<indent>KEY: "VALUE"` lines of a string mapping leaf, sorted by key (as Go ranges a map)."""
        pairs = sorted(dict(mapping).items())  # type: ignore[call-overload]
        for key, value in pairs:
            assert '"' not in value and "\\" not in value, f"{key}: unquotable value {value!r}"
        return "".join(f'{indent}{key}: "{value}"\n' for key, value in pairs)

    def helper(
        self, helper: Helper, args: list[Any] | None, compute: Callable[..., str], root: bool = False
    ) -> str:
        """`compute(*args)`; in the chart, the named template given them (`(list args...)`, with the
        root context first where `root`), or given the root context alone when `args` is None
        (compute then takes nothing)."""
        return compute(*(args or []))

    # Derived values
    def or_default(self, leaf: Any, fallback: Any) -> Any:
        return leaf or fallback

    def release_fact(self, version: Any, name: str) -> str:
        """A fact of the verl release `version` (facts/verl_releases.py release_row); in the chart, read
        from the releases' table in _facts.tpl."""
        from ..facts.verl_releases import release_rows

        return str(release_rows()[version][name])

    def plus(self, a: object, b: object) -> object:
        """The sum of two integer leaves."""
        return a + b  # type: ignore[operator]

    def quantity_plus(self, leaf: object, extra: str) -> str:
        """The quantity leaf plus `extra`, in whole MiB rounded up ("107520Mi")."""
        from ..facts.quantity import parse_quantity

        total = parse_quantity(str(leaf)) + parse_quantity(extra)
        return f"{math.ceil(total / MIB)}Mi"

    def backoff_limit(self, values: Any) -> Any:
        """The RayJob's retries: job.backoffLimit, or its capacity's (worker_groups.backoff_limit)."""
        from .worker_groups import backoff_limit

        return backoff_limit(values)

    def total_workers(self, values: Any) -> Any:
        """The GPU worker pods of every group (verl's trainer.nnodes)."""
        from .worker_groups import total_workers

        return total_workers(values)

    def one_capacity(self, values: Any) -> Condition:
        """Every worker group's nodes come from cluster.capacity."""
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


class ChartDecisions(Decisions):
    """Decisions in chart mode: values are markers (ChartTable), decisions become template text."""

    def __init__(self, table: ChartTable) -> None:
        self.table = table

    def _go(self, x: object) -> str:
        """An operand: a condition in parentheses, a marker's expression, or a literal."""
        if isinstance(x, Cond):
            return f"({x})"
        if isinstance(x, str) and (expr := self.table.lookup(x)) is not None:
            return expr.go
        assert not (isinstance(x, str) and MARKER.search(x)), f"a marker inside a literal: {x!r}"
        return go_literal(x)

    def is_(self, leaf: object, *options: object) -> Condition:
        return Cond(f"eq {self._go(leaf)} {' '.join(go_literal(o) for o in options)}")

    def flag(self, leaf: object) -> Condition:
        return Cond(self._go(leaf))

    def at_least(self, version: object, minimum: str) -> Condition:
        return Cond(f"semverCompare {json.dumps('>=' + minimum)} {self._go(version)}")

    def negate(self, condition: Condition) -> Condition:
        return (not condition) if isinstance(condition, bool) else Cond(f"not ({condition})")

    def all_of(self, *conditions: Condition) -> Condition:
        if any(c is False for c in conditions):
            return False
        return _joined("and", [c for c in conditions if c is not True], True)

    def any_of(self, *conditions: Condition) -> Condition:
        if any(c is True for c in conditions):
            return True
        return _joined("or", [c for c in conditions if c is not False], False)

    def when(self, condition: Condition, fields: dict[str, Any]) -> dict[str, Any]:
        if isinstance(condition, bool):
            return super().when(condition, fields)
        out = {}
        for key, value in fields.items():
            inner = GATE.match(key)
            if inner:  # already gated: both conditions
                key, both = key[inner.end() :], self.all_of(condition, Cond(self.table.gates[int(inner[1])]))
                out[self.table.gate(str(both), key)] = value
            else:
                out[self.table.gate(condition, key)] = value
        return out

    def choose(self, condition: Condition, then: Any, otherwise: Any) -> Any:
        if isinstance(condition, bool):
            return super().choose(condition, then, otherwise)
        if all(_scalar(x) for x in (then, otherwise)):
            kind = (
                "str"
                if all(isinstance(x, str) and self._kind(x) == "str" for x in (then, otherwise))
                else "json"
            )
            return self.table.add(f"(ternary {self._go(then)} {self._go(otherwise)} ({condition}))", kind)
        return self.table.choice(condition, then, otherwise)

    def _kind(self, x: str) -> str:
        expr = self.table.lookup(x)
        return expr.kind if expr else "str"

    def appended_when(self, leaf: object, items: list[tuple[Condition, dict[str, Any]]]) -> object:
        parts = [self._go(leaf)]
        for condition, item in items:
            one = f"(list {go_value(item, self.table)})"
            parts.append(one if condition is True else f"(ternary {one} (list) ({condition}))")
        # (Sprig's concat of empty lists is nil, which toJson writes as null: `default list` keeps [].)
        return (
            self.table.add(f"(concat {' '.join(parts)} | default list)", "json") if len(parts) > 1 else leaf
        )

    def named(self, define: str, subtree: T) -> T:
        return self.table.name(define, subtree)  # type: ignore[return-value]

    def listed(self, items: list[tuple[Condition, Any]]) -> list[Any]:
        out = []
        for condition, item in items:
            if isinstance(condition, bool):
                out += [item] if condition else []
            else:
                out.append({self.table.gate(condition, ITEM): item})
        return out

    def indexes(self, count: object) -> list[Any]:
        return [RangeIndex(self.table.add("$i", "json"), self._go(count))]

    def each_group(self, values: Any, build: Callable[[Any], dict[str, Any]], define: str) -> list[Any]:
        """One group, read from `.group` (the define's context): the chart ranges over the groups
        `verl-grpo.workerGroups` lists (values/worker_groups.py WORKER_GROUPS_HELPER)."""
        from .model import Values
        from .worker_groups import GroupView

        def leaf(key: str, kind: str) -> Any:
            return self.table.add(f".group.{key}", kind)

        group_values = chart_values(
            Values, self.table, {"gpu.type": ".group.machine", "cluster.capacity": ".group.capacity"}
        )
        view = GroupView(
            name=leaf("name", "str"),
            replicas=leaf("replicas", "json"),
            min_replicas=leaf("minReplicas", "json"),
            max_replicas=leaf("maxReplicas", "json"),
            pool=leaf("pool", "str"),
            pinned=leaf("pinned", "json"),
            values=group_values,
        )
        from .worker_groups import WORKER_GROUPS

        self.table.helpers[WORKER_GROUPS.name] = WORKER_GROUPS
        return self.table.each(define, build(view))  # type: ignore[return-value]

    def machine(self, values: Any, cls: type[T], row: Callable[[str, str], T]) -> T:
        fields = {}
        for f in dataclasses.fields(cls):  # type: ignore[arg-type]
            kind = "str" if f.type in ("str", str) else "json"
            fields[f.name] = self.table.add(f"$facts.{camel(f.name)}", kind)
        return cls(**fields)

    def file(self, name: str, content: str) -> str:
        self.table.files[name] = content
        return self.table.add(f".Files.Get {json.dumps('files/' + name)}", "str")

    def quoted_lines(self, mapping: object, indent: str) -> str:
        return self.helper(QUOTED_LINES, [mapping, indent], lambda m, i: "")

    def helper(
        self, helper: Helper, args: list[Any] | None, compute: Callable[..., str], root: bool = False
    ) -> str:
        self._register(helper)
        operands = [*(["."] if root else []), *(self._go(a) for a in args or [])]
        given = "." if args is None else f"(list {' '.join(operands)})"
        return self.table.add(f"(include {json.dumps(helper.name)} {given})", "str")

    def _register(self, helper: Helper) -> None:
        self.table.helpers[helper.name] = helper
        for used in helper.uses:
            self._register(used)

    def release_fact(self, version: Any, name: str) -> str:
        from ..facts.verl_releases import RELEASE_HELPER

        row = f"(include {json.dumps(RELEASE_HELPER)} {self._go(version)} | fromJson)"
        return self.table.add(f"(index {row} {json.dumps(name)})", "str")

    def or_default(self, leaf: Any, fallback: Any) -> Any:
        kinds = {x.expr.kind if isinstance(x, Marker) else "str" for x in (leaf, fallback)}
        kind = "json" if kinds == {"json"} else "str"  # a number either way stays one
        return self.table.add(f"({self._go(leaf)} | default {self._go(fallback)})", kind)

    def plus(self, a: object, b: object) -> object:
        return self.table.add(f"(add {self._go(a)} {self._go(b)})", "json")

    def quantity_plus(self, leaf: object, extra: str) -> str:
        from ..facts.quantity import parse_quantity

        quantity = f"(include {json.dumps(QUANTITY_DEFINE)} {self._go(leaf)})"
        total = f"(addf {quantity} {float(parse_quantity(extra))!r})"
        return self.table.add(f'(printf "%.0fMi" (ceil (divf {total} {float(MIB)!r})))', "str")

    def backoff_limit(self, values: Any) -> Any:
        from .worker_groups import OTHER_RETRIES, SPOT_RETRIES

        limit = self._go(values.job.backoff_limit)
        spot = f'(contains "|spot|" (include {json.dumps(CAPACITIES)} .))'
        derived = f"(ternary {SPOT_RETRIES} {OTHER_RETRIES} {spot})"
        return self.table.add(f"(ternary {derived} (int {limit}) (lt (int {limit}) 0))", "json")

    def total_workers(self, values: Any) -> Any:
        return self.table.add(f"(include {json.dumps(WORKER_COUNT_TEMPLATE)} . | atoi)", "json")

    def one_capacity(self, values: Any) -> Condition:
        return Cond(f'eq (include {json.dumps(ONE_CAPACITY)} .) "true"')

    def spec_digest(self, spec: dict[str, object], template: str) -> str:
        return self.table.add(f"(include {json.dumps(template + '.digest')} .)", "str")

    def leaves_digest(self, *leaves: object) -> str:
        go = " ".join(self._go(leaf) for leaf in leaves)
        return self.table.add(f"(list {go} | toJson | sha256sum | trunc 8)", "str")


def _joined(word: str, conditions: list[Condition], empty: bool) -> Condition:
    if not conditions:
        return empty
    if len(conditions) == 1:
        return conditions[0]
    return Cond(f"{word} " + " ".join(f"({c})" for c in conditions))


def _scalar(x: object) -> bool:
    return isinstance(x, str | int | float | bool) and not (isinstance(x, str) and CHOICE.fullmatch(x))


def camel(name: str) -> str:
    """snake_case -> camelCase, the spelling of the chart's keys."""
    first, *rest = name.split("_")
    return first + "".join(part.title() for part in rest)


def go_literal(x: object) -> str:
    """A Python scalar as a Go template literal."""
    if isinstance(x, str):
        return json.dumps(x)
    return go_json_number(x)  # type: ignore[arg-type]


def go_value(x: object, table: ChartTable) -> str:
    """A value (mappings, lists, markers, scalars) as a Go template expression that builds it."""
    if isinstance(x, dict):
        return "(dict " + " ".join(f"{json.dumps(k)} {go_value(v, table)}" for k, v in x.items()) + ")"
    if isinstance(x, list):
        return "(list " + " ".join(go_value(v, table) for v in x) + ")"
    if isinstance(x, str) and (expr := table.lookup(x)) is not None:
        return expr.go
    return go_literal(x)


@dataclass(frozen=True)
class RangeIndex:
    """The index of a `range` over 0 .. count-1 (Decisions.indexes): a marker and the count's expression."""

    marker: str
    count: str

    def __str__(self) -> str:
        return self.marker


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:8]


def chart_values(
    model_cls: type[ModelT], table: ChartTable, overrides: dict[str, str] | None = None, prefix: str = ""
) -> ModelT:
    """An instance of a values model whose every leaf is a marker for `.Values.<path>`, or for the
    expression `overrides` gives its path (a worker group's machine and capacity)."""
    overrides = overrides or {}
    kwargs: dict[str, object] = {}
    for name, info in model_cls.model_fields.items():
        key = info.alias or name
        path = f"{prefix}{key}"
        ann = info.annotation
        go = overrides.get(path, f".Values.{path}")
        if isinstance(ann, type) and issubclass(ann, BaseModel):
            kwargs[name] = chart_values(ann, table, overrides, prefix=f"{path}.")
        elif getattr(ann, "__origin__", None) is list and _is_scalar_list(ann):
            kwargs[name] = ListMarker(table, go)
        else:
            kind = "str" if ann is str or _is_str_literal(ann) else "json"
            kwargs[name] = table.add(go, kind)
    return model_cls.model_construct(None, **kwargs)


def _is_str_literal(ann: object) -> bool:
    args = getattr(ann, "__args__", ())
    return str(ann).startswith("typing.Literal") and all(isinstance(a, str) for a in args)


def _is_scalar_list(ann: object) -> bool:
    (item,) = ann.__args__  # type: ignore[attr-defined]
    item = getattr(item, "__origin__", item) if str(item).startswith("typing.Annotated") else item
    return item is str or _is_str_literal(item)
