"""commands/schema.py: `verl-grpo schema` prints the values' JSON Schema, the chart's own file."""

from __future__ import annotations

import json

import jsonschema
import pytest
import yaml

from verl_grpo.cli import main

from ...conftest import REPO

CHART = REPO / "charts" / "verl-grpo"


def printed(capsys: pytest.CaptureFixture[str]) -> dict:
    assert main(["schema"]) == 0
    out, err = capsys.readouterr()
    assert err == ""
    return json.loads(out)


def test_it_prints_the_charts_values_schema_json(capsys: pytest.CaptureFixture[str]) -> None:
    """The printed schema is the chart's values.schema.json, word for word."""
    assert printed(capsys) == json.loads((CHART / "values.schema.json").read_text())


def test_the_schema_takes_the_charts_defaults_and_refuses_unknown_keys_and_gpus(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The chart's values.yaml passes it; an unknown key or GPU type does not."""
    validator = jsonschema.Draft7Validator(printed(capsys))
    defaults = yaml.safe_load((CHART / "values.yaml").read_text())
    assert list(validator.iter_errors(defaults)) == []
    (unknown,) = validator.iter_errors({**defaults, "bogus": 1})
    assert "'bogus' was unexpected" in unknown.message
    (gpu,) = validator.iter_errors({**defaults, "gpu": {"type": "a100"}})
    assert list(gpu.path) == ["gpu", "type"]


def test_it_takes_no_arguments(capsys: pytest.CaptureFixture[str]) -> None:
    """schema has no flags: any is a usage error, with nothing printed."""
    with pytest.raises(SystemExit) as e:
        main(["schema", "--profile", "b200-standard"])
    assert e.value.code == 2 and capsys.readouterr().out == ""
