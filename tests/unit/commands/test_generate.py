"""commands/generate.py: `verl-grpo generate`, dist/, the chart and overlays/ from one process.
It writes into the current folder only when that is a verl-grpo checkout; every run here is
pointed at tmp_path (--root) or refused, never at the repository."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from verl_grpo.cli import main
from verl_grpo.profiles import shipped_profiles

from ...conftest import REPO


@pytest.mark.parametrize(
    "present", [[], ["cdk8s.yaml"], ["charts/"]], ids=["empty", "no-charts", "no-cdk8s-yaml"]
)
def test_outside_a_checkout_without_root_it_refuses_and_writes_nothing(
    present: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """No --root and no cdk8s.yaml plus charts/ here: exit 2 with one line, nothing written."""
    for name in present:
        (tmp_path / name).mkdir() if name.endswith("/") else (tmp_path / name).write_text("")
    before = sorted(p.name for p in tmp_path.iterdir())
    monkeypatch.chdir(tmp_path)
    assert main(["generate"]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1
    assert err.startswith(f"verl-grpo generate: {tmp_path} is not a verl-grpo checkout")
    assert "pass --root DIR to write elsewhere" in err
    assert sorted(p.name for p in tmp_path.iterdir()) == before


def test_root_gets_all_three_trees_and_a_second_run_leaves_them_be(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """--root: dist/ (every profile, the chart archive), the chart, overlays/; run again, nothing touched."""
    version = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["version"]
    assert main(["generate", "--root", str(tmp_path)]) == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == ["charts", "dist", "overlays"]
    profiles = sorted(p.name for p in shipped_profiles())
    assert sorted(p.name for p in (tmp_path / "dist").iterdir() if p.is_dir()) == profiles
    assert (tmp_path / "dist" / f"verl-grpo-{version}.tgz").is_file()
    assert (tmp_path / "charts" / "verl-grpo" / "Chart.yaml").is_file()
    assert sorted(p.name for p in (tmp_path / "overlays").iterdir()) == profiles
    assert capsys.readouterr().err.startswith(
        f"wrote dist/ ({len(profiles)} profiles, verl-grpo-{version}.tgz)"
    )
    stamps = {p: p.stat().st_mtime_ns for p in tmp_path.rglob("*")}
    assert main(["generate", "--root", str(tmp_path)]) == 0
    assert capsys.readouterr().err.endswith("overlays/ already current: left as they were\n")
    assert {p: p.stat().st_mtime_ns for p in tmp_path.rglob("*")} == stamps
