"""chart/files.py: the chart's files besides the object templates: Chart.yaml, values.yaml with a
`# --` description above every key, the schema, the README's values table."""

from __future__ import annotations

import json
from typing import Any

import yaml

from verl_grpo import __version__
from verl_grpo.chart.files import HEADER, chart_files, chart_yaml, readme, values_table, values_yaml
from verl_grpo.facts.machines import gpu_profiles
from verl_grpo.facts.verl_releases import DEFAULT_VERL_VERSION
from verl_grpo.values.helm_yaml import HelmValuesLoader
from verl_grpo.values.loader import default_values
from verl_grpo.values.schema import values_schema


def leaf_keys(values: dict[str, Any], prefix: str = "") -> set[str]:
    """Every key the README lists: sections are walked, a map of groups is one row."""
    keys: set[str] = set()
    for key, value in values.items():
        if isinstance(value, dict) and key != "workerGroups":
            keys |= leaf_keys(value, f"{prefix}{key}.")
        else:
            keys.add(f"{prefix}{key}")
    return keys


def test_chart_yaml_names_the_chart_the_kit_and_verls_version() -> None:
    """The chart's version is the kit's, its appVersion the verl it runs."""
    text = chart_yaml()
    assert text.startswith(HEADER)
    chart = yaml.safe_load(text)
    assert (chart["apiVersion"], chart["name"], chart["type"]) == ("v2", "verl-grpo", "application")
    assert (chart["version"], chart["appVersion"]) == (__version__, DEFAULT_VERL_VERSION)
    assert chart["kubeVersion"] == ">=1.31.0-0"


def test_values_yaml_holds_the_defaults_with_a_description_above_every_key() -> None:
    """What Helm reads from it is exactly the model's defaults (helm_yaml's go-yaml types), and
    every key line follows a `# --` line (helm-docs' convention)."""
    text = values_yaml()
    assert yaml.load(text, Loader=HelmValuesLoader) == default_values()
    lines = text.splitlines()
    key_lines = [i for i, line in enumerate(lines) if line.strip() and not line.lstrip().startswith("#")]
    assert key_lines and all(lines[i - 1].lstrip().startswith("# -- ") for i in key_lines)
    assert "  gpu-group:\n" in text and "# -- The chart's gpu-group (Helm merges maps" in text


def test_the_values_table_lists_every_key_with_its_type_and_default() -> None:
    """One row per leaf of the defaults; enums list their choices; a group's replicas are required."""
    rows = {key: (kind, default, description) for key, kind, default, description in values_table()}
    assert {k for k in rows if "<name>" not in k} == leaf_keys(default_values())
    assert rows["cluster.mode"][:2] == ("string (standard, autopilot)", "standard")
    assert rows["storage.bucket"][1] == "''"
    # A new worker group needs its replicas; its other fields default as the chart's group has them.
    assert rows["workerGroups.<name>.replicas"][1] == "required"
    assert rows["workerGroups.<name>.minReplicas"][1] == "0"
    assert all(description for _, _, description in rows.values())


def test_the_readme_tables_every_value_and_names_every_gpu() -> None:
    """The README's table has a row per values_table row and its prerequisites name every GPU type."""
    text = readme()
    values = text.split("## Values", 1)[1].split("## Rules", 1)[0]
    table = [line for line in values.splitlines() if line.startswith("| `")]
    assert len(table) == len(values_table())
    assert "| `training.rolloutN` | integer | `8` |" in text
    assert all(f"`{gpu}`" in text for gpu in gpu_profiles())


def test_chart_files_gather_the_chart() -> None:
    """Chart.yaml, values, schema, README, .helmignore, NOTES and the templates; the count is the object
    templates'."""
    chart = chart_files()
    files = chart.files
    for path in (
        "Chart.yaml",
        "values.yaml",
        "values.schema.json",
        "README.md",
        ".helmignore",
        "templates/NOTES.txt",
    ):
        assert files[path].strip(), path
    assert json.loads(files["values.schema.json"]) == values_schema()
    written = [p for p in files if p.startswith("templates/") and p != "templates/NOTES.txt"]
    assert chart.template_count == len(written) > 30
