"""chart/writer.py: the chart's templates from one chart-mode rendering."""

from __future__ import annotations

import pytest

from verl_grpo.chart.writer import RULES_INCLUDE, templates


@pytest.fixture(scope="module")
def files() -> dict[str, str]:
    return templates()


def test_every_object_template_validates_the_values_first(files):
    objects = [path for path in files if path.startswith("templates/") and path.endswith(".yaml")]
    assert len(objects) > 30
    assert all(files[path].startswith(RULES_INCLUDE) for path in objects)


def test_templates_stay_readable(files):
    """Long actions are laid out over lines; what is left above 160 columns is a lone literal (a
    rule's regular expression, the worker's setup command folded by YAML), never an action."""
    long = [
        (path, line)
        for path, text in files.items()
        if path.startswith("templates/")
        for line in text.split("\n")
        if len(line) > 160
    ]
    assert all(len(line) <= 170 and "{{" not in line for _, line in long), long
    templates_ = {path: text for path, text in files.items() if path.startswith("templates/")}
    assert all(
        len(text.split("\n")) <= 300 for path, text in templates_.items() if not path.endswith("_rules.tpl")
    )


def test_the_pod_scripts_are_chart_files_not_template_text(files):
    config_map = files["templates/preflight-config-map.yaml"]
    assert '.Files.Get "files/preflight.py"' in config_map and "def main" not in config_map
    assert "def main" in files["files/preflight.py"]


def test_one_range_over_the_nics_instead_of_an_object_per_nic(files):
    assert "range $i := until (int $facts.rdmaNics)" in files["templates/network-network-rdma.yaml"]
    assert not any(path.startswith("templates/network-network-rdma-") for path in files)
