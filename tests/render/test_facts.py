"""render/facts.py: values that differ only with the GPU type and mode become lookups in one table."""

from __future__ import annotations

import re

import yaml

from verl_grpo.render.chart import scalar_text
from verl_grpo.render.facts import LOOKUP, Facts, with_lookup
from verl_grpo.render.templates import Action, Dimension, Variants, combos, condition, merge, render_tree
from verl_grpo.values.machines import GpuProfile, gpu_profiles

from ..conftest import REPO

GPU = Dimension("gpu.type", ("b200", "h200"))
MODE = Dimension("cluster.mode", ("standard", "autopilot"))
CAPACITY = Dimension("cluster.capacity", ("spot", "on-demand"))
DIMS = [GPU, MODE, CAPACITY]


def each(value_of) -> dict:
    return {c: value_of(*c) for c in combos(DIMS)}


def test_a_scalar_that_follows_the_gpu_is_looked_up() -> None:
    facts = Facts(DIMS)
    tree = merge(each(lambda gpu, mode, cap: {"nodeSelector": {"accelerator": f"nvidia-{gpu}"}}), DIMS, facts)
    assert tree == {"nodeSelector": {"accelerator": Action("{{ $facts.accelerator }}")}}
    assert facts.table == {"accelerator": {(g, m): f"nvidia-{g}" for g in GPU.choices for m in MODE.choices}}


def test_a_default_in_an_action_is_named_after_its_value() -> None:
    facts = Facts(DIMS)
    memory = {"standard": "3597Gi", "autopilot": "3584Gi"}
    trees = each(
        lambda gpu, mode, cap: Action(
            f'{{{{ (.Values.worker.memory | default "{memory[mode]}") | toJson }}}}'
        )
    )
    assert merge(trees, DIMS, facts) == Action(
        "{{ (.Values.worker.memory | default $facts.workerMemory) | toJson }}"
    )
    assert facts.table["workerMemory"][("h200", "autopilot")] == "3584Gi"


def test_the_gpu_type_itself_is_read_from_values_not_the_table() -> None:
    facts = Facts(DIMS)
    trees = each(lambda gpu, mode, cap: Action(f'{{{{ list .Release.Name "-{gpu}" | join "" | toJson }}}}'))
    assert merge(trees, DIMS, facts) == Action(
        '{{ list .Release.Name "-" .Values.gpu.type | join "" | toJson }}'
    )
    assert facts.table == {}


def test_only_the_differing_token_of_a_long_text_is_a_fact() -> None:
    facts = Facts(DIMS)
    tuner = {"b200": "a4", "h200": "a3u"}
    text = 'env:\\n  NCCL_TUNER_CONFIG_PATH: \\"/gib/tuner_{}.txtpb\\"\\n  NCCL_NET: gIB\\n'
    trees = each(
        lambda gpu, mode, cap: Action(f'{{{{ list "{text.format(tuner[gpu])}" | join "" | toJson }}}}')
    )
    merged = merge(trees, DIMS, facts)
    assert merged == Action(
        '{{ list "env:\\n  NCCL_TUNER_CONFIG_PATH: \\"" $facts.ncclTunerConfigPath '
        '"\\"\\n  NCCL_NET: gIB\\n" | join "" | toJson }}'
    )
    assert facts.table["ncclTunerConfigPath"][("b200", "standard")] == "/gib/tuner_a4.txtpb"


def test_what_varies_with_other_keys_or_is_not_a_plain_scalar_stays_guarded() -> None:
    facts = Facts(DIMS)
    by_capacity = merge(each(lambda gpu, mode, cap: {"spot": cap == "spot"}), DIMS, facts)
    assert isinstance(by_capacity["spot"], Variants)
    spaced = merge(each(lambda gpu, mode, cap: {"note": "a: b" if gpu == "b200" else "c"}), DIMS, facts)
    assert isinstance(spaced["note"], Variants)  # YAML needs more than `quote` for 'a: b'
    assert facts.table == {}


def test_a_string_yaml_would_read_as_a_number_is_looked_up_and_quoted() -> None:
    facts = Facts(DIMS)
    quoted = merge(each(lambda gpu, mode, cap: {"count": "8" if gpu == "b200" else "4"}), DIMS, facts)
    assert quoted == {"count": Action("{{ $facts.count | quote }}")}
    assert facts.table["count"][("b200", "standard")] == "8"


def test_the_table_has_a_row_for_every_gpu_and_mode_and_templates_bind_it() -> None:
    facts = Facts(DIMS)
    body = render_tree(merge(each(lambda gpu, mode, cap: {"a": f"x-{gpu}"}), DIMS, facts))
    assert with_lookup(body).startswith(LOOKUP + "\n") and with_lookup("a: 1\n") == "a: 1\n"
    text = facts.template()
    rows = yaml.safe_load(text.split("}}\n", 2)[2].rsplit("{{ end }}", 1)[0])
    assert rows == {g: {m: {"a": f"x-{g}"} for m in MODE.choices} for g in GPU.choices}


def shape(gpu: GpuProfile) -> tuple:
    """What a machine's objects hold, as opposed to the values in them: its CPU architecture, RDMA
    NICs, IMEX, whether it has an NCCL tuner file and which NCCL settings of its own."""
    return (gpu.arch, gpu.rdma_nics, gpu.imex, bool(gpu.nccl_tuner_config), sorted(dict(gpu.nccl_env)))


def test_the_chart_tells_machines_of_one_shape_apart_by_lookups_only() -> None:
    """Every per-GPU value of the shipped chart is a lookup; a guard on gpu.type names whole
    shapes (A4X's arm64 selector, its IMEX claim), never B200 without H200."""
    profiles = gpu_profiles()
    by_shape: dict[str, set[str]] = {}
    for name, gpu in profiles.items():
        by_shape.setdefault(repr(shape(gpu)), set()).add(name)
    assert by_shape[repr(shape(profiles["b200"]))] == {"b200", "h200"}
    guards = [
        (t.name, set(re.findall(r'"([^"]+)"', g)))
        for t in (REPO / "charts" / "verl-grpo" / "templates").glob("*")
        for g in re.findall(r"\(eq \.Values\.gpu\.type((?: \"[^\"]+\")+)\)", t.read_text())
    ]
    assert guards, "A4X's extra objects and fields are guarded"
    for name, named in guards:
        assert all(cls <= named or not cls & named for cls in by_shape.values()), (name, named)


def test_machines_of_one_shape_share_a_branch_and_look_their_value_up() -> None:
    """Three machines: one holds a mapping where the other two hold strings that differ."""
    gpu3 = Dimension("gpu.type", ("a", "b", "c"))
    dims = [gpu3, MODE, CAPACITY]
    facts = Facts(dims)
    trees = {c: {"k": {"x": 1} if c[0] == "a" else f"v-{c[0]}"} for c in combos(dims)}
    merged = merge(trees, dims, facts)
    assert merged == {"k": Variants(((f"{gpu3.test('a')}", {"x": 1}), (None, Action("{{ $facts.k }}"))))}
    assert {g for (g, _), v in facts.table["k"].items()} == {"b", "c"}


def test_a_group_is_a_box_less_a_hole() -> None:
    """B200 except autopilot on spot: one test for the box, one negated for the hole."""
    group = {c for c in combos(DIMS) if c[0] == "b200" and not (c[1] == "autopilot" and c[2] == "spot")}
    assert condition(group, DIMS) == (
        '(and (eq .Values.gpu.type "b200") (not (and (eq .Values.cluster.mode "autopilot") '
        '(eq .Values.cluster.capacity "spot"))))'
    )


def test_a_scalar_that_differs_in_whole_lines_is_an_if_chain() -> None:
    chain = Variants((('(eq .Values.gpu.type "a")', Action("{{ x }}")), (None, Action("{{ y }}"))))
    assert scalar_text(chain) == '{{- if (eq .Values.gpu.type "a") }}{{ x }}{{- else }}{{ y }}{{- end }}'
    assert scalar_text(Variants(((None, {"k": 1}),))) is None
