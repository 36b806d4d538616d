"""rules/reference.py: the rules reference of the chart README, from the rule table."""

from __future__ import annotations

from verl_grpo.chart.files import readme
from verl_grpo.rules.cross_rules import RULES
from verl_grpo.rules.reference import VALIDATED_BY, rule_rows


def test_one_row_per_rule_id_in_the_table_s_order() -> None:
    assert [row[0] for row in rule_rows()] == list(dict.fromkeys(r.id for r in RULES))


def test_each_validate_entry_names_a_rule_that_exists() -> None:
    """A rule renamed or dropped leaves no stale line behind."""
    assert set(VALIDATED_BY) <= {r.id for r in RULES}


def test_deploy_only_rules_say_which_verbs_skip_them() -> None:
    rows = {row[0]: row for row in rule_rows()}
    for rule in RULES:
        cli = rows[rule.id][2]
        assert ("not `check`, `plan`" in cli) == rule.deploy_only, rule.id


def test_every_key_of_a_rule_is_in_its_row() -> None:
    rows = {row[0]: row for row in rule_rows()}
    for rule in RULES:
        assert rule.key in rows[rule.id][1], rule.id


def test_the_chart_readme_carries_the_table() -> None:
    text = readme()
    for rule_id, *_ in rule_rows():
        assert f"| `{rule_id}` | " in text, rule_id
