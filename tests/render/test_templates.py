"""The chart writer's parts on their own: markers, the per-variant merge and its guards."""

from __future__ import annotations

from verl_grpo.render.templates import (
    Action,
    Dimension,
    GatedKey,
    Variants,
    combos,
    condition,
    merge,
    object_template,
    render_tree,
    to_tree,
)
from verl_grpo.values.refs import MarkerOps, MarkerTable

GPU = Dimension("gpu.type", ("b200", "h200"))

MODE = Dimension("cluster.mode", ("standard", "autopilot"))

DIMS = [GPU, MODE]


def test_a_marker_becomes_a_template_action():
    table = MarkerTable()
    name = table.add(".Release.Name", "str")
    count = table.add(".Values.job.backoffLimit", "json")
    tree = to_tree({"name": f"{name}-data", "replicas": count, "plain": "x"}, table)
    assert tree == {
        "name": Action('{{ list .Release.Name "-data" | join "" | toJson }}'),
        "replicas": Action("{{ .Values.job.backoffLimit | toJson }}"),
        "plain": "x",
    }


def test_variants_differ_only_where_they_differ():
    a, b, c, d = combos(DIMS)  # (b200, standard), (b200, autopilot), (h200, standard), (h200, autopilot)
    trees = {
        a: {"spec": {"replicas": 2, "gpu": "nvidia-b200", "zone": "x"}},
        b: {"spec": {"replicas": 2, "gpu": "nvidia-b200"}},
        c: {"spec": {"replicas": 2, "gpu": "nvidia-h200", "zone": "x"}},
        d: {"spec": {"replicas": 2, "gpu": "nvidia-h200"}},
    }
    merged = merge(trees, DIMS)
    assert merged["spec"]["replicas"] == 2
    assert merged["spec"]["gpu"] == Variants(
        (('(eq .Values.gpu.type "b200")', "nvidia-b200"), (None, "nvidia-h200"))
    )
    assert merged["spec"]["zone"] == Variants((('(eq .Values.cluster.mode "standard")', "x"),))
    assert render_tree(merged) == (
        "spec:\n"
        "  replicas: 2\n"
        '  {{- if (eq .Values.gpu.type "b200") }}\n'
        "  gpu: nvidia-b200\n"
        "  {{- else }}\n"
        "  gpu: nvidia-h200\n"
        "  {{- end }}\n"
        '  {{- if (eq .Values.cluster.mode "standard") }}\n'
        "  zone: x\n"
        "  {{- end }}\n"
    )


def test_a_list_that_changes_length_is_guarded_whole_with_its_items():
    a, b, c, d = combos(DIMS)
    trees = {k: {"tolerations": [{"key": "gpu"}]} for k in (a, c)}
    trees |= {k: {"tolerations": [{"key": "gpu"}, {"key": "autopilot"}]} for k in (b, d)}
    text = render_tree(merge(trees, DIMS))
    assert text == (
        '{{- if (eq .Values.cluster.mode "standard") }}\n'
        "tolerations:\n"
        "- key: gpu\n"
        "{{- else }}\n"
        "tolerations:\n"
        "- key: gpu\n"
        "- key: autopilot\n"
        "{{- end }}\n"
    )


def test_an_object_of_some_variants_is_guarded_once():
    a, b, c, d = combos(DIMS)
    text = object_template({a: {"kind": "Network"}, c: {"kind": "Network"}}, DIMS)
    assert text == '{{- if (eq .Values.cluster.mode "standard") }}\nkind: Network\n{{- end }}\n'


def test_a_condition_is_exact_within_its_context():
    a, b, c, d = combos(DIMS)
    assert condition({a, b, c, d}, DIMS) is None
    assert condition({a}, DIMS) == '(and (eq .Values.gpu.type "b200") (eq .Values.cluster.mode "standard"))'
    # Where only b200 combos reach, the mode alone tells them apart.
    assert condition({a}, DIMS, context={a, b}) == '(eq .Values.cluster.mode "standard")'
    # Not a product: the exact list, never a looser guard.
    assert condition({a, d}, DIMS) == (
        '(or (and (eq .Values.gpu.type "b200") (eq .Values.cluster.mode "standard")) '
        '(and (eq .Values.gpu.type "h200") (eq .Values.cluster.mode "autopilot")))'
    )


def test_a_version_gate_is_a_guarded_key_in_the_chart():
    table = MarkerTable()
    version = table.add(".Values.kuberay.version", "str")
    fields = MarkerOps(table).fields_since(version, "1.6.0", {"preRunningDeadlineSeconds": 7200})
    tree = to_tree({"spec": fields}, table)
    assert tree == {
        "spec": {
            GatedKey('semverCompare ">=1.6.0" .Values.kuberay.version', "preRunningDeadlineSeconds"): 7200
        }
    }
    assert render_tree(tree) == (
        "spec:\n"
        '  {{- if semverCompare ">=1.6.0" .Values.kuberay.version }}\n'
        "  preRunningDeadlineSeconds: 7200\n"
        "  {{- end }}\n"
    )
