"""`_facts.tpl`: the machine facts (data/gpus/*.yaml, as facts/machines.py reads them) and the
defaults derived for each cluster mode (values/derive.py machine_defaults), under their field names;
`verl-grpo.facts` gives one machine's in one mode, which templates bind to `$facts`."""

from __future__ import annotations

import dataclasses
from typing import Any

from ..facts.machines import gpu_profiles
from ..facts.node_fit import SIDECAR_LIMITS
from ..facts.verl_releases import RELEASE_HELPER, RELEASES_TABLE, release_rows
from ..rules.cross_rules import RULES
from ..rules.expressions import FACTS_HELPER, MACHINE_FACTS, MACHINE_HELPER
from ..values.decisions import camel
from ..values.derive import machine_defaults
from ..yaml_io import dump

FACTS = FACTS_HELPER
MACHINES = "verl-grpo.machines"


def machine_rows() -> dict[str, Any]:
    rows = {}
    for name, gpu in gpu_profiles().items():
        row = {camel(k): (dict(v) if k == "nccl_env" else v) for k, v in dataclasses.asdict(gpu).items()}
        row = {k: list(v) if isinstance(v, tuple) else v for k, v in row.items()}
        # What the rules read (rules/cross_rules.py MachineFact): the same field, or one of their own.
        assert RULES, "the rules register their facts as they are built"
        for fact, table in MACHINE_FACTS.items():
            assert row.get(fact, table[name]) == table[name], f"{name}: {fact} differs from the profile's"
            row[fact] = table[name]
        row["defaults"] = {
            mode: {camel(k): v for k, v in dataclasses.asdict(machine_defaults(name, mode)).items()}
            for mode in SIDECAR_LIMITS
        }
        rows[name] = row
    return rows


def facts_template() -> str:
    return (
        "{{- /* By GPU type: data/gpus/*.yaml; defaults by cluster mode: values/derive.py. */}}\n"
        f'{{{{- define "{MACHINES}" }}}}\n{dump(machine_rows())}{{{{- end }}}}\n\n'
        "{{- /* One machine's facts (by gpu type), as JSON. */}}\n"
        f'{{{{- define "{MACHINE_HELPER}" -}}}}\n'
        f'{{{{- index (include "{MACHINES}" . | fromYaml) . | toJson }}}}\n'
        "{{- end }}\n\n"
        "{{- /* One machine's facts in one cluster mode: (list gpuType clusterMode), as JSON. */}}\n"
        f'{{{{- define "{FACTS}" -}}}}\n'
        f'{{{{- $machine := index (include "{MACHINES}" . | fromYaml) (index . 0) }}}}\n'
        '{{- toJson (merge (index $machine.defaults (index . 1)) (omit $machine "defaults")) }}\n'
        "{{- end }}\n\n"
        "{{- /* By verl release: data/verl/*.yaml (facts/verl_releases.py release_row). */}}\n"
        f'{{{{- define "{RELEASES_TABLE}" }}}}\n{dump(release_rows())}{{{{- end }}}}\n\n'
        "{{- /* One verl release's facts (by training.verlVersion), as JSON. */}}\n"
        f'{{{{- define "{RELEASE_HELPER}" -}}}}\n'
        f'{{{{- index (include "{RELEASES_TABLE}" . | fromYaml) . | toJson }}}}\n'
        "{{- end }}\n"
    )


def bind_facts(machine: str, trim_after: bool = False) -> str:
    """The line that binds `$facts` at the top of a template (or named template) that reads it;
    `trim_after`: it also trims the line break after it (before a scalar named template's text)."""
    after = " -" if trim_after else " "
    return f'{{{{- $facts := include "{FACTS}" (list {machine} .Values.cluster.mode) | fromJson{after}}}}}\n'
