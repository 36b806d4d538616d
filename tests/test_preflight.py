"""The pre-flight module, on real parquet files, as the job's Python would run it."""

from __future__ import annotations

import re
import threading
import time
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from verl_grpo.pod import preflight

GOOD_ROWS = {
    "data_source": ["openai/gsm8k"] * 3,
    "prompt": [[{"role": "user", "content": "1+1?"}]] * 3,
    "ability": ["math"] * 3,
    "reward_model": [{"style": "rule", "ground_truth": "2"}] * 3,
    "extra_info": [{"split": "train", "index": i} for i in range(3)],
}


@pytest.fixture
def layout(tmp_path):
    model, data, ckpt = tmp_path / "model", tmp_path / "data", tmp_path / "ckpt"
    model.mkdir()
    (model / "config.json").write_text("{}")
    (model / "model-00001-of-00002.safetensors").write_bytes(b"\0" * 16)
    data.mkdir()
    for split in ("train", "test"):
        pq.write_table(pa.table(GOOD_ROWS), data / f"{split}.parquet")
    for folder in (model, data):  # what the data-prep Job writes last
        (folder / preflight.MARKER).write_text("2026-12-03T00:00:00Z")
    return {"model": model, "data": data, "ckpt": ckpt}


def args(layout, *extra: str) -> list[str]:
    return [
        "--model",
        str(layout["model"]),
        "--train",
        str(layout["data"] / "train.parquet"),
        "--val",
        str(layout["data"] / "test.parquet"),
        "--checkpoints",
        str(layout["ckpt"] / "exp"),
        *extra,
    ]


def no_ray():
    return None


def test_ready_inputs_pass(layout, capsys):
    assert preflight.main(args(layout), nodes=no_ray) == 0
    assert "ready" in capsys.readouterr().out
    assert (layout["ckpt"] / "exp").is_dir() and list((layout["ckpt"] / "exp").iterdir()) == []


@pytest.mark.parametrize(
    ("break_it", "needle"),
    [
        (lambda paths: (paths["model"] / "config.json").unlink(), "has no config.json"),
        (lambda paths: (paths["model"] / "model-00001-of-00002.safetensors").unlink(), "has no weights"),
        (lambda paths: (paths["data"] / "train.parquet").unlink(), "train: "),
        (lambda paths: (paths["data"] / "test.parquet").write_bytes(b""), "is empty"),
        (
            lambda paths: (paths["data"] / "test.parquet").write_text("not parquet at all"),
            "is not readable parquet",
        ),
        (
            lambda paths: pq.write_table(
                pa.table({"question": ["q"], "answer": ["a"]}), paths["data"] / "train.parquet"
            ),
            "lacks columns data_source, prompt, ability, reward_model, extra_info",
        ),
        (
            lambda paths: pq.write_table(
                pa.table({k: pa.array([], type=pa.table(GOOD_ROWS)[k].type) for k in GOOD_ROWS}),
                paths["data"] / "train.parquet",
            ),
            "has no rows",
        ),
        (lambda paths: paths["ckpt"].write_text("a file, not a folder"), "checkpoints: "),
    ],
)
def test_each_problem_gets_one_clear_line(layout, capsys, break_it, needle):
    break_it(layout)
    assert preflight.main(args(layout), nodes=no_ray) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("preflight: ") and needle in err[0], err


def test_a_race_with_data_prep_becomes_a_wait(layout, capsys):
    train = layout["data"] / "train.parquet"
    train.rename(layout["data"] / "later")
    threading.Timer(0.5, lambda: (layout["data"] / "later").rename(train)).start()
    start = time.monotonic()
    assert preflight.main(args(layout, "--wait", "10", "--interval", "0.1"), nodes=no_ray) == 0
    assert time.monotonic() - start < 5
    assert "waiting" in capsys.readouterr().out


def test_gives_up_after_the_wait_with_the_reason(layout, capsys):
    (layout["data"] / "train.parquet").unlink()
    assert preflight.main(args(layout, "--wait", "0.3", "--interval", "0.1"), nodes=no_ray) == 1
    assert "train: " in capsys.readouterr().err


def ray_node(gpus: float, alive: bool = True, ip: str = "10.0.0.1") -> dict:
    return {"Alive": alive, "NodeManagerAddress": ip, "Resources": {"CPU": 200.0, "GPU": gpus}}


@pytest.mark.parametrize(
    ("nodes", "problems"),
    [
        ([ray_node(0), ray_node(8), ray_node(8)], []),
        ([ray_node(0), ray_node(8)], ["1 GPU nodes in the Ray cluster; trainer.nnodes is 2"]),
        (
            [ray_node(8), ray_node(4, ip="10.0.0.9")],
            ["node 10.0.0.9 has 4 GPUs; trainer.n_gpus_per_node is 8"],
        ),
        ([ray_node(8), ray_node(8, alive=False)], ["1 GPU nodes in the Ray cluster; trainer.nnodes is 2"]),
    ],
)
def test_gpu_count_matches_the_trainer(layout, capsys, nodes, problems):
    code = preflight.main(args(layout, "--gpus-per-node", "8", "--nodes", "2"), nodes=lambda: nodes)
    err = capsys.readouterr().err
    assert code == (1 if problems else 0)
    for p in problems:
        assert p in err


def test_the_chart_ships_these_very_modules(shipped):
    """preflight.py and every module of the package it imports, byte for byte."""
    (cm,) = [
        o.manifest
        for o in shipped["h200-standard"].objects
        if o.manifest["metadata"]["name"] == "verl-preflight"
    ]
    package = Path(preflight.__file__).parent
    lines = re.findall(r"^\s+from \. import (.+)$", Path(preflight.__file__).read_text(), re.M)
    imported = {name.strip() for line in lines for name in line.split(",")}
    # and the log shipper, which the Ray pods' sidecars run from the same ConfigMap
    shipped = {"preflight.py", "log_shipper.py"} | {f"{m}.py" for m in imported}
    assert imported and set(cm["data"]) == shipped
    for name, content in cm["data"].items():
        assert content == (package / name).read_text()


@pytest.mark.parametrize("folder", ["model", "data"])
def test_a_folder_still_filling_is_not_ready(layout, capsys, folder):
    """Config and a first shard are there, the rest still downloading: no marker, not ready."""
    (layout[folder] / preflight.MARKER).unlink()
    assert preflight.main(args(layout), nodes=no_ray) == 1
    (line,) = capsys.readouterr().err.splitlines()
    assert f"{folder}: {layout[folder]} is not complete yet (no {preflight.MARKER}" in line


def test_the_marker_written_last_ends_the_wait(layout, capsys):
    """The order the run relies on: files first, marker last (the data-prep Job's step())."""
    (layout["model"] / preflight.MARKER).unlink()
    late = threading.Timer(0.4, lambda: (layout["model"] / preflight.MARKER).write_text("done"))
    late.start()
    started = time.monotonic()
    assert preflight.main(args(layout, "--wait", "10", "--interval", "0.1"), nodes=no_ray) == 0
    assert 0.4 <= time.monotonic() - started < 5
    late.join()


def test_the_training_command_replaces_the_preflight(layout, capsys):
    """Everything after `--` is the training run, exec'd only when every check passes."""
    ran: list[list[str]] = []
    command = ["python3", "-m", "verl.trainer.main_ppo", "trainer.nnodes=2"]
    assert preflight.main([*args(layout), "--", *command], nodes=no_ray, run=ran.append) == 0
    assert ran == [command]
    (layout["model"] / "config.json").unlink()
    assert preflight.main([*args(layout), "--", *command], nodes=no_ray, run=ran.append) == 1
    assert ran == [command]  # not run again


def test_exec_hands_the_process_to_the_training_command(layout, tmp_path):
    """A real exec: the command's output and exit code become the job's."""
    import subprocess
    import sys

    script = [
        sys.executable,
        preflight.__file__,
        *args(layout),
        "--",
        sys.executable,
        "-c",
        "import sys; print('training', sys.argv[1:]); sys.exit(3)",
        "a=1",
    ]
    done = subprocess.run(script, capture_output=True, text=True, check=False)
    assert done.returncode == 3, done.stderr
    assert done.stdout.splitlines()[-1] == "training ['a=1']"


@pytest.mark.parametrize(
    ("model", "seconds"),
    [
        # 900 s for the Job's pod, clone and GSM8K, then 2 bytes per parameter at 50 MB/s.
        ("/data/models/Qwen2.5-32B-Instruct", 900 + 32e9 * 2 / 50e6),
        ("/data/models/Qwen2.5-0.5B-Instruct", 900 + 0.5e9 * 2 / 50e6),
        ("/data/models/Llama-3.1-70B", 900 + 70e9 * 2 / 50e6),
        ("/data/models/my-model", 3600),
    ],
)
def test_auto_wait_is_sized_from_the_model(model, seconds):
    assert preflight.wait_seconds("auto", model)[0] == pytest.approx(seconds)
    assert preflight.wait_seconds("120", model) == (120.0, "preflight.waitSeconds")


def test_a_bad_wait_is_refused(layout, capsys):
    with pytest.raises(SystemExit):
        preflight.main(args(layout, "--wait", "soon"), nodes=no_ray)
    assert "--wait: 'soon' is neither a number of seconds nor auto" in capsys.readouterr().err


def test_auto_wait_says_how_long_and_why(layout, capsys, monkeypatch):
    (layout["data"] / "train.parquet").unlink()
    monkeypatch.setattr(preflight, "AUTO_UNKNOWN_SIZE_SECONDS", 0.2)
    monkeypatch.setattr(preflight, "AUTO_BASE_SECONDS", 0.2)
    monkeypatch.setattr(preflight, "DOWNLOAD_BYTES_PER_SECOND", 1e30)
    assert preflight.main(args(layout, "--wait", "auto", "--interval", "0.1"), nodes=no_ray) == 1
    out = capsys.readouterr().out
    assert "preflight: waiting up to 0 s (auto: " in out


@pytest.mark.parametrize(
    ("config", "tp", "problem"),
    [
        ('{"num_attention_heads": 12}', 8, "its 12 attention heads are not divisible by"),
        ('{"num_attention_heads": 40}', 8, None),
        ('{"num_attention_heads": 28}', 8, "use one of [1, 2, 4, 7, 14, 28]"),
        ('{"text_config": {"num_attention_heads": 28}, "num_attention_heads": 32}', 8, "its 28 attention"),
        ('{"num_attention_heads": 28}', 0, None),  # no --tensor-parallel: no check
        ("not json", 8, None),  # unreadable: vLLM's own error, not a guess
    ],
)
def test_tensor_parallel_must_divide_the_models_attention_heads(layout, capsys, config, tp, problem):
    """vLLM refuses it only after verl has loaded the actor (vllm/config/model.py)."""
    (layout["model"] / "config.json").write_text(config)
    code = preflight.main(args(layout, "--tensor-parallel", str(tp)), nodes=no_ray)
    err = capsys.readouterr().err
    assert code == (1 if problem else 0), err
    if problem:
        assert problem in err and "training.tensorParallelSize" in err


@pytest.mark.parametrize(
    ("config", "sequence", "problem"),
    [
        ('{"max_position_embeddings": 32768}', 1024, None),
        ('{"max_position_embeddings": 4096}', 8704, "its context of 4096 tokens (max_position_embeddings)"),
        ('{"max_position_embeddings": 4096, "rope_scaling": {"factor": 4.0}}', 8704, None),
        ('{"max_position_embeddings": 2048, "rope_scaling": {"factor": 2.0}}', 8704, "x rope factor 2"),
        ('{"text_config": {"max_position_embeddings": 4096}}', 8704, "its context of 4096 tokens"),
        ('{"max_position_embeddings": 4096}', 0, None),  # no --sequence-length: no check
    ],
)
def test_prompt_and_response_must_fit_the_models_context(layout, capsys, config, sequence, problem):
    """verl's vLLM rollout asserts it after loading the actor and the reference
    (vllm_rollout_spmd.py@v0.6.1): the pre-flight says it before."""
    (layout["model"] / "config.json").write_text(config)
    code = preflight.main(args(layout, "--sequence-length", str(sequence)), nodes=no_ray)
    err = capsys.readouterr().err
    assert code == (1 if problem else 0), err
    if problem:
        assert problem in err and f"maxResponseLength = {sequence}" in err


def test_the_image_must_have_the_rollout_backend(layout, capsys):
    """verl's images carry vLLM or SGLang, not both: the module verl imports is looked for in the
    image the pre-flight runs in (here: the test's Python, which has json and no sglang)."""
    assert preflight.main(args(layout, "--rollout", "json"), nodes=no_ray) == 0
    capsys.readouterr()
    assert preflight.main(args(layout, "--rollout", "sglang"), nodes=no_ray) == 1
    assert "training.rolloutName is 'sglang' but the image has no sglang module" in capsys.readouterr().err


def test_a_ray_other_than_the_values_fails_before_any_wait(layout, capsys):
    """The image's Ray is asserted first: with the data missing and a long wait, the wrong Ray still
    stops it at once, with one line naming both versions."""
    import ray

    (layout["data"] / "train.parquet").unlink()
    code = preflight.main(args(layout, "--ray-version", "2.40.0", "--wait", "600"), nodes=no_ray)
    out = capsys.readouterr()
    assert code == 1 and "waiting" not in out.out
    (line,) = out.err.strip().splitlines()
    assert f"the image runs Ray {ray.__version__}, but ray.version is '2.40.0'" in line
    assert preflight.main(args(layout, "--ray-version", ray.__version__), nodes=no_ray) == 1  # data
    (layout["data"] / "train.parquet").write_bytes((layout["data"] / "test.parquet").read_bytes())
    assert preflight.main(args(layout, "--ray-version", ray.__version__), nodes=no_ray) == 0


@pytest.mark.parametrize(("status", "passes"), [(401, True), (200, False)])
def test_token_auth_is_asserted_on_the_dashboard(layout, capsys, status, passes):
    """ray.auth token: a dashboard that answers a request without the token is one with token
    authentication off (Ray answers 401 when it is on)."""
    from http.server import BaseHTTPRequestHandler, HTTPServer

    class Dashboard(BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 - http.server's name
            self.send_response(status)
            self.end_headers()

        def log_message(self, *_: object) -> None:
            pass

    server = HTTPServer(("127.0.0.1", 0), Dashboard)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        url = f"http://127.0.0.1:{server.server_port}"
        code = preflight.main(args(layout, "--ray-auth", "token", "--ray-dashboard", url), nodes=no_ray)
    finally:
        server.shutdown()
    assert (code == 0) == passes
    if not passes:
        assert f"answered {status} to a request without the token" in capsys.readouterr().err


def test_the_entrypoint_asserts_the_values_ray(shipped):
    from verl_grpo.values.model import DEFAULT_RAY_VERSION

    for rendering in shipped.values():
        for o in rendering.objects:
            if o.manifest["kind"] == "RayJob":
                assert (
                    f"--ray-version {DEFAULT_RAY_VERSION} --ray-auth disabled"
                    in o.manifest["spec"]["entrypoint"]
                )
