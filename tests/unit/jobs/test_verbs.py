"""jobs/verbs.py: the job verbs' flags and their defaults, parsed by a parser of their own."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from verl_grpo.jobs.verbs import JOB_VERBS, add_job_verbs


def parser() -> argparse.ArgumentParser:
    def values_flags(p: argparse.ArgumentParser) -> None:
        p.add_argument("-n", "--namespace", default="default")

    p = argparse.ArgumentParser(prog="verl-grpo")
    add_job_verbs(p.add_subparsers(dest="verb", required=True), values_flags, run=lambda args: 7)
    return p


def test_every_job_verb_is_added_and_dispatches_to_the_one_runner() -> None:
    """submit, status, logs, stop and metrics all exist and all run the runner given."""
    args = {
        "submit": [],
        "status": ["j"],
        "logs": ["j"],
        "stop": ["j"],
        "metrics": ["j"],
    }
    assert set(args) == set(JOB_VERBS)
    for verb in JOB_VERBS:
        parsed = parser().parse_args([verb, *args[verb]])
        assert parsed.verb == verb and parsed.run(parsed) == 7


def test_the_defaults_say_what_a_bare_verb_does() -> None:
    """Defaults: the profile the values describe (commands/jobs.py submit_spec), a 60 s stop
    timeout, --key repeatable."""
    submit = parser().parse_args(["submit"])
    assert submit.profile is None and submit.submission_id is None
    assert (submit.follow, submit.compose_only, submit.address, submit.token_file) == (
        False,
        False,
        None,
        None,
    )
    stop = parser().parse_args(["stop", "j"])
    assert stop.timeout == 60.0 and stop.namespace == "default" and stop.cluster is None
    metrics = parser().parse_args(["metrics", "-", "--key", "a", "--key", "b", "--csv", "o.csv"])
    assert metrics.key == ["a", "b"] and metrics.csv == Path("o.csv") and metrics.png is None


def test_every_verb_takes_the_cluster_and_where_its_token_is_never_the_token_itself() -> None:
    """--cluster, --token-secret and --token-file on every verb; no flag takes the token itself."""
    for verb, rest in (
        ("submit", []),
        ("status", ["j"]),
        ("logs", ["j"]),
        ("stop", ["j"]),
        ("metrics", ["j"]),
    ):
        parsed = parser().parse_args(
            [verb, *rest, "--cluster", "c", "--token-secret", "s", "--token-file", "f"]
        )
        assert (parsed.cluster, parsed.token_secret, parsed.token_file) == ("c", "s", Path("f"))
        assert not hasattr(parsed, "token")


@pytest.mark.parametrize(
    "argv",
    [
        ["status"],
        ["status", "j", "-o", "yaml"],
        ["stop", "j", "--timeout", "soon"],
        ["logs", "j", "--total-steps", "x"],
    ],
)
def test_bad_arguments_are_usage_errors(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    """A missing job id, an unknown output or a non-number: exit 2 naming the verb."""
    with pytest.raises(SystemExit) as e:
        parser().parse_args(argv)
    assert e.value.code == 2 and capsys.readouterr().err.splitlines()[-1].startswith(
        f"verl-grpo {argv[0]}: error:"
    )
