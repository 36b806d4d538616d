"""The CLI's --set family (values/helm_sets.py, Helm's strvals in Python) against Helm itself: against
Helm's own parser built from its module (tools/helm-strvals) on random strings, and against
`helm template` with the same strings.

The chart here holds the real chart's values.yaml and one template that prints the values Helm
computed, so every case compares the whole values tree the two paths end with.
"""

from __future__ import annotations

import json
import shutil

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from verl_grpo.problems import Problems
from verl_grpo.values.helm_sets import SET_FLAGS, apply_sets, tagged
from verl_grpo.values.loader import merge_layers

from ..helm_tools import CHART, run, tool

FILE_LAYER = "worker:\n  tolerations:\n    - {key: a, operator: Exists}\n    - {key: b, operator: Exists}\n"

CASES = [
    [("--set", "training.learningRate=0.00001")],  # Helm types no decimals: the string "0.00001"
    [("--set-json", "training.learningRate=0.00001")],
    [("--set", "worker.tolerations[1].key=x")],  # edits the -f file's list, keeps element 0
    [("--set", "worker.tolerations[3].key=y")],  # grows it with nulls, as Helm does
    [("--set", "training.totalEpochs=007,worker.cpu=3")],
    [("--set", "storage.bucket=null")],  # deletes the default
    [("--set", r"run.name=a\,b")],
    [("--set", "training.extraArgs={x,y}")],
    [("--set-string", "training.totalEpochs=4"), ("--set", "training.totalEpochs=5")],  # --set-string wins
    [
        ("--set", "training.totalEpochs=5"),
        ("--set-json", "training.totalEpochs=6"),
    ],  # --set wins over --set-json
    [("--set-json", '{"worker":{"cpu":"8"},"training":{"totalEpochs":3}}')],
    [("--set-literal", "run.name=a,b={c}")],
]


@pytest.fixture(scope="module")
def values_chart(tmp_path_factory):
    chart = tmp_path_factory.mktemp("values-chart")
    shutil.copy(CHART / "Chart.yaml", chart / "Chart.yaml")
    shutil.copy(CHART / "values.yaml", chart / "values.yaml")
    (chart / "templates").mkdir()
    (chart / "templates" / "values.yaml").write_text("values: {{ toJson .Values }}\n")
    return chart


def helm_values(chart, files, flags) -> dict:
    args = [a for f in files for a in ("-f", str(f))] + [a for flag, expr in flags for a in (flag, expr)]
    done = run(tool("helm"), "template", "verl", str(chart), *args)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.split("values: ", 1)[1])


@pytest.mark.parametrize("flags", CASES, ids=lambda c: " ".join(f"{f} {e}" for f, e in c))
def test_the_cli_reads_sets_as_helm_does(values_chart, tmp_path, flags):
    layer = tmp_path / "user.yaml"
    layer.write_text(FILE_LAYER)
    ours = merge_layers(None, [layer], [tagged(f, e) for f, e in flags])
    assert ours == helm_values(values_chart, [layer], flags)


def test_set_file_reads_the_file_as_helm_does(values_chart, tmp_path):
    text = tmp_path / "args.txt"
    text.write_text("line one\nline two\n")
    flags = [("--set-file", f"run.name={text}")]
    ours = merge_layers(None, [], [tagged(f, e) for f, e in flags])
    assert ours["run"]["name"] == "line one\nline two\n"
    assert ours == helm_values(values_chart, [], flags)


@pytest.mark.parametrize(
    ("flag", "expr"),
    [("--set", "worker.tolerations[x].key=1"), ("--set", "worker"), ("--set-json", "training.totalEpochs={")],
)
def test_a_string_helm_refuses_is_refused_with_helms_words(values_chart, flag, expr):
    done = run(tool("helm"), "template", "verl", str(values_chart), flag, expr)
    assert done.returncode != 0
    with pytest.raises(Problems) as refused:
        merge_layers(None, [], [tagged(flag, expr)])
    (problem,) = refused.value.problems
    assert problem.key == flag
    assert problem.message in done.stderr  # Helm's own message, word for word


# Strings of the characters strvals gives a meaning to, and values for them to land on (no numbers:
# the Go program reads its base's numbers as json.Number, a type Python has no name for).
SYNTAX = 'ab0-19=,.[]{}\\ "nultrE'
EXPRESSIONS = st.text(SYNTAX, max_size=24)
BASE = st.dictionaries(
    st.sampled_from("ab"),
    st.recursive(
        st.none() | st.booleans() | st.sampled_from(["", "x"]),
        lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.sampled_from("ab"), inner, max_size=2),
        max_leaves=6,
    ),
    max_size=2,
)


def go_answer(base: dict, flag: str, expression: str) -> object:
    done = run(tool("helm-strvals"), "--base", json.dumps(base), flag, expression)
    return json.loads(done.stdout) if done.returncode == 0 else done.stderr.removesuffix("\n")


def python_answer(base: dict, flag: str, expression: str) -> object:
    try:
        return apply_sets(base, [tagged(flag, expression)])
    except Problems as refused:
        (problem,) = refused.problems
        return problem.message


@settings(max_examples=1000, deadline=None, derandomize=True)
@given(base=BASE, flag=st.sampled_from(SET_FLAGS), expression=EXPRESSIONS)
def test_the_python_parser_is_helms_on_any_string(tmp_path_factory, base, flag, expression):
    """The same tree, or the same error in the same words, as Helm's pkg/strvals."""
    if flag == "--set-file":  # in a folder of its own: the names read are files that are not there
        folder = tmp_path_factory.mktemp("set-file")
        expression = expression.replace("-", "_")  # "-" would read stdin
        with pytest.MonkeyPatch.context() as patch:
            patch.chdir(folder)
            assert python_answer(base, flag, expression) == go_answer(base, flag, expression)
        return
    assert python_answer(base, flag, expression) == go_answer(base, flag, expression)
