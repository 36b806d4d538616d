"""chart/facts.py: `_facts.tpl` holds, by GPU type, what data/gpus/ says, the defaults derive.py
computes for each mode, and every fact a rule reads (rules/expressions.py MachineFact)."""

from __future__ import annotations

import dataclasses

from verl_grpo.chart.facts import facts_template, machine_rows
from verl_grpo.facts.machines import gpu_profiles
from verl_grpo.facts.node_fit import SIDECAR_LIMITS
from verl_grpo.rules.expressions import MACHINE_FACTS
from verl_grpo.values.decisions import camel
from verl_grpo.values.derive import machine_defaults
from verl_grpo.yaml_io import load


def test_each_machine_row_holds_its_profile_its_defaults_and_the_rules_facts():
    rows = machine_rows()
    assert set(rows) == set(gpu_profiles())
    for name, gpu in gpu_profiles().items():
        row = rows[name]
        assert row["gpusPerNode"] == gpu.gpus_per_node and row["rdmaNics"] == gpu.rdma_nics
        assert row["ncclEnv"] == dict(gpu.nccl_env)
        for mode in SIDECAR_LIMITS:
            defaults = dataclasses.asdict(machine_defaults(name, mode))
            assert row["defaults"][mode] == {camel(k): v for k, v in defaults.items()}
        assert MACHINE_FACTS and all(row[fact] == table[name] for fact, table in MACHINE_FACTS.items())


def test_the_template_carries_the_rows_as_yaml():
    text = facts_template()
    body = text.split('{{- define "verl-grpo.machines" }}\n', 1)[1].split("{{- end }}", 1)[0]
    assert load(body) == machine_rows()
    assert '{{- define "verl-grpo.facts" -}}' in text and '{{- define "verl-grpo.machine" -}}' in text
