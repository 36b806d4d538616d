"""submit / status / logs / stop / metrics against a real Ray cluster started here (tests/local_ray.py)."""

from __future__ import annotations

import csv
import io
import json
import shlex
import subprocess
import time
from pathlib import Path

import pytest
import yaml

from ..conftest import REPO
from ..local_ray import (
    PROFILE,
    VERL_VENV,
    LocalRay,
    config_maps,
)
from ..plots import assert_real_plot
from ..ray_probe.verl_grpo_probe.env_report import MARK
from ..ray_probe.verl_grpo_probe.step_lines import expected_metrics
from ..scripts_harness import FAKES, calls

pytestmark = pytest.mark.slow

RAYCLUSTER_PROFILES = [
    f"{gpu}-{mode}-raycluster" for gpu in ("b200", "h200") for mode in ("standard", "autopilot")
]


def rendered(local: LocalRay, *args: str) -> dict[str, str]:
    """The `<release>-submit` ConfigMap of the same values: what ray job submit users copy."""
    done = local.cli("synth", "--profile", PROFILE, "-f", str(local.values), *args, "-o", "-")
    assert done.returncode == 0, done.stderr
    (cm,) = [d for d in yaml.safe_load_all(done.stdout) if d["metadata"]["name"] == "verl-submit"]
    return cm["data"]


def probe_report(logs: str) -> dict:
    (line,) = [line for line in logs.splitlines() if line.startswith(MARK)]
    return json.loads(line.removeprefix(MARK))


def test_probe_sees_the_generated_environment(local_ray: LocalRay) -> None:
    done = local_ray.submit("--follow")
    assert done.returncode == 0, done.stdout + done.stderr
    job_id = done.stdout.splitlines()[0]
    assert "preflight: model, data, checkpoints and GPUs are ready" in done.stdout
    report = probe_report(done.stdout)
    submit = rendered(local_ray)
    expected_env = yaml.safe_load(submit["runtime-env.yaml"])["env_vars"]
    # The run's own settings; gIB's NCCL ones come from the node's set_nccl_env.sh (runtime_env.py).
    assert {"PYTHONPATH", "HF_HUB_OFFLINE", "NCCL_TUNER_CONFIG_PATH", "NCCL_DEBUG"} <= set(expected_env)
    assert {k: report["env"].get(k) for k in expected_env} == expected_env
    # argv: every override of the ConfigMap's entrypoint, in order, after `python3 -m <module>`.
    words = shlex.split(submit["entrypoint.sh"].replace("\\\n", " "))
    module_at = words.index("-m") + 1
    assert words[module_at] == "verl_grpo_probe.env_report"
    assert report["argv"] == words[module_at + 1 :]
    assert report["cwd_writable"]
    bucket_verl = str(local_ray.root / "bucket" / "verl")
    assert expected_env["PYTHONPATH"] == bucket_verl and bucket_verl in report["sys_path"]
    assert report["verl"] == f"{bucket_verl}/verl/__init__.py"  # verl imported from the bucket's copy
    status = local_ray.cli("status", job_id, "--address", local_ray.url, "-o", "json")
    assert json.loads(status.stdout)["status"] == "SUCCEEDED"
    assert json.loads(status.stdout)["metadata"]["cluster"] == "verl-b200"


@pytest.mark.parametrize("profile", RAYCLUSTER_PROFILES)
def test_verl_composes_the_generated_overrides(local_ray: LocalRay, profile: str) -> None:
    done = local_ray.cli(
        "submit",
        "--profile",
        profile,
        "-f",
        str(local_ray.values),
        "--set",
        "training.module=verl.trainer.main_ppo",
        "--address",
        local_ray.url,
        "--compose-only",
        "--follow",
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr
    composed = yaml.safe_load(done.stdout[done.stdout.index("\nactor_rollout_ref:") :])
    assert composed["algorithm"]["adv_estimator"] == "grpo"
    assert composed["data"]["train_batch_size"] == 256
    assert composed["trainer"]["default_local_dir"].startswith(str(local_ray.root / "checkpoints"))


def test_verl_refuses_a_wrong_key_and_says_so(local_ray: LocalRay, tmp_path: Path) -> None:
    extra = tmp_path / "wrong.yaml"
    extra.write_text(
        "training:\n  module: verl.trainer.main_ppo\n  extraArgs: ['actor_rollout_ref.actor.ppo_epoch=2']\n"
    )
    done = local_ray.submit("-f", str(extra), "--follow")
    assert done.returncode == 1 and done.stdout == ""  # the kit's own verl rules refuse it before Ray
    assert "actor_rollout_ref.actor.ppo_epoch: unknown key for verl 0.6.1" in done.stderr
    done = local_ray.submit("-f", str(extra), "--compose-only", "--follow")  # verl judges by itself
    assert done.returncode == 1, done.stdout[-3000:]
    assert "FAILED" in done.stderr
    # Hydra's own words, in the streamed log and again in the failure summary on stderr.
    assert "Key 'ppo_epoch' is not in struct" in done.stdout
    assert "ppo_epoch" in done.stderr


def test_follow_shows_progress_and_summary_then_metrics(local_ray: LocalRay, tmp_path: Path) -> None:
    steps = 12
    done = local_ray.submit_step_probe(f"+probe.steps={steps}")
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr
    job_id = done.stdout.splitlines()[0]
    # GSM8K's 7473 train rows in batches of 256, last partial batch dropped, 2 epochs: 29 x 2 steps.
    total = 7473 // 256 * 2
    progress = [line for line in done.stderr.splitlines() if line.startswith("progress: ")]
    assert len(progress) == steps
    assert progress[-1].startswith(f"progress: step {steps}/{total} · elapsed ")
    assert f"critic/score/mean {expected_metrics(steps)['critic/score/mean']:.4g}" in progress[-1]
    # 46 steps left at verl's own timing_s/step of 0.25 s: 11.5 s, shown rounded.
    assert "ETA 0:00:12" in progress[-1]
    assert "(TaskRunner pid=" in done.stdout  # the lines came through a Ray actor, as verl's do
    summary = done.stdout[done.stdout.index(f"{job_id}: SUCCEEDED") :]
    score_row = next(line for line in summary.splitlines() if "critic/score/mean" in line)
    first, last = (f"{expected_metrics(s)['critic/score/mean']:.4g}" for s in (1, steps))
    assert [c.strip() for c in score_row.split("│")][2:6] == [first, last, first, last]  # first last min max
    assert f"{steps} of {total}" in summary

    png, table = tmp_path / "score.png", tmp_path / "series.csv"
    metrics = local_ray.cli(
        "metrics",
        job_id,
        "--address",
        local_ray.url,
        "--key",
        "critic/score/mean",
        "--key",
        "response_length/mean",
        "--png",
        str(png),
        "--csv",
        str(table),
    )
    assert metrics.returncode == 0, metrics.stderr
    rows = list(csv.DictReader(io.StringIO(table.read_text())))
    assert [int(r["step"]) for r in rows] == list(range(1, steps + 1))
    for r in rows:
        want = expected_metrics(int(r["step"]))
        assert float(r["critic/score/mean"]) == want["critic/score/mean"]
        assert float(r["response_length/mean"]) == want["response_length/mean"]
    assert_real_plot(png, panels=2)


def test_follow_exits_non_zero_for_a_failing_job(local_ray: LocalRay) -> None:
    done = local_ray.submit_step_probe("+probe.steps=6", "+probe.fail_at=3")
    assert done.returncode == 1, done.stderr
    assert "FAILED" in done.stderr and "failing on purpose at step 3" in done.stderr, done.stderr
    assert "progress: step 3/58" in done.stderr, done.stderr


def test_a_stream_that_breaks_as_the_job_ends_still_reports_it(
    local_ray: LocalRay, monkeypatch, capsys
) -> None:
    """A CI run once saw the log socket close under --follow as the job failed: the verb then said the
    stream broke instead of FAILED and why. The stream here breaks after its first chunk."""
    import aiohttp
    from ray.job_submission import JobSubmissionClient

    from verl_grpo.cli import main

    real_tail = JobSubmissionClient.tail_job_logs

    async def breaking_tail(self, job_id):  # noqa: ANN001, ANN202
        async for chunk in real_tail(self, job_id):
            yield chunk
            while self.get_job_status(job_id).value not in ("SUCCEEDED", "FAILED", "STOPPED"):
                time.sleep(0.5)
            raise aiohttp.ServerDisconnectedError()

    monkeypatch.setattr(JobSubmissionClient, "tail_job_logs", breaking_tail)
    sets = ["--set", "training.module=verl_grpo_probe.step_lines"]
    sets += ["--set", "training.extraArgs={+probe.steps=6,+probe.fail_at=3}"]
    argv = ["submit", "--profile", PROFILE, "-f", str(local_ray.values), "--address", local_ray.url]
    assert main([*argv, *sets, "--follow"]) == 1
    err = capsys.readouterr().err
    assert "broke" not in err and "FAILED" in err and "failing on purpose at step 3" in err, err
    assert "progress: step 3/58" in err, err


def test_stop_stops_a_running_job(local_ray: LocalRay) -> None:
    done = local_ray.submit_step_probe("+probe.steps=600", "+probe.step_seconds=1", follow=False)
    assert done.returncode == 0, done.stderr
    job_id = done.stdout.strip()
    deadline = time.monotonic() + 120
    while "step:1 " not in local_ray.cli("logs", job_id, "--address", local_ray.url).stdout:
        assert time.monotonic() < deadline, "the probe never started"
        time.sleep(1)
    stopped = local_ray.cli("stop", job_id, "--address", local_ray.url)
    assert stopped.returncode == 0, stopped.stderr
    assert stopped.stdout.strip() == f"{job_id} STOPPED"
    status = local_ray.cli("status", job_id, "--address", local_ray.url)
    assert "STOPPED" in status.stdout


def test_unknown_job_and_ray_version_mismatch_are_refused(local_ray: LocalRay) -> None:
    done = local_ray.cli("status", "no-such-job", "--address", local_ray.url)
    assert done.returncode == 1
    assert f"no job 'no-such-job' at {local_ray.url}" in done.stderr
    # a Ray other than verl's image's: the user's own build (rule verl-image-for-version otherwise)
    done = local_ray.submit("--set", "ray.version=2.46.0", "--set", "image.repository=example.com/my/verl")
    assert done.returncode == 1
    import ray

    assert "ray.version: '2.46.0', but the cluster at" in done.stderr
    assert f"runs Ray {ray.__version__}" in done.stderr  # the local cluster's, the image's in a pod


def fake_kubectl_env(local: LocalRay, state: Path, services: list[dict]) -> dict[str, str]:
    state.mkdir()
    (state / "state.json").write_text(
        json.dumps({"resources": [], "iam": [], "objects": [], "mutations": 0, "services": services})
    )
    port = local.url.rsplit(":", 1)[1]
    return {
        "PATH": f"{FAKES}:/usr/bin:/bin",
        "FAKE_STATE": str(state),
        "FAKE_FORWARD_TO": f"127.0.0.1:{port}",
    }


def head_service(name: str, cluster: str, namespace: str = "team-a") -> dict:
    labels = {"ray.io/node-type": "head", "ray.io/cluster": cluster}
    return {"namespace": namespace, "name": name, "labels": labels}


def test_default_address_is_a_port_forward_to_the_head_found_by_label(
    local_ray: LocalRay, tmp_path: Path
) -> None:
    job_id = local_ray.submit().stdout.strip()
    services = [
        head_service("verl-b200-head-svc", "verl-b200"),
        head_service("other-head-svc", "other", "team-b"),
    ]
    env = fake_kubectl_env(local_ray, tmp_path / "cloud", services)
    done = local_ray.cli("status", job_id, "-n", "team-a", env=env)
    assert done.returncode == 0, done.stderr
    assert job_id in done.stdout
    recorded = [c["args"] for c in calls(tmp_path / "cloud")]
    assert recorded == [
        ["get", "services", "-n", "team-a", "-l", "ray.io/node-type=head", "-o", "json"],
        ["port-forward", "-n", "team-a", "svc/verl-b200-head-svc", ":8265"],
    ]


def test_port_forward_problems_are_clear(local_ray: LocalRay, tmp_path: Path) -> None:
    none = fake_kubectl_env(local_ray, tmp_path / "none", [])
    done = local_ray.cli("status", "x", "-n", "team-a", env=none)
    assert done.returncode == 1
    assert "no Ray head Service in namespace 'team-a' with labels ray.io/node-type=head" in done.stderr
    two = fake_kubectl_env(
        local_ray, tmp_path / "two", [head_service("a-head-svc", "a"), head_service("b-head-svc", "b")]
    )
    done = local_ray.cli("status", "x", "-n", "team-a", env=two)
    assert done.returncode == 1
    assert (
        "2 Ray head Services in namespace 'team-a' (a-head-svc, b-head-svc); pick one with --cluster"
        in done.stderr
    )
    done = local_ray.cli("status", "x", "-n", "team-a", "--cluster", "b", env=two)
    assert "no job 'x'" in done.stderr  # found b's head, forwarded, asked Ray
    selector = "ray.io/node-type=head,ray.io/cluster=b"
    assert ["get", "services", "-n", "team-a", "-l", selector, "-o", "json"] in [
        c["args"] for c in calls(tmp_path / "two")
    ]


def notes(local: LocalRay) -> str:
    """NOTES.txt as `helm install` prints it for the RayCluster overlay and these values."""
    from ..helm_tools import CHART, tool

    overlay = REPO / "overlays" / "b200-standard-raycluster" / "values.yaml"
    done = subprocess.run(
        [
            tool("helm"),
            "install",
            "verl",
            str(CHART),
            "-f",
            str(overlay),
            "-f",
            str(local.values),
            "--dry-run=client",
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout[done.stdout.index("NOTES:") :]


def run_manual_submit(local: LocalRay, tmp_path: Path, lines: list[str]) -> subprocess.CompletedProcess:
    """The port-forward, the ConfigMap fetch and `ray job submit`, each run as written, in bash:
    kubectl is the recording fake (its port-forward reaches the real dashboard), ray is Ray's CLI."""
    forward, fetch, submit = lines
    cluster = tmp_path / "cloud"
    env = fake_kubectl_env(local, cluster, [head_service("verl-b200-head-svc", "verl-b200", "default")])
    state = json.loads((cluster / "state.json").read_text())
    state["configmaps"] = {f"default/{name}": data for name, data in config_maps(local).items()}
    (cluster / "state.json").write_text(json.dumps(state))
    env["PATH"] = f"{FAKES}:{VERL_VENV / 'bin'}:/usr/bin:/bin"
    work = tmp_path / "laptop"
    work.mkdir()
    proxy = subprocess.Popen(["bash", "-c", forward], env=env, stdout=subprocess.PIPE, text=True, cwd=work)
    try:
        port = proxy.stdout.readline().split("127.0.0.1:")[1].split(" ")[0]
        assert subprocess.run(["bash", "-ce", fetch], env=env, cwd=work, check=False).returncode == 0
        submit = submit.replace("localhost:8265", f"127.0.0.1:{port}")
        return subprocess.run(
            ["bash", "-ce", submit],
            env=env,
            cwd=work,
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
        )
    finally:
        proxy.kill()
        proxy.wait()


def test_the_manual_submit_of_notes_runs_the_training_on_ray(local_ray: LocalRay, tmp_path: Path) -> None:
    text = notes(local_ray)
    block = text[text.index("Ray dashboard and job submission") :].splitlines()[1:4]
    lines = [line.strip() for line in block]
    assert lines[0].startswith("kubectl port-forward") and lines[2].startswith("ray job submit")
    assert f"bash {local_ray.root / 'preflight'}/entrypoint.sh" in lines[2]  # on the head, not the laptop
    done = run_manual_submit(local_ray, tmp_path, lines)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr
    assert "preflight: model, data, checkpoints and GPUs are ready" in done.stdout
    report = probe_report(done.stdout)
    assert report["argv"][-1] == "trainer.resume_mode=auto"  # the whole run reached the probe


def test_the_manual_submit_of_the_readme_runs(local_ray: LocalRay, tmp_path: Path) -> None:
    readme = (REPO / "README.md").read_text()
    start = readme.index("kubectl port-forward -n default svc/verl-b200-head-svc 8265:8265")
    lines = [line.split("#")[0].strip() for line in readme[start:].splitlines()[:3]]
    assert lines[2].startswith("ray job submit") and "/opt/verl-grpo/entrypoint.sh" in lines[2]
    # The README shows the default preflight.mountPath; here the head's files sit in a folder.
    lines[2] = lines[2].replace("/opt/verl-grpo", str(local_ray.root / "preflight"))
    done = run_manual_submit(local_ray, tmp_path, lines)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr
    assert probe_report(done.stdout)["argv"][-1] == "trainer.resume_mode=auto"
