"""values/refs.py: markers and Ops, the one construct code path for concrete objects and templates."""

from __future__ import annotations

import pytest

from verl_grpo.values.refs import MarkerOps, MarkerTable, Ops, go_json, version_at_least


def test_a_marker_refuses_branching_comparing_and_arithmetic():
    table = MarkerTable()
    replicas = table.add(".Values.job.backoffLimit", "json")
    assert f"--nodes {replicas}" == "--nodes @@0@@"  # splicing is what markers are for
    for misuse in (
        lambda: bool(replicas),
        lambda: replicas == "2",
        lambda: replicas * 8,
        lambda: replicas < "3",
    ):
        with pytest.raises(TypeError, match="use an Ops helper"):
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
    assert bool(Ops().fields_since(version, minimum, {"k": 1})) is expected


def test_a_spec_digest_is_over_go_json():
    import hashlib

    spec = {"b": [1, 2], "a": "x<y"}
    expected = hashlib.sha256(b'{"a":"x\\u003cy","b":[1,2]}').hexdigest()[:8]
    assert Ops().spec_digest(spec, "verl-grpo.x") == expected
    table = MarkerTable()
    assert (
        table.lookup(MarkerOps(table).spec_digest(spec, "verl-grpo.x")).go
        == '(include "verl-grpo.x.digest" .)'
    )


def test_or_default_computes_or_records_the_same_choice():
    assert Ops().or_default("", "219") == "219" and Ops().or_default("30", "219") == "30"
    table = MarkerTable()
    cpu = table.add(".Values.worker.cpu", "str")
    chosen = MarkerOps(table).or_default(cpu, "219")
    assert table.lookup(chosen).go == '(.Values.worker.cpu | default "219")'


def test_fields_since_keeps_or_drops_or_gates_the_fields():
    fields = {"preRunningDeadlineSeconds": 7200}
    assert Ops().fields_since("1.6.1", "1.6.0", fields) == fields
    assert Ops().fields_since("1.5.9", "1.6.0", fields) == {}
    table = MarkerTable()
    version = table.add(".Values.kuberay.version", "str")
    (gated,) = MarkerOps(table).fields_since(version, "1.6.0", fields)
    assert table.gates == ['semverCompare ">=1.6.0" .Values.kuberay.version'] and gated.endswith(
        "preRunningDeadlineSeconds"
    )


def test_leaves_digest_is_helms_list_to_json():
    import hashlib

    assert Ops().leaves_digest("bucket", "1Ti") == hashlib.sha256(b'["bucket","1Ti"]').hexdigest()[:8]
    table = MarkerTable()
    bucket, size = table.add(".Values.storage.bucket", "str"), table.add(".Values.storage.capacity", "str")
    digest = MarkerOps(table).leaves_digest(bucket, size)
    assert (
        table.lookup(digest).go
        == "(list .Values.storage.bucket .Values.storage.capacity | toJson | sha256sum | trunc 8)"
    )


def test_go_json_escapes_as_go_does():
    assert go_json({"b": 1.0, "a": ["<&>", None, True]}) == '{"a":["\\u003c\\u0026\\u003e",null,true],"b":1}'
