"""The chart's templates, from one chart-mode rendering of the constructs (values/decisions.py
ChartDecisions): one file per object, the subtrees several objects hold in named templates, the helpers, the
machine facts and the rules."""

from __future__ import annotations

import re
from typing import Any

from ..constructs.base import SPEC_DEFINE
from ..constructs.verl_ray_cluster import GPU_NODE_SELECTOR
from ..rules.cross_rules import rules_template
from ..rules.expressions import from_root
from ..values.decisions import ChartDecisions, ChartTable, chart_values
from ..values.derive import Release, deploy_spec
from ..values.model import Values
from ..values.worker_groups import WORKER_GROUP_TEMPLATE
from .facts import bind_facts, facts_template
from .helpers import LABELS, helpers_template
from .template_text import Action, render_tree, to_tree, wrap_long_lines

# Every object's template runs the cross-field rules first (rules/cross_rules.py): `helm install`
# and `helm template` fail with the rule id, key and message `verl-grpo check` gives.
RULES_INCLUDE = '{{- include "verl-grpo.validateValues" . }}\n'
SHARED = "Held by more than one object (constructs/: add_object(shared=...))."
# A subtree kept in a named template: `key: <placeholder><define>` in its holder's text.
INCLUDE = "__INCLUDE__"
# The machine whose facts a named template reads: a worker group's own, else the values'.
MACHINE = {WORKER_GROUP_TEMPLATE: ".group.machine", GPU_NODE_SELECTOR: ".group.machine"}
# What a named template is, for those the constructs name (Decisions.each_group, Decisions.named).
WHY = {
    WORKER_GROUP_TEMPLATE: "One worker group: `.group` its fields (verl-grpo.workerGroups), else the root's.",
    GPU_NODE_SELECTOR: "A worker group's node selector: its machine's labels, its capacity's, its pool's.",
}


def chart_table_and_objects() -> tuple[ChartTable, list[Any]]:
    """The constructs rendered once in chart mode, through cdk8s as every rendering is."""
    from ..constructs.app import render

    table = ChartTable()
    values = chart_values(Values, table)
    release = Release(table.add(".Release.Name", "str"), table.add(".Release.Namespace", "str"))
    (objects,) = render({"chart": deploy_spec(values, release, ChartDecisions(table))}).values()
    return table, objects


def templates() -> dict[str, str]:
    """templates/<object>.yaml for every object, and the named templates."""
    from ..constructs.assembly import TOP_LABEL_KEYS

    table, objects = chart_table_and_objects()
    defines: dict[str, Any] = {}
    files: dict[str, str] = {}
    bodies: dict[str, tuple[str, str | None, str | None]] = {}
    for obj in objects:
        tree = to_tree(obj.manifest, table)
        includes = {**obj.includes, "metadata/labels": LABELS}
        # The deepest first: a define's subtree holds the include of one nested in it.
        for path, define in sorted(includes.items(), key=lambda item: -item[0].count("/")):
            *parents, last = path.split("/")
            parent = tree
            for key in parents:
                parent = parent[key]
            if define == LABELS:  # the chart's labels, then the object's own
                labels = parent[last]
                defines[LABELS] = {k: v for k, v in labels.items() if k in TOP_LABEL_KEYS}
                own = {k: v for k, v in labels.items() if k not in TOP_LABEL_KEYS}
                parent[last] = {f"{INCLUDE}{define}": None, **own}
                continue
            defines.setdefault(define, parent[last])
            parent[last] = f"{INCLUDE}{define}"
        bodies[obj.key] = (render_tree(tree, defines), obj.condition, obj.count)
    scalars = frozenset(d for d, tree in defines.items() if isinstance(tree, Action))
    for key, (body, condition, count) in bodies.items():
        files[f"templates/{key}.yaml"] = object_template(include_defines(body, scalars), condition, count)
    rendered: set[str] = set()
    while pending := [d for d in defines if d not in rendered]:  # a define's text may add a range's
        for define in pending:
            rendered.add(define)
            files[define_file(define)] = define_text(define, defines[define], defines, scalars)
    files["templates/_helpers.tpl"] = helpers_template(files.pop(define_file(LABELS)), table.helpers)
    files["templates/_rules.tpl"] = rules_template()
    files["templates/_facts.tpl"] = facts_template()
    files = {path: wrap_long_lines(text) for path, text in files.items()}
    files.update({f"files/{name}": text for name, text in sorted(table.files.items())})
    return files


def define_file(define: str) -> str:
    """verl-grpo.rayJob.spec -> templates/_rayJob.tpl."""
    return f"templates/_{define.split('.')[1]}.tpl"


def object_template(body: str, condition: str | None, count: str | None) -> str:
    """An object's template: its condition, `$facts` where it reads them, and its range."""
    if count:  # inside `range`, `.` is the index, the root is `$`
        body = f"{{{{- range $i := until (int {count}) }}}}\n---\n{from_root(body)}{{{{- end }}}}\n"
    if condition:
        body = f"{{{{- if {condition} }}}}\n{body}{{{{- end }}}}\n"
    if "$facts." in body:
        body = bind_facts(".Values.gpu.type") + body
    return RULES_INCLUDE + body


def define_text(define: str, tree: Any, defines: dict[str, Any], scalars: frozenset[str]) -> str:
    machine = MACHINE.get(define, ".Values.gpu.type")
    facts = bind_facts(machine)
    if define in scalars:
        action = tree.text
        bind = bind_facts(machine, trim_after=True) if "$facts." in action else ""
        return f'{{{{- /* {SHARED} */}}}}\n{{{{- define "{define}" -}}}}\n{bind}{action}\n{{{{- end }}}}\n'
    body = include_defines(render_tree(tree, defines), scalars).rstrip()
    if "$facts." in body:
        body = facts + body
    if define in WHY:
        return f'{{{{- /* {WHY[define]} */}}}}\n{{{{- define "{define}" }}}}\n{body}\n{{{{- end }}}}\n'
    if define == LABELS:
        return body
    template = define.removesuffix(SPEC_DEFINE)
    if template != define:
        return spec_define(template, body)
    return f'{{{{- /* {SHARED} */}}}}\n{{{{- define "{define}" }}}}\n{body}\n{{{{- end }}}}\n'


def spec_define(template: str, body: str) -> str:
    """`<template>.spec`: the spec; `<template>.digest`: 8 hex digits of sha256 over it as JSON,
    the same bytes as Decisions.spec_digest hashes (Go's encoding/json: sorted keys, no spaces)."""
    return (
        f"{{{{- /* The spec of the object named after its digest (Decisions.spec_digest). */}}}}\n"
        f'{{{{- define "{template}.spec" }}}}\n{body}\n{{{{- end }}}}\n\n'
        f'{{{{- define "{template}.digest" -}}}}\n'
        f'{{{{ include "{template}.spec" . | fromYaml | toJson | sha256sum | trunc 8 }}}}\n'
        "{{- end }}\n"
    )


def include_defines(template: str, scalars: frozenset[str]) -> str:
    """`key:` followed by the named template's output, indented under it (on the key's line for
    the `scalars`)."""

    def include(m: re.Match[str]) -> str:
        indent, key, name = m[1], m[2], m[3]
        if name in scalars:
            return f'{indent}{key}: {{{{ include "{name}" . }}}}'
        action = f'include "{name}" . | trimPrefix "\\n" | nindent {len(indent) + 2}'
        return f"{indent}{key}:\n{indent}  {{{{- {action} }}}}"

    def include_keys(m: re.Match[str]) -> str:  # a define's keys among a mapping's own
        indent, name = m[1], m[2]
        return f'{indent}{{{{- include "{name}" . | trimPrefix "\\n" | nindent {len(indent)} }}}}'

    template = re.sub(rf"^( *){INCLUDE}(\S+): null$", include_keys, template, flags=re.MULTILINE)
    return re.sub(rf"^( *)(\S+): {INCLUDE}(\S+)$", include, template, flags=re.MULTILINE)
