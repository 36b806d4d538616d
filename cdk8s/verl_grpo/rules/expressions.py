"""The expression language the kit's cross-field rules are written in: the part Python and Go
templates (with Sprig, as Helm ships it) share. Each expression evaluates in Python (`py`) and
spells itself as a Go template expression (`go`); tests/values/test_cross_rules.py runs both.

Floating-point arithmetic follows Sprig's addf/subf/mulf exactly (Masterminds/sprig v3.3.0,
functions.go and numeric.go execDecimalOp: each operand to the shortest decimal that round-trips,
exact decimal arithmetic, then the nearest float64), so both sides reach the same number.
Quantities ("24", "500m", "2800Gi") are parsed by the `verl-grpo.quantity` template (QUANTITY_TEMPLATE)
and by `quantity` here, over the same grammar the values schema allows (model.QUANTITY).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from decimal import Context, Decimal
from functools import reduce
from typing import Any

from ..facts.quantity import SUFFIXES
from ..facts.versions import version_at_least
from ..values.decisions import CAPACITIES, ONE_CAPACITY
from ..values.decisions import WORKER_COUNT_TEMPLATE as WORKER_COUNT

Scope = dict[str, Any]  # {"Values": values by alias, "Release": {"Name": ...}}


class Expr:
    def py(self, scope: Scope) -> Any:
        raise NotImplementedError

    def go(self) -> str:
        raise NotImplementedError


@dataclass(frozen=True)
class Field(Expr):
    """`.Values.a.b` (or `.Release.Name`)."""

    path: str

    def py(self, scope: Scope) -> Any:
        node: Any = scope
        for part in self.path.split("."):
            node = node.get(part) if isinstance(node, dict) else None
        return node

    def go(self) -> str:
        return f".{self.path}"


@dataclass(frozen=True)
class Literal(Expr):
    value: Any

    def py(self, scope: Scope) -> Any:
        return self.value

    def go(self) -> str:
        if isinstance(self.value, str) and len(self.value) > 72:  # `print` joins the pieces
            pieces = [self.value[i : i + 72] for i in range(0, len(self.value), 72)]
            return "(print " + " ".join(json.dumps(p) for p in pieces) + ")"
        return json.dumps(self.value)


@dataclass(frozen=True)
class Op(Expr):
    """A function of its arguments: FUNCTIONS[name] holds its Python meaning and Go spelling."""

    name: str
    args: tuple[Expr, ...]

    def py(self, scope: Scope) -> Any:
        return FUNCTIONS[self.name][0](*(a.py(scope) for a in self.args))

    def go(self) -> str:
        return FUNCTIONS[self.name][1](*(a.go() for a in self.args))


def _nested(a: str, b: str) -> bool:
    return a == b or a.startswith(b + "/") or b.startswith(a + "/")


_EXACT = Context(prec=1000)  # wide enough that adding or multiplying two float64 values is exact


def _sprig_float(step: Callable[[Decimal, Decimal], Decimal], start: float | None = None) -> Callable:
    """Sprig's execDecimalOp: decimal.NewFromFloat of each operand, exact steps, Float64()."""

    def run(*xs: Any) -> float:
        operands = [start, *xs] if start is not None else list(xs)
        return float(reduce(step, (Decimal(repr(float(x))) for x in operands)))

    return run


# Kubernetes quantity suffixes (k8s.io/apimachinery pkg/api/resource/suffix.go) the schema admits.
# facts/quantity.py's suffixes, as the Go template's dict holds them (exact decimals as floats).
SCALE = {
    suffix: float(factor) if isinstance(factor, Decimal) else factor for suffix, factor in SUFFIXES.items()
}
NUMBER = "^[0-9]+(\\.[0-9]+)?"
_mulf = _sprig_float(_EXACT.multiply)


def quantity(text: Any) -> float:
    """A quantity as the `verl-grpo.quantity` template reads it."""
    number = re.match(NUMBER, str(text))
    assert number, text  # the schema admitted only quantities
    return _mulf(float(number[0]), SCALE[str(text)[number.end() :]])


def _scale_dict() -> str:
    return "(dict " + " ".join(f"{json.dumps(k)} {json.dumps(v)}" for k, v in SCALE.items()) + ")"


# What `quantity` does, as a template; _rules.tpl defines it, `include` returns its text.
QUANTITY_TEMPLATE = (
    '{{- define "verl-grpo.quantity" }}'
    f"{{{{- $n := regexFind {json.dumps(NUMBER)} (toString .) }}}}"
    f"{{{{- mulf (float64 $n) (index {_scale_dict()} (trimPrefix $n (toString .))) }}}}"
    "{{- end }}"
)

# The sum of every worker group's replicas, as a template (_rules.tpl defines it) and here.
WORKER_COUNT_TEMPLATE = (
    f'{{{{- define "{WORKER_COUNT}" }}}}{{{{- $n := 0 }}}}'
    "{{- range .Values.workerGroups }}{{- $n = add $n .replicas }}{{- end }}{{- $n }}{{- end }}"
)


@dataclass(frozen=True)
class Workers(Expr):
    """Every worker group's replicas, summed (verl's trainer.nnodes)."""

    def py(self, scope: Scope) -> Any:
        return sum(int(g["replicas"]) for g in scope["Values"]["workerGroups"].values())

    def go(self) -> str:
        return f"(include {json.dumps(WORKER_COUNT)} . | atoi)"


# What a template reads from its root (`.Values`, `.Release`, `include "x" .`), rewritten to `$`
# inside a `range`, where `.` is the item.
ROOT = re.compile(r"(?<![\w$)\].])\.(Values|Release|Chart|Capabilities)\b")
INCLUDE_ROOT = re.compile(r'(include "[^"]+") \.(?=[ )])')


def from_root(go: str) -> str:
    return INCLUDE_ROOT.sub(r"\1 $", ROOT.sub(r"$.\1", go))


def effective_capacities(values: dict[str, Any]) -> list[str]:
    """Each worker group's capacity (cluster.capacity where it names none)."""
    return [g.get("capacity") or values["cluster"]["capacity"] for g in values["workerGroups"].values()]


# Each group's capacity between bars ("|spot|reservation|"), as a template (_rules.tpl defines it):
# the aggregate rules test this string.
# "true" when no group names a capacity other than cluster.capacity: its entries are cut from the
# list, which leaves "|" only when no other is there (no capacity's name begins another's).
GROUP_TEMPLATES = (
    f'{{{{- define "{CAPACITIES}" }}}}{{{{- range .Values.workerGroups }}}}|'
    "{{ .capacity | default $.Values.cluster.capacity }}{{- end }}|{{- end }}",
    f'{{{{- define "{ONE_CAPACITY}" }}}}'
    f'{{{{- eq (replace (print "|" .Values.cluster.capacity) "" (include "{CAPACITIES}" .)) "|" }}}}'
    "{{- end }}",
)


@dataclass(frozen=True)
class UsesCapacity(Expr):
    """Some worker group's nodes come from `capacity`."""

    capacity: str

    def py(self, scope: Scope) -> Any:
        return self.capacity in effective_capacities(scope["Values"])

    def go(self) -> str:
        return f"(contains {json.dumps(f'|{self.capacity}|')} (include {json.dumps(CAPACITIES)} .))"


@dataclass(frozen=True)
class OneCapacity(Expr):
    """Every worker group's nodes come from cluster.capacity (none names another)."""

    def py(self, scope: Scope) -> Any:
        return set(effective_capacities(scope["Values"])) == {scope["Values"]["cluster"]["capacity"]}

    def go(self) -> str:
        return f'(eq (include {json.dumps(ONE_CAPACITY)} .) "true")'


@dataclass(frozen=True)
class GroupField(Expr):
    """A field of the worker group a per-group rule is looking at (`$group` in the template);
    `default` stands in for a field the values left out."""

    field: str
    default: Any = ""

    def py(self, scope: Scope) -> Any:
        value = scope["group"].get(self.field)
        return value if value not in (None, "", 0) else self.default

    def go(self) -> str:
        return f"($group.{self.field} | default {json.dumps(self.default)})"


@dataclass(frozen=True)
class GroupName(Expr):
    """The name of the worker group a per-group rule is looking at: its key in workerGroups
    (`$name` in the template)."""

    def py(self, scope: Scope) -> Any:
        return scope["group_name"]

    def go(self) -> str:
        return "$name"


# name -> (Python, Go template). Numbers go through `int` in Go: values from YAML are int64, from
# JSON float64, and Go's comparisons refuse the mix. `print` of strings joins them as they are.
FUNCTIONS: dict[str, tuple[Callable[..., Any], Callable[..., str]]] = {
    "eq": (lambda a, b: a == b, lambda a, b: f"(eq {a} {b})"),
    "ne": (lambda a, b: a != b, lambda a, b: f"(ne {a} {b})"),
    "and": (lambda *xs: all(xs), lambda *xs: f"(and {' '.join(xs)})"),
    "not": (lambda a: not a, lambda a: f"(not {a})"),
    "gt": (lambda a, b: int(a) > int(b), lambda a, b: f"(gt (int {a}) (int {b}))"),
    "mod": (lambda a, b: int(a) % int(b), lambda a, b: f"(mod (int {a}) (int {b}))"),
    "plus": (lambda a, b: int(a) + int(b), lambda a, b: f"(add {a} {b})"),
    "length": (lambda *xs: len("".join(map(str, xs))), lambda *xs: f"(len (print {' '.join(xs)}))"),
    "older": (
        lambda version, minimum: not version_at_least(str(version), minimum),
        lambda version, minimum: f"(not (semverCompare {json.dumps('>=' + json.loads(minimum))} {version}))",
    ),
    "ge": (lambda a, b: int(a) >= int(b), lambda a, b: f"(ge (int {a}) (int {b}))"),
    "times": (lambda a, b: int(a) * int(b), lambda a, b: f"(mul {a} {b})"),
    "over": (lambda a, b: int(a) // int(b), lambda a, b: f"(div {a} {b})"),  # both >= 0 here
    "or": (lambda *xs: any(xs), lambda *xs: f"(or {' '.join(xs)})"),
    "default": (lambda a, b: a or b, lambda a, b: f"({a} | default {b})"),  # Sprig's empty: "", 0, false
    "concat": (lambda *xs: "".join(map(str, xs)), lambda *xs: f"(print {' '.join(xs)})"),
    "quantity": (quantity, lambda a: f'(include "verl-grpo.quantity" {a} | float64)'),
    "addf": (_sprig_float(_EXACT.add, 0.0), lambda *xs: f"(addf {' '.join(xs)})"),
    "subf": (_sprig_float(_EXACT.subtract), lambda a, *xs: f"(subf {a} {' '.join(xs)})"),
    "mulf": (_mulf, lambda *xs: f"(mulf {' '.join(xs)})"),
    "gtf": (lambda a, b: float(a) > float(b), lambda a, b: f"(gt (float64 {a}) (float64 {b}))"),
    "eqf": (lambda a, b: float(a) == float(b), lambda a, b: f"(eq (float64 {a}) (float64 {b}))"),
    "fixed2": (lambda a: f"{float(a):.2f}", lambda a: f'(printf "%.2f" (float64 {a}))'),
    # a string, or a line of a list of strings, matches (re2 and Python's re agree on the patterns
    # used; Sprig's join makes a string a list of one)
    "matches": (
        lambda lines, pattern: (
            re.search(pattern, lines if isinstance(lines, str) else "\n".join(lines or [])) is not None
        ),
        lambda lines, pattern: f'(regexMatch {pattern} (join "\\n" {lines}))',
    ),
    # two absolute paths, one the other or below it (the values' paths end without '/')
    "nested": (
        lambda a, b: _nested(str(a), str(b)),
        lambda a, b: f'(or (eq {a} {b}) (hasPrefix (print {b} "/") {a}) (hasPrefix (print {a} "/") {b}))',
    ),
}


def _e(x: Expr | Any) -> Expr:
    return x if isinstance(x, Expr) else Literal(x)


def call(name: str, *args: Expr | Any) -> Op:
    return Op(name, tuple(_e(a) for a in args))


# One machine's facts as JSON (chart/facts.py writes the table into _facts.tpl, with every fact a
# MachineFact names); the rules read them through it instead of holding the table.
MACHINE_HELPER = "verl-grpo.machine"
# One machine's facts in one cluster mode (the derived defaults too), as JSON.
FACTS_HELPER = "verl-grpo.facts"
# Every fact a rule reads by machine, by name: chart/facts.py adds each to the machine's row.
MACHINE_FACTS: dict[str, dict[str, Any]] = {}


@dataclass(frozen=True)
class MachineFact(Expr):
    """A fact of a machine (by gpu.type or a group's machine), named as `_facts.tpl` holds it."""

    name: str
    machine: Expr
    table: tuple[tuple[str, Any], ...]

    def __post_init__(self) -> None:
        known = MACHINE_FACTS.setdefault(self.name, dict(self.table))
        assert known == dict(self.table), f"two facts named {self.name}"

    def py(self, scope: Scope) -> Any:
        return dict(self.table)[self.machine.py(scope)]

    def go(self) -> str:
        machine = f"(include {json.dumps(MACHINE_HELPER)} {self.machine.go()} | fromJson)"
        read = f"(index {machine} {json.dumps(self.name)})"
        return f"(int {read})" if all(type(v) is int for _, v in self.table) else read


@dataclass(frozen=True)
class ReleaseFact(Expr):
    """A fact of the values' verl release (training.verlVersion), named as `_facts.tpl` holds it."""

    name: str

    def py(self, scope: Scope) -> Any:
        from ..facts.verl_releases import release_rows

        return release_rows()[VERL_VERSION.py(scope)][self.name]

    def go(self) -> str:
        from ..facts.verl_releases import RELEASE_HELPER, release_rows

        row = f"(include {json.dumps(RELEASE_HELPER)} {VERL_VERSION.go()} | fromJson)"
        read = f"(index {row} {json.dumps(self.name)})"
        return f"(int {read})" if all(type(r[self.name]) is int for r in release_rows().values()) else read


VERL_VERSION = Field("Values.training.verlVersion")


@dataclass(frozen=True)
class MachineModeFact(Expr):
    """A default derived for a machine in a cluster mode (values/derive.py MachineDefaults)."""

    name: str
    machine: Expr
    mode: Expr
    table: tuple[tuple[tuple[str, str], Any], ...]

    def py(self, scope: Scope) -> Any:
        return dict(self.table)[(self.machine.py(scope), self.mode.py(scope))]

    def go(self) -> str:
        facts = f"(include {json.dumps(FACTS_HELPER)} (list {self.machine.go()} {self.mode.go()}) | fromJson)"
        return f"(index {facts} {json.dumps(self.name)})"


@dataclass(frozen=True)
class Lookup(Expr):
    """A fact by a value, e.g. GPUs per node by gpu.type (the table comes from data files)."""

    key: Expr
    table: tuple[tuple[str, Any], ...]

    def py(self, scope: Scope) -> Any:
        return dict(self.table)[self.key.py(scope)]

    def go(self) -> str:
        pairs = " ".join(f"{json.dumps(k)} {json.dumps(v)}" for k, v in self.table)
        return f"(index (dict {pairs}) {self.key.go()})"
