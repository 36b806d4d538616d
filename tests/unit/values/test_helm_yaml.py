"""values/helm_yaml.py: YAML read and written as Helm (go-yaml v2) reads values, so that
`verl-grpo synth -f` and `helm -f` see the same types."""

from __future__ import annotations

import pytest
import yaml

from verl_grpo.values.helm_yaml import HelmValuesLoader, dump_values_yaml, scalar


def load(text: str):
    return yaml.load(text, Loader=HelmValuesLoader)


def test_go_yamls_numbers_and_booleans_are_read_as_helm_reads_them() -> None:
    """PyYAML keeps `1e5`, `08`, `y` and `n` as strings; go-yaml v2 takes them for 100000, 8 and
    booleans, and drops a plain number's underscores (`0_8` is 8)."""
    text = "a: 1e5\nb: 08\nc: y\nd: n\ne: 0_8\nf: 1e-5\n"
    assert yaml.safe_load(text) == {"a": "1e5", "b": "08", "c": "y", "d": "n", "e": "0_8", "f": "1e-5"}
    assert load(text) == {"a": 100000.0, "b": 8.0, "c": True, "d": False, "e": 8.0, "f": 1e-5}


def test_what_stays_text_for_go_yaml_stays_text() -> None:
    """Versions, image tags, CIDRs and quoted numbers are strings for go-yaml as well."""
    assert load("a: 1.2.3\nb: vllm011.dev7\nc: yy\nd: '08'\ne: 10.0.0.0/8\n") == {
        "a": "1.2.3",
        "b": "vllm011.dev7",
        "c": "yy",
        "d": "08",
        "e": "10.0.0.0/8",
    }


@pytest.mark.parametrize("text", ["y", "n", "Y", "08", "1e5", "0_8", "1.5", "true", "null", "", "x: y"])
def test_a_string_go_yaml_would_misread_is_quoted_and_comes_back_a_string(text: str) -> None:
    """Round trip: the dumper quotes a string go-yaml would take for a number, boolean or null."""
    dumped = dump_values_yaml({"k": text})
    assert load(dumped) == {"k": text}, dumped


def test_the_dump_keeps_key_order_and_long_lines() -> None:
    """values.yaml keeps the model's key order (no sorting) and never folds a long line."""
    data = {"zeta": 1, "alpha": {"b": 2, "a": 3}, "long": "w " * 100}
    text = dump_values_yaml(data)
    assert text.index("zeta") < text.index("alpha") < text.index("long")
    assert len(text.splitlines()) == 5 and load(text) == data


def test_scalar_writes_one_flow_line_for_a_values_comment() -> None:
    """A value on one line, in flow style, quoted where go-yaml would misread it."""
    assert scalar(True) == "true" and scalar(None) == "null" and scalar(2) == "2"
    assert scalar("plain") == "plain" and scalar("y") == "'y'" and scalar("") == "''"
    assert scalar([1, "a"]) == "[1, a]" and scalar({}) == "{}" and scalar({"a": {"b": 1}}) == "{a: {b: 1}}"
    assert load(f"k: {scalar(1e-6)}") == {"k": 1e-6}  # a float survives the line
