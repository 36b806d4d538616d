"""`_helpers.tpl`: the named templates every object's template may call, each the Go twin of the
Python function named beside it (the parity tests hold each pair equal)."""

from __future__ import annotations

from ..values.networks import POD_INTERFACES_HELPER
from ..values.refs import QUOTED_LINES
from ..values.worker_groups import WORKER_GROUPS_HELPER

# Every object's labels (assembly.top_labels), as a Helm author keeps them: in one named template.
LABELS = "verl-grpo.labels"

# Ops.quoted_lines: `<indent>KEY: "VALUE"` per entry of a string map, sorted by key; (list map indent).
QUOTED_LINES_HELPER = f"""\
{{{{- define "{QUOTED_LINES}" -}}}}
{{{{- $indent := index . 1 }}}}
{{{{- range $key, $value := index . 0 }}}}
{{{{- printf "%s%s: %q\\n" $indent $key $value }}}}
{{{{- end }}}}
{{{{- end }}}}
"""


def helpers_template(labels: str) -> str:
    sections = [
        f"{{{{- /* The labels of every object (assembly.top_labels). */}}}}\n"
        f'{{{{- define "{LABELS}" }}}}\n{labels.rstrip()}\n{{{{- end }}}}\n',
        "{{- /* The worker groups as their pods see the values (values/worker_groups.py group_views). */}}\n"
        + WORKER_GROUPS_HELPER,
        "{{- /* A worker pod's networking.gke.io/interfaces (values/networks.py pod_interfaces). */}}\n"
        + POD_INTERFACES_HELPER,
        "{{- /* Ops.quoted_lines: the machine's NCCL settings in runtimeEnvYAML. */}}\n" + QUOTED_LINES_HELPER,
    ]
    return "\n".join(sections)
