"""jobs/metrics_output.py: `metrics` from a saved log: table, CSV, a real plot, refusals.
The verbs against a real Ray cluster: test_commands.py."""

from __future__ import annotations

import csv
import io
import re
import subprocess
from pathlib import Path

import pytest

from ...conftest import REPO
from ...helpers.verl_log import LOG
from ...plots import assert_real_plot

CLI = str(REPO / ".venv" / "bin" / "verl-grpo")


def write_log(tmp_path: Path) -> Path:
    log = tmp_path / "job.log"
    log.write_text(LOG)
    return log


def cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([CLI, *args], capture_output=True, text=True, check=False, timeout=120)


def test_metrics_from_a_log_file_writes_csv_and_a_real_plot(tmp_path: Path) -> None:
    log, png, table = write_log(tmp_path), tmp_path / "out.png", tmp_path / "out.csv"
    done = cli("metrics", str(log), "--png", str(png), "--csv", str(table))
    assert done.returncode == 0, done.stderr
    rows = list(csv.DictReader(io.StringIO(table.read_text())))
    assert [(r["step"], r["critic/score/mean"]) for r in rows] == [
        ("1", "0.05"),
        ("2", "0.1"),
        ("3", "0.125"),
    ]
    assert_real_plot(png, panels=1)
    done = cli("metrics", str(log), "--key", "response_length/mean", "--key", "timing_s/step")
    assert done.returncode == 0, done.stderr
    assert re.search(r"3\s+│\s+211\.5\s+│\s+│", done.stdout)  # step 3 has no timing_s/step: an empty cell


@pytest.mark.parametrize(
    "args, message",
    [
        (
            ["--key", "critic/score/men"],
            "--key: 'critic/score/men' is not in the log; did you mean critic/score/mean",
        ),
        (["--key", "zzz"], "--key: 'zzz' is not in the log; logged: actor/entropy, critic/score/mean"),
        (["--csv", "{tmp}/missing/out.csv"], "folder {tmp}/missing does not exist"),
    ],
)
def test_metrics_refusals_write_nothing(tmp_path: Path, args: list[str], message: str) -> None:
    log = write_log(tmp_path)
    args = [a.format(tmp=tmp_path) for a in args]
    done = cli("metrics", str(log), *args, "--png", str(tmp_path / "out.png"))
    assert done.returncode == 1
    assert message.format(tmp=tmp_path) in done.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["job.log"]


def test_metrics_of_a_log_without_step_lines_says_why(tmp_path: Path) -> None:
    log = tmp_path / "empty.log"
    log.write_text("nothing here\n")
    done = cli("metrics", str(log))
    assert (
        done.returncode == 1
        and "no verl step lines" in done.stderr
        and "trainer.logger console" in done.stderr
    )
