"""values/decisions.py: markers and Decisions, one construct code path for objects and templates."""

from __future__ import annotations

import pytest

from verl_grpo.values.decisions import ChartDecisions, ChartTable, Cond, Decisions, go_json, version_at_least


def test_a_marker_refuses_branching_comparing_and_arithmetic():
    table = ChartTable()
    replicas = table.add(".Values.job.backoffLimit", "json")
    assert f"--nodes {replicas}" == "--nodes @@0@@"  # splicing is what markers are for
    for misuse in (
        lambda: bool(replicas),
        lambda: replicas == "2",
        lambda: replicas * 8,
        lambda: replicas < "3",
    ):
        with pytest.raises(TypeError, match="use an Decisions helper"):
            misuse()


@pytest.mark.parametrize(
    ("version", "minimum", "expected"),
    [
        ("1.6.0", "1.6.0", True),
        ("1.10.0", "1.6.0", True),
        ("1.5.9", "1.6.0", False),
        ("2.0.0", "1.6.0", True),
    ],
)
def test_version_gates_compare_numbers_not_text(version, minimum, expected):
    assert version_at_least(version, minimum) is expected
    assert bool(Decisions().when(Decisions().at_least(version, minimum), {"k": 1})) is expected


def test_a_spec_digest_is_over_go_json():
    import hashlib

    spec = {"b": [1, 2], "a": "x<y"}
    expected = hashlib.sha256(b'{"a":"x\\u003cy","b":[1,2]}').hexdigest()[:8]
    assert Decisions().spec_digest(spec, "verl-grpo.x") == expected
    table = ChartTable()
    assert (
        table.lookup(ChartDecisions(table).spec_digest(spec, "verl-grpo.x")).go
        == '(include "verl-grpo.x.digest" .)'
    )


def test_or_default_computes_or_records_the_same_choice():
    assert Decisions().or_default("", "219") == "219" and Decisions().or_default("30", "219") == "30"
    table = ChartTable()
    cpu = table.add(".Values.worker.cpu", "str")
    chosen = ChartDecisions(table).or_default(cpu, "219")
    assert table.lookup(chosen).go == '(.Values.worker.cpu | default "219")'


def test_when_keeps_or_drops_or_gates_the_fields():
    fields = {"preRunningDeadlineSeconds": 7200}
    assert Decisions().when(Decisions().at_least("1.6.1", "1.6.0"), fields) == fields
    assert Decisions().when(Decisions().at_least("1.5.9", "1.6.0"), fields) == {}
    table = ChartTable()
    decide = ChartDecisions(table)
    version = table.add(".Values.kuberay.version", "str")
    (gated,) = decide.when(decide.at_least(version, "1.6.0"), fields)
    assert table.gates == ['semverCompare ">=1.6.0" .Values.kuberay.version'] and gated.endswith(
        "preRunningDeadlineSeconds"
    )


def test_a_chart_condition_refuses_to_be_a_bool():
    table = ChartTable()
    condition = ChartDecisions(table).is_(table.add(".Values.cluster.mode", "str"), "standard")
    assert condition == 'eq .Values.cluster.mode "standard"'
    with pytest.raises(TypeError, match="Decisions.when or Decisions.choose"):
        bool(condition)


def test_conditions_fold_what_python_knows():
    table = ChartTable()
    decide = ChartDecisions(table)
    mode = decide.is_(table.add(".Values.cluster.mode", "str"), "standard")
    assert decide.all_of(True, mode) == mode and decide.all_of(False, mode) is False
    assert decide.any_of(True, mode) is True and decide.any_of(False, mode) == mode
    assert isinstance(decide.all_of(mode, mode), Cond) and decide.negate(True) is False
    nested = decide.when(mode, decide.when(decide.flag(table.add(".Values.queue.enabled", "json")), {"k": 1}))
    (key,) = nested
    assert key.endswith("@@k")
    assert table.gates[-1] == 'and (eq .Values.cluster.mode "standard") (.Values.queue.enabled)'


def test_choose_and_listed_compute_or_record_the_decision():
    assert Decisions().choose(True, "a", "b") == "a" and Decisions().listed([(False, 1), (True, 2)]) == [2]
    table = ChartTable()
    decide = ChartDecisions(table)
    mode = decide.is_(table.add(".Values.cluster.mode", "str"), "standard")
    assert (
        table.lookup(decide.choose(mode, "a", "b")).go
        == '(ternary "a" "b" (eq .Values.cluster.mode "standard"))'
    )
    chosen = decide.choose(mode, {"a": 1}, {"b": 2})
    assert table.choices[-1].then == {"a": 1} and chosen == "@@choice0@@"
    (item,) = decide.listed([(mode, {"name": "x"})])
    assert list(item) == [f"@@if{len(table.gates) - 1}@@__item__"]


def test_leaves_digest_is_helms_list_to_json():
    import hashlib

    assert Decisions().leaves_digest("bucket", "1Ti") == hashlib.sha256(b'["bucket","1Ti"]').hexdigest()[:8]
    table = ChartTable()
    bucket, size = table.add(".Values.storage.bucket", "str"), table.add(".Values.storage.capacity", "str")
    digest = ChartDecisions(table).leaves_digest(bucket, size)
    assert (
        table.lookup(digest).go
        == "(list .Values.storage.bucket .Values.storage.capacity | toJson | sha256sum | trunc 8)"
    )


def test_go_json_escapes_as_go_does():
    assert go_json({"b": 1.0, "a": ["<&>", None, True]}) == '{"a":["\\u003c\\u0026\\u003e",null,true],"b":1}'
