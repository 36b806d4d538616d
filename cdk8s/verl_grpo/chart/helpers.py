"""`_helpers.tpl`: the labels every object carries and the named templates the chart-mode
rendering called (values/decisions.py Helper), each the Go twin of the Python function it names."""

from __future__ import annotations

from ..values.decisions import Helper

# Every object's labels (assembly.top_labels), as a Helm author keeps them: in one named template.
LABELS = "verl-grpo.labels"


def helpers_template(labels: str, helpers: dict[str, Helper]) -> str:
    sections = [
        "{{- /* The labels of every object (assembly.top_labels). */}}\n"
        f'{{{{- define "{LABELS}" }}}}\n{labels.rstrip()}\n{{{{- end }}}}\n',
        *(helpers[name].define() for name in sorted(helpers)),
    ]
    return "\n".join(sections)
