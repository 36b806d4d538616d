"""The job verbs without a Ray cluster: step lines, progress, metrics files, addresses, versions, refusals.
The same verbs against a real Ray cluster: test_jobs_ray.py."""

from __future__ import annotations

import csv
import io
import math
import re
import socket
import subprocess
import time
import tomllib
from pathlib import Path

import pytest

from verl_grpo.jobs.address import normalize
from verl_grpo.jobs.client import Connection, version_problems
from verl_grpo.jobs.errors import JobsError
from verl_grpo.jobs.progress import RunProgress
from verl_grpo.jobs.step_lines import StepRecord, parse_step_line, step_records
from verl_grpo.jobs.submission import validated_runtime_env

from .conftest import REPO
from .plots import assert_real_plot

CLI = str(REPO / ".venv" / "bin" / "verl-grpo")

# As verl's console logger prints them inside the TaskRunner actor, Ray's prefix and colours included;
# step 2 arrives twice (Ray can forward a line more than once), step 3 comes from numpy 2.
ACTOR = "\x1b[36m(TaskRunner pid=71)\x1b[0m "  # Ray colours the prefix
LOG = f"""\
2026-12-02 19:07:32,459\tINFO job_manager.py:531 -- Runtime env is setting up.
preflight: model, data, checkpoints and GPUs are ready
{ACTOR}step:1 - critic/score/mean:0.05 - response_length/mean:203.0 - timing_s/step:10.5
{ACTOR}step:2 - critic/score/mean:0.1 - response_length/mean:206.0 - timing_s/step:9.5
{ACTOR}step:2 - critic/score/mean:0.1 - response_length/mean:206.0 - timing_s/step:9.5
(TaskRunner pid=71) Training Progress:   5%|▌         | 3/58 [00:31<09:37, 10.5s/it]
(TaskRunner pid=71) step:3 - critic/score/mean:np.float64(0.125) - response_length/mean:np.float64(211.5) - \
training/epoch:np.int64(0) - actor/entropy:nan - val/done:True
a line that mentions step:4 - x:1 in passing
"""


def write_log(tmp_path: Path) -> Path:
    log = tmp_path / "job.log"
    log.write_text(LOG)
    return log


def cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([CLI, *args], capture_output=True, text=True, check=False, timeout=120)


def test_step_lines_read_as_verl_prints_them() -> None:
    records = step_records(LOG.splitlines())
    assert [r.step for r in records] == [1, 2, 3]
    assert records[0].metrics == {
        "critic/score/mean": 0.05,
        "response_length/mean": 203.0,
        "timing_s/step": 10.5,
    }
    third = records[2].metrics
    assert third["critic/score/mean"] == 0.125 and third["response_length/mean"] == 211.5
    assert third["training/epoch"] == 0 and third["val/done"] == 1.0 and math.isnan(third["actor/entropy"])
    assert parse_step_line("Training Progress:   5%| 3/58") is None
    assert parse_step_line("global step:3 - x:1") is None
    assert parse_step_line("step:7") == StepRecord(7, {})
    assert parse_step_line("step:8 - key:not-a-number - other:2") == StepRecord(8, {"other": 2.0})


def test_eta_uses_verls_step_time_else_the_clock() -> None:
    run = RunProgress(total_steps=58, started=time.time() - 100)
    for r in step_records(LOG.splitlines()):
        run.add(r)
    # 55 steps left at the mean timing_s/step of the two steps that report it (10.5, 9.5).
    assert run.eta() == pytest.approx(55 * 10.0)
    bare = RunProgress(total_steps=10, started=1000.0)
    bare.add(StepRecord(2, {}))
    assert bare.eta(now=1100.0) == pytest.approx(8 * 50.0)
    assert RunProgress(total_steps=None).eta() is None


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


@pytest.mark.parametrize(
    "address, url",
    [
        ("127.0.0.1:8265", "http://127.0.0.1:8265"),
        ("https://ray.example.com:443/", "https://ray.example.com:443"),
    ],
)
def test_addresses_take_host_and_port(address: str, url: str) -> None:
    assert normalize(address) == url


@pytest.mark.parametrize("address", ["ray://10.0.0.1:10001", "http://head", "localhost", "http://h:port"])
def test_addresses_without_a_dashboard_port_are_refused(address: str) -> None:
    with pytest.raises(JobsError, match="is not a dashboard address; allowed: http://HOST:PORT"):
        normalize(address)


def test_a_wrong_address_fails_fast_and_clearly() -> None:
    with socket.socket() as s:  # a port nothing listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    started = time.monotonic()
    done = cli("status", "some-job", "--address", f"127.0.0.1:{port}")
    assert done.returncode == 1
    assert f"verl-grpo status: cannot reach the Ray dashboard at http://127.0.0.1:{port}" in done.stderr
    assert "Traceback" not in done.stderr and time.monotonic() - started < 15
    done = cli("submit", "--address", "ray://head:10001")
    assert done.returncode == 1 and "--address: 'ray://head:10001' is not a dashboard address" in done.stderr


def test_submit_refuses_a_rayjob_profile_before_connecting() -> None:
    done = cli("submit", "--profile", "b200-standard", "--address", "127.0.0.1:9")
    assert done.returncode == 1
    assert "run.kind: 'RayJob'; submit needs 'RayCluster' (a RayJob submits itself)" in done.stderr


def test_submit_refuses_bad_values_like_synth() -> None:
    done = cli("submit", "--set", "worker.replicas=0", "--address", "127.0.0.1:9")
    assert done.returncode == 1 and "worker.replicas" in done.stderr and "cannot reach" not in done.stderr


def test_runtime_env_goes_through_rays_own_checks() -> None:
    assert validated_runtime_env('env_vars:\n  A: "1"\n') == {"env_vars": {"A": "1"}}
    with pytest.raises(
        JobsError, match=r"runtime env refused by Ray: runtime_env\['env_vars'\] must be of type"
    ):
        validated_runtime_env("env_vars:\n  A: 1\n")
    with pytest.raises(JobsError, match="runtime env: not a mapping"):
        validated_runtime_env("- a\n")


def test_the_ray_client_is_pinned_to_the_clusters_ray() -> None:
    import ray

    from verl_grpo.values.model import Values

    pins = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["dependencies"]
    (pin,) = [p for p in pins if p.startswith("ray[default]==")]
    assert pin.split("==")[1] == Values().ray.version == ray.__version__


def test_version_mismatches_are_named() -> None:
    conn = Connection(client=None, url="http://h:8265", server_version="2.48.0")  # type: ignore[arg-type]
    (values_problem, client_problem) = version_problems(conn, "2.47.0", "2.47.0", allow_mismatch=False)
    assert values_problem.startswith(
        "ray.version: '2.47.0', but the cluster at http://h:8265 runs Ray 2.48.0"
    )
    assert "Ray client 2.47.0 (verl-grpo's pin)" in client_problem
    assert "pip install 'ray[default]==2.48.0' or pass --allow-version-mismatch" in client_problem
    assert version_problems(conn, "2.47.0", None, allow_mismatch=True) == []
    assert version_problems(conn, "2.48.0", "2.48.0", allow_mismatch=False) == []


def test_rayjob_and_submit_path_run_the_same_entrypoint(shipped) -> None:
    """The RayJob embeds exactly what `submit` sends for the RayCluster kind (one code path)."""
    from .conftest import objects_of_kind

    for gpu in ("b200", "h200"):
        for mode in ("standard", "autopilot"):
            (job,) = objects_of_kind(shipped[f"{gpu}-{mode}"], "RayJob")
            (cm,) = [
                o
                for o in objects_of_kind(shipped[f"{gpu}-{mode}-raycluster"], "ConfigMap")
                if o["metadata"]["name"] == "verl-submit"
            ]
            assert job["spec"]["entrypoint"] == cm["data"]["entrypoint.sh"]
            assert job["spec"]["runtimeEnvYAML"] == cm["data"]["runtime-env.yaml"]


def test_on_a_terminal_progress_is_a_live_bar() -> None:
    from rich.console import Console

    from verl_grpo.jobs.progress import ProgressDisplay

    out = io.StringIO()
    terminal = Console(file=out, force_terminal=True, width=160, color_system=None)
    run = RunProgress(total_steps=58, started=time.time())
    with ProgressDisplay(run, terminal) as display:
        for record in step_records(LOG.splitlines()):
            display.update(record)
    screen = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", out.getvalue()).replace("\r", "\n")
    final = [line for line in screen.splitlines() if line.strip()][-1]
    assert re.search(r"GRPO .* 3/58 elapsed 0:00:0\d · ETA 0:09:10 · critic/score/mean 0.125", final), final
    assert "progress:" not in out.getvalue()  # the plain per-step lines are for logs and CI
