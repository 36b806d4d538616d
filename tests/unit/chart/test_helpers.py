"""chart/helpers.py: `_helpers.tpl`, the labels every object carries and the chart's named
templates (values/decisions.py Helper), in a stable order."""

from __future__ import annotations

from verl_grpo.chart.helpers import LABELS, helpers_template
from verl_grpo.values.decisions import Helper

FIRST = Helper("verl-grpo.alpha", "\n{{- .Values.a }}\n", "Alpha: reads a.")
SECOND = Helper("verl-grpo.beta", "{{- .Values.b }}", "Beta: reads b.")


def test_the_labels_come_first_then_every_helper_by_name() -> None:
    """The file does not depend on the order the rendering met the helpers in: regenerating the
    chart gives the same bytes."""
    text = helpers_template("app: verl\nteam: ml\n\n", {SECOND.name: SECOND, FIRST.name: FIRST})
    assert text.startswith("{{- /* The labels of every object (assembly.top_labels). */}}\n")
    assert (
        f'{{{{- define "{LABELS}" }}}}\napp: verl\nteam: ml\n{{{{- end }}}}\n' in text
    )  # trailing lines cut
    assert text.index('define "verl-grpo.labels"') < text.index(FIRST.name) < text.index(SECOND.name)
    same = helpers_template("app: verl\nteam: ml\n\n", {FIRST.name: FIRST, SECOND.name: SECOND})
    assert same == text


def test_each_helper_is_defined_once_with_the_function_it_twins() -> None:
    """A helper's define carries the Python function it twins as a comment, and its body stripped."""
    text = helpers_template("app: verl", {FIRST.name: FIRST, SECOND.name: SECOND})
    assert text.count("{{- define ") == 3 and text.count("{{- end }}") == 3
    assert (
        '{{- /* Alpha: reads a. */}}\n{{- define "verl-grpo.alpha" -}}\n{{- .Values.a }}\n{{- end }}\n'
        in text
    )
    assert helpers_template("app: verl", {}).count("{{- define ") == 1  # the labels alone
