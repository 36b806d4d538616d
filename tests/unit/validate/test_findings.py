"""validate/findings.py: a finding is a Problem of the validate stage, and its path reads as the
field's path in the object, the way kubectl explain and the API server's errors write it."""

from __future__ import annotations

import pytest

from verl_grpo.problems import VALIDATE
from verl_grpo.validate.findings import dotted, finding


@pytest.mark.parametrize(
    ("path", "shown"),
    [
        (("spec", "replicas"), "spec.replicas"),
        (("spec", "containers", 0, "image"), "spec.containers[0].image"),
        # label-like keys hold dots and slashes: bracketed, so the path stays unambiguous
        (
            ("spec", "nodeSelector", "cloud.google.com/gke-spot"),
            "spec.nodeSelector[cloud.google.com/gke-spot]",
        ),
        ((0, "name"), "[0].name"),
        ((), ""),
    ],
)
def test_a_path_is_dotted_with_indexes_and_odd_keys_in_brackets(path: tuple, shown: str) -> None:
    """Paths read as the field's path: dots, [index], and [key] for keys with dots or slashes."""
    assert dotted(path) == shown


def test_a_finding_names_source_object_path_and_rule_on_one_line() -> None:
    """A finding is one line: severity, source, object and path, message, [rule]."""
    problem = finding("error", "dist/a.yaml#2", "RayJob/default/x", "spec.entrypoint", "crd-cel", "bad\nrule")
    assert problem.stage == VALIDATE and problem.key == "spec.entrypoint" and problem.rule == "crd-cel"
    assert problem.line() == "error: dist/a.yaml#2: RayJob/default/x spec.entrypoint: bad\\nrule [crd-cel]"
    whole = finding("warning", "s", "Kind/n", "", "unknown-kind", "m")
    assert whole.line() == "warning: s: Kind/n: m [unknown-kind]"  # no path: the whole object
