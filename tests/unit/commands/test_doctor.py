"""commands/doctor.py: the verb hands the same request to scripts/doctor.sh in the scripts' flags."""

from __future__ import annotations

from pathlib import Path

import pytest

from verl_grpo.cli import build_parser, main
from verl_grpo.commands import doctor


def test_the_script_is_the_clone_s() -> None:
    assert doctor.SCRIPT == Path(__file__).resolve().parents[3] / "scripts" / "doctor.sh"
    assert doctor.SCRIPT.is_file()


def test_values_sets_profile_and_namespace_become_the_scripts_flags() -> None:
    flags = ["-f", "my.yaml", "--set", "a=1", "--set-string", "b=2", "--profile", "h200-standard", "-n", "ml"]
    assert doctor.script_args(build_parser().parse_args(["doctor", *flags])) == flags
    assert doctor.script_args(build_parser().parse_args(["doctor"])) == []  # the scripts' defaults


def test_without_the_clone_it_says_so_in_one_line(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(doctor, "SCRIPT", tmp_path / "scripts" / "doctor.sh")
    assert main(["doctor"]) == 2
    (line,) = capsys.readouterr().err.splitlines()
    assert "not found: run it from the kit's clone" in line
