"""chart/template_text.py: a chart-mode tree as template text, the decisions where they were made."""

from __future__ import annotations

from verl_grpo.chart.template_text import Action, action, render_tree, to_tree, wrap_long_lines
from verl_grpo.values.decisions import ChartDecisions, ChartTable


def test_when_writes_an_if_around_the_keys_it_decides():
    table = ChartTable()
    decide = ChartDecisions(table)
    mode = table.add(".Values.cluster.mode", "str")
    tree = to_tree({"a": 1, **decide.when(decide.is_(mode, "autopilot"), {"b": {"c": 2}})}, table)
    assert render_tree(tree) == (
        'a: 1\n{{- if eq .Values.cluster.mode "autopilot" }}\nb:\n  c: 2\n{{- end }}\n'
    )


def test_choose_writes_if_else_for_subtrees_and_ternary_for_scalars():
    table = ChartTable()
    decide = ChartDecisions(table)
    standard = decide.is_(table.add(".Values.cluster.mode", "str"), "standard")
    tree = to_tree({"selector": decide.choose(standard, {"pool": "p"}, {"class": "c"})}, table)
    assert render_tree(tree) == (
        '{{- if eq .Values.cluster.mode "standard" }}\nselector:\n  pool: p\n'
        "{{- else }}\nselector:\n  class: c\n{{- end }}\n"
    )
    scalar = table.lookup(decide.choose(standard, "a", "b"))
    assert scalar is not None and scalar.go.startswith('(ternary "a" "b"')


def test_listed_items_get_their_own_if_and_stay_list_items():
    table = ChartTable()
    decide = ChartDecisions(table)
    dranet = decide.is_(table.add(".Values.network.rdma", "str"), "dranet")
    tree = to_tree({"claims": decide.listed([(True, {"name": "a"}), (dranet, {"name": "b", "x": 1})])}, table)
    assert render_tree(tree) == (
        'claims:\n- name: a\n{{- if eq .Values.network.rdma "dranet" }}\n- name: b\n  x: 1\n{{- end }}\n'
    )


def test_text_with_markers_becomes_printf_and_numbers_go_through_to_json():
    table = ChartTable()
    name = table.add(".Release.Name", "str")
    count = table.add(".Values.replicas", "json")
    assert action(f"{name}-x-{count}%", table) == (
        '{{ printf "%v-x-%s%%" .Release.Name (.Values.replicas | toJson) | toJson }}'
    )
    assert to_tree({"k": name}, table) == {"k": Action("{{ .Release.Name | toJson }}")}


def test_a_long_action_is_laid_out_one_argument_a_line_and_renders_the_same():
    args = " ".join(f'"{i:02d}-{"x" * 20}"' for i in range(12))
    line = f"key: {{{{ print {args} | toJson }}}}"
    wrapped = wrap_long_lines(line)
    assert max(len(part) for part in wrapped.split("\n")) <= 160
    # Only whitespace between tokens changed: Go templates allow newlines inside an action.
    assert wrapped.split() == line.split() or "".join(wrapped.split()) == "".join(line.split())


def test_a_marker_inside_a_key_is_refused():
    table = ChartTable()
    marker = table.add(".Values.x", "str")
    try:
        to_tree({marker: 1}, table)
    except AssertionError as e:
        assert "template in a key" in str(e)
    else:
        raise AssertionError("a key holding a marker was accepted")
