"""validate/shell_command.py: whether a RayJob's entrypoint stays one command once KubeRay's
submitter pastes it unquoted after `ray job submit ... --` in `bash -ce` (ray-operator common/job.go)."""

from __future__ import annotations

import pytest

from verl_grpo.validate.shell_command import one_command_problems, parse

from ...conftest import objects_of_kind, render_one


def test_the_rendered_entrypoint_is_one_command_across_its_continued_lines() -> None:
    """The kit's entrypoint: the pre-flight, `--`, then verl's overrides, one per `\\`-continued line."""
    (job,) = objects_of_kind(render_one(), "RayJob")
    entrypoint = job["spec"]["entrypoint"]
    assert "\\\n" in entrypoint and one_command_problems(entrypoint) == ()
    (words,) = parse(entrypoint).commands
    assert words[:2] == ["python3", "/opt/verl-grpo/preflight.py"]
    assert "trainer.resume_mode=auto" in words  # the quotes are the shell's, not the word's


@pytest.mark.parametrize(
    ("text", "named"),
    [
        ("python3 prep.py && python3 train.py", "a shell operator (&&)"),
        ("python3 prep.py; python3 train.py", "a shell operator (;)"),
        ("python3 train.py | tee log", "a pipe"),
        ("python3 train.py --name $(hostname)", "a command substitution"),
        ("python3 train.py > /tmp/log", "a redirection"),
        ("python3 prep.py\npython3 train.py", "2 lines"),
        ("if true; then python3 train.py; fi", "an if"),
        ("for i in 1 2; do python3 train.py; done", "a for loop"),
    ],
)
def test_what_would_split_the_submit_is_named(text: str, named: str) -> None:
    """Each construct that makes bash run more than one command is named in the message."""
    (problem,) = one_command_problems(text)
    assert problem.startswith("is not one command (") and named in problem
    assert "runs in the submitter pod" in problem


def test_quoting_keeps_operators_inside_one_word() -> None:
    """Inside quotes `&&`, `;` and `$(...)` are text handed to the program, not to bash."""
    text = "python3 train.py 'a=x && y' \"b=1;2\" 'c=$(no)'"
    assert one_command_problems(text) == ()
    assert parse(text).commands == [["python3", "train.py", "a=x && y", "b=1;2", "c=$(no)"]]


def test_text_bash_cannot_parse_is_refused_with_the_parsers_reason() -> None:
    """Text bash cannot parse is refused, not passed as one command."""
    (problem,) = one_command_problems("python3 train.py 'unclosed")
    assert problem.startswith("is not valid shell (") and parse("python3 train.py 'unclosed").commands == []
