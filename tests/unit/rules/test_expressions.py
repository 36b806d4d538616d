"""rules/expressions.py: the rule language Python and Go templates share. Here the Python side
alone: what an expression evaluates to, and the Go text it compiles to (the tier test
tests/values/test_cross_rules.py runs that text in helm)."""

from __future__ import annotations

import pytest

from verl_grpo.rules import expressions
from verl_grpo.rules.expressions import (
    QUANTITY_TEMPLATE,
    Field,
    Literal,
    Lookup,
    MachineFact,
    OneCapacity,
    UsesCapacity,
    Workers,
    call,
    from_root,
    quantity,
)
from verl_grpo.values.decisions import CAPACITIES

SCOPE = {
    "Values": {
        "cluster": {"capacity": "spot"},
        "workerGroups": {
            "a": {"replicas": 2, "capacity": ""},
            "b": {"replicas": 3, "capacity": "reservation"},
        },
        "paths": ["+a.b=1", "c=2"],
    },
    "Release": {"Name": "verl"},
}


def test_float_arithmetic_is_sprigs_exact_decimal_not_pythons_binary() -> None:
    """Sprig's addf/subf/mulf go through exact decimals: 0.1 + 0.2 is 0.3 there, where Python's
    floats give 0.30000000000000004; the rules must reach Go's number to give Go's verdict."""
    assert 0.1 + 0.2 != 0.3  # the difference being held
    assert call("addf", 0.1, 0.2).py({}) == 0.3
    assert call("subf", 1.0, 0.9).py({}) == 0.1
    assert call("mulf", 0.1, 3).py({}) == 0.3
    assert call("addf", 0.1, 0.2).go() == "(addf 0.1 0.2)"
    assert call("gtf", 0.3, call("addf", 0.1, 0.2)).py({}) is False


def test_quantities_read_kubernetes_suffixes_as_the_template_does() -> None:
    """Millicores, decimal and binary suffixes, as Kubernetes reads them; the Go side includes the quantity
    template."""
    cases = {"500m": 0.5, "24": 24.0, "2Gi": 2 * 2**30, "1.5Ti": 1.5 * 2**40, "3k": 3000.0, "0": 0.0}
    for text, value in cases.items():
        assert quantity(text) == value, text
        assert call("quantity", text).go() == f'(include "verl-grpo.quantity" "{text}" | float64)'
    # The template the Go spelling includes carries the same suffixes, binary and decimal.
    assert QUANTITY_TEMPLATE.startswith('{{- define "verl-grpo.quantity" }}')
    assert '"Gi" 1073741824' in QUANTITY_TEMPLATE and '"m" 0.001' in QUANTITY_TEMPLATE
    assert '"k" 1000' in QUANTITY_TEMPLATE


def test_group_aggregates_read_every_worker_group() -> None:
    """verl's nnodes is the replicas' sum; a group without a capacity takes cluster.capacity."""
    assert Workers().py(SCOPE) == 5 and "| atoi" in Workers().go()
    assert UsesCapacity("spot").py(SCOPE) and UsesCapacity("reservation").py(SCOPE)
    assert not UsesCapacity("flex-start").py(SCOPE)
    assert OneCapacity().py(SCOPE) is False
    alike = {
        **SCOPE,
        "Values": {**SCOPE["Values"], "workerGroups": {"a": {"replicas": 1, "capacity": "spot"}}},
    }
    assert OneCapacity().py(alike) is True
    assert UsesCapacity("spot").go() == f'(contains "|spot|" (include "{CAPACITIES}" .))'


def test_fields_and_text_functions_evaluate_in_python_and_spell_themselves_in_go() -> None:
    """Field paths, literals, regex over a list's lines, nested paths, semver order, lengths and lookups."""
    assert Field("Release.Name").py(SCOPE) == "verl" and Field("Release.Name").go() == ".Release.Name"
    assert Field("Values.cluster.missing.deeper").py(SCOPE) is None  # as Go's nil, not a KeyError
    assert Literal("x").go() == '"x"' and Literal(3).go() == "3" and Literal(True).go() == "true"
    assert call("matches", Field("Values.paths"), r"(?m)^[+~]*a\.b=").py(SCOPE) is True  # a line of a list
    assert call("matches", Field("Values.paths"), r"(?m)^b=").py(SCOPE) is False
    assert call("nested", "/data", "/data/x").py({}) and not call("nested", "/data", "/datum").py({})
    assert call("older", "1.9.0", "1.10.0").py({}) and not call("older", "1.10.0", "1.9.0").py({})
    assert call("length", Field("Release.Name"), "-", 12).py(SCOPE) == 7
    assert call("default", "", "d").go() == '("" | default "d")'
    long = Literal("x" * 100).go()  # a long literal is cut for readable template lines
    assert long == '(print "' + "x" * 72 + '" "' + "x" * 28 + '")'
    table = Lookup(Field("Values.cluster.capacity"), (("spot", 1), ("reservation", 2)))
    assert (
        table.py(SCOPE) == 1
        and table.go() == '(index (dict "spot" 1 "reservation" 2) .Values.cluster.capacity)'
    )


def test_from_root_rewrites_root_reads_for_use_inside_a_range() -> None:
    """Inside `range`, `.` is the item: `.Values` and `include "x" .` must read from `$`; the item's
    own fields and what already reads `$` stay."""
    go = '(eq .Values.a $.Values.b $group.replicas (include "x" .) .replicas)'
    assert from_root(go) == '(eq $.Values.a $.Values.b $group.replicas (include "x" $) .replicas)'


def test_a_machine_fact_is_registered_once_under_one_table(monkeypatch) -> None:
    """`_facts.tpl` holds one table per fact name: a second, different table under the same name is a bug
    caught at import."""
    monkeypatch.setattr(expressions, "MACHINE_FACTS", {})
    fact = MachineFact("unitFact", Field("Values.gpu"), (("b200", 8), ("a4x", 4)))
    assert fact.py({"Values": {"gpu": "a4x"}}) == 4
    assert fact.go() == '(int (index (include "verl-grpo.machine" .Values.gpu | fromJson) "unitFact"))'
    MachineFact("unitFact", Field("Values.other"), (("b200", 8), ("a4x", 4)))  # the same table: fine
    with pytest.raises(AssertionError, match="two facts named unitFact"):
        MachineFact("unitFact", Field("Values.gpu"), (("b200", 7),))
