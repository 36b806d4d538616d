"""render/ranged.py: objects that differ only in their index become one template with a range."""

from __future__ import annotations

from verl_grpo.render.ranged import numbered, ranged


def body(i: int) -> str:
    return (
        "kind: Network\nmetadata:\n  labels:\n"
        '    {{- include "verl-grpo.labels" . | trimPrefix "\\n" | nindent 4 }}\n'
        f'  name: {{{{ list .Values.network.prefix "-rdma-{i}" | join "" | toJson }}}}\n'
        f"  wave: '-2'\n  interface: eth{i}\n"
    )


def test_numbered_keys_from_zero_without_gaps() -> None:
    keys = ["net-rdma-0", "net-rdma-1", "net-gvnic", "pv-2", "pv-3", "job-0"]
    assert numbered(keys) == {"net-rdma": ["net-rdma-0", "net-rdma-1"]}


def test_one_template_reads_the_index_and_the_root() -> None:
    text = ranged([body(i) for i in range(3)])
    assert text == (
        "{{- range $i := until 3 }}\n---\nkind: Network\nmetadata:\n  labels:\n"
        '    {{- include "verl-grpo.labels" $ | trimPrefix "\\n" | nindent 4 }}\n'
        '  name: {{ list $.Values.network.prefix "-rdma-" $i | join "" | toJson }}\n'
        "  wave: '-2'\n  interface: eth{{ $i }}\n{{- end }}\n"
    )


def test_objects_that_differ_otherwise_stay_apart() -> None:
    assert ranged([body(0), body(1).replace("Network", "Other")]) is None
    assert ranged([body(0), body(2)]) is None  # not its index
    assert ranged(["a: 1\n", "a: 1\n"]) is None  # no index at all
