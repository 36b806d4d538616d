"""Each release's data file (data/verl/<version>.yaml) against that verl's own code, in its venv
(`make oracle`): CPUs per GPU bundle, the environment it gives its workers, its loop workers."""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import zipfile
from pathlib import Path

import pytest

from verl_grpo.facts.verl_releases import verl_release
from verl_grpo.rules.check import check
from verl_grpo.values.derive import Release, deploy_spec
from verl_grpo.values.helm_sets import SET_STRING
from verl_grpo.values.loader import load_values
from verl_grpo.verl_check.config import supported_versions

from ..conftest import REPO, oracle_python

# What the trainer passes RayResourcePool, and the bundle RayResourcePool builds from it, read from
# verl's source with ast (code, not comments; verl 0.9.1 moved ResourcePoolManager, and importing
# its trainer needs more than the oracle venv holds).
READ_VERL = """
import ast, importlib.util, json, pathlib
root = pathlib.Path(importlib.util.find_spec("verl").origin).parent
files = [root / "trainer/ppo/ray_trainer.py", root / "single_controller/ray/base.py"]
passed, bundle = [], []
for tree in (ast.parse(f.read_text()) for f in files):
    for cls in (n for n in ast.walk(tree) if isinstance(n, ast.ClassDef)):
        if cls.name == "ResourcePoolManager":
            # a constant, or self.<field> with the dataclass field's default (verl 0.9.1)
            fields = {n.target.id: n.value.value for n in cls.body if isinstance(n, ast.AnnAssign) and n.value
                      and isinstance(n.value, ast.Constant)}
            for fn in (n for n in cls.body if getattr(n, "name", "") == "create_resource_pool"):
                passed += [k.value.value if isinstance(k.value, ast.Constant) else fields[k.value.attr]
                           for c in ast.walk(fn) if isinstance(c, ast.Call)
                           for k in c.keywords if k.arg == "max_colocate_count"]
        if cls.name == "RayResourcePool":
            bundle += [ast.unparse(v) for d in ast.walk(cls) if isinstance(d, ast.Dict)
                       for k, v in zip(d.keys, d.values) if isinstance(k, ast.Constant) and k.value == "CPU"]
print(json.dumps({"passed": passed, "bundle": bundle}))
"""


@pytest.mark.slow
@pytest.mark.parametrize("version", supported_versions())
def test_cpus_per_gpu_is_what_verl_asks(version: str) -> None:
    import json

    done = subprocess.run(
        [str(oracle_python(version)), "-c", READ_VERL], capture_output=True, text=True, check=True
    )
    found = json.loads(done.stdout.strip().splitlines()[-1])
    assert found["bundle"] == ["self.max_colocate_count"]
    assert found["passed"] == [verl_release(version).ray_cpus_per_gpu]


def _worker_cpu_problems(cpu: str, version: str) -> list[str]:
    sets = (f"{SET_STRING}worker.cpu={cpu}", f"training.verlVersion={version}")
    values = load_values(None, (), sets)
    return [
        p.message for p in check(deploy_spec(values, Release("verl", "default"))) if p.key == "worker.cpu"
    ]


def test_worker_cpu_rule_asks_what_the_runs_verl_asks() -> None:
    """8 B200 GPUs: verl 0.9.1 asks 3 CPUs per GPU bundle (24), 0.6.1 one (8)."""
    assert _worker_cpu_problems("24", "0.9.1") == []
    (problem,) = _worker_cpu_problems("23", "0.9.1")
    assert "is below 24" in problem and "verl 0.9.1 places 3 CPUs per GPU bundle" in problem
    assert _worker_cpu_problems("8", "0.6.1") == []
    (problem,) = _worker_cpu_problems("7", "0.6.1")
    assert "is below 8" in problem and "verl 0.6.1 places 1 CPUs per GPU bundle" in problem


# verl's worker environment, its TaskRunner's class and its loop workers, from its own code.
READ_RUNTIME = """
import ast, importlib.util, json, pathlib
root = pathlib.Path(importlib.util.find_spec("verl").origin).parent
from verl.trainer.constants_ppo import get_ppo_ray_runtime_env
env = get_ppo_ray_runtime_env()["env_vars"]
main = ast.parse((root / "trainer/main_ppo.py").read_text())
# the TaskRunner class made a Ray actor: decorated (0.9.1) or wrapped, ray.remote(...)(TaskRunner) (0.6.1)
remote = [c.name for c in ast.walk(main) if isinstance(c, ast.ClassDef) and c.name.startswith("TaskRunner")
          and any("remote" in ast.unparse(d) for d in c.decorator_list)]
remote += [a.id for c in ast.walk(main) if isinstance(c, ast.Call) and "ray.remote" in ast.unparse(c.func)
           for a in c.args if isinstance(a, ast.Name) and a.id.startswith("TaskRunner")]
import yaml
def workers(path):
    f = root / path
    return yaml.safe_load(f.read_text()) if f.exists() else None
rollout, reward = workers("trainer/config/rollout/rollout.yaml"), workers("trainer/config/reward/reward.yaml")
print(json.dumps({"env": env, "remote": remote, "loop": [rollout.get("agent", {}).get("num_workers"),
      (reward or {}).get("num_workers"), rollout.get("mode")]}))
"""


@pytest.mark.slow
@pytest.mark.parametrize("version", supported_versions())
def test_the_release_file_holds_what_verl_does(version: str) -> None:
    import json

    done = subprocess.run(
        [str(oracle_python(version)), "-c", READ_RUNTIME], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr
    found = json.loads(done.stdout.strip().splitlines()[-1])
    release = verl_release(version)
    assert {k: v for k, v in found["env"].items() if v is not None} == release.worker_env
    assert release.task_runner in found["remote"]
    agent, reward, mode = found["loop"]
    # 0.6.1 starts agent-loop workers only in async mode, its default being sync.
    started = (agent or 0) + (reward or 0) if mode == "async" else 0
    assert release.loop_workers == started


def _wheel(version: str) -> Path:
    path = REPO / ".cache" / "verl-downloads" / f"verl-{version}-py3-none-any.whl"
    if not path.exists():
        pytest.fail(f"{path} missing: run `make oracle`")
    return path


@pytest.mark.parametrize("version", supported_versions())
def test_the_pinned_files_are_the_releases(version: str) -> None:
    """The wheel PyPI serves for the version (downloaded by pip, `make oracle`) and the GSM8K script
    the tests serve for its URL (tests/data/verl) have the sha256 the release file pins."""
    release = verl_release(version)
    wheel = _wheel(version)
    assert hashlib.sha256(wheel.read_bytes()).hexdigest() == release.wheel.sha256
    with zipfile.ZipFile(wheel) as z:
        assert z.read("verl/version/version").decode().strip() == version
    script = REPO / "tests" / "data" / "verl" / "gsm8k.py"
    assert hashlib.sha256(script.read_bytes()).hexdigest() == release.gsm8k_script.sha256


# verl's console line, printed by its own logger (aggregate_logger.concat_dict_to_str, what
# trainer.logger=console prints each step), with the numbers numpy gives it.
PRINT_STEP = """
import json, sys
import numpy as np
from verl.utils.logger.aggregate_logger import concat_dict_to_str
print(concat_dict_to_str({k: np.float64(v) for k, v in json.loads(sys.argv[1]).items()}, step=7))
"""


@pytest.mark.slow
@pytest.mark.parametrize("version", supported_versions())
def test_verls_console_line_is_what_the_kit_reads(version: str) -> None:
    """The keys jobs/ reads, printed by that verl and prefixed by Ray with its TaskRunner's class."""
    import json

    from verl_grpo.jobs.progress import SUMMARY_KEYS
    from verl_grpo.jobs.step_lines import parse_step_line

    metrics = {key: i + 0.5 for i, key in enumerate(SUMMARY_KEYS)}
    done = subprocess.run(
        [str(oracle_python(version)), "-c", PRINT_STEP, json.dumps(metrics)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    line = f"({verl_release(version).task_runner} pid=4242) {done.stdout.strip().splitlines()[-1]}"
    record = parse_step_line(line)
    assert record is not None and record.step == 7 and record.metrics == metrics


def _gsm8k_sample(folder: Path) -> Path:
    """openai/gsm8k's layout on the Hub (its README's configs, main/<split>-*.parquet), a few rows."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    (folder / "main").mkdir(parents=True)
    (folder / "README.md").write_text(
        "---\nconfigs:\n- config_name: main\n  data_files:\n"
        "  - split: train\n    path: main/train-*\n  - split: test\n    path: main/test-*\n---\n"
    )
    rows = {
        "question": ["Tom has 3 apples and buys 4. How many?", "What is 10 minus 7?"],
        "answer": ["3 + 4 = <<3+4=7>>7\n#### 7", "10 - 7 = <<10-7=3>>3\n#### 3"],
    }
    for split in ("train", "test"):
        pq.write_table(pa.table(rows), folder / "main" / f"{split}-00000-of-00001.parquet")
    return folder


@pytest.mark.slow
@pytest.mark.parametrize("version", supported_versions())
def test_verls_gsm8k_script_writes_what_the_run_reads(version: str, tmp_path: Path) -> None:
    """The data-prep Job's step, as it runs it: the release's wheel unpacked, the script beside it,
    verl importable from there only; its parquet files pass the pre-flight's data check and carry
    the ground truth verl's GSM8K reward reads."""
    import pyarrow.parquet as pq

    from verl_grpo.pod.preflight import parquet_problems

    verl_dir, out = tmp_path / "verl", tmp_path / "data"
    with zipfile.ZipFile(_wheel(version)) as z:
        z.extractall(verl_dir)
    script = verl_dir / "examples" / "data_preprocess" / "gsm8k.py"
    script.parent.mkdir(parents=True)
    shutil.copyfile(REPO / "tests" / "data" / "verl" / "gsm8k.py", script)
    sample = _gsm8k_sample(tmp_path / "gsm8k")
    done = subprocess.run(
        [str(oracle_python(version)), str(script), "--local_dataset_path", str(sample)]
        + ["--local_save_dir", str(out)],
        env={**os.environ, "PYTHONPATH": str(verl_dir), "HF_DATASETS_OFFLINE": "1", "HF_HOME": str(tmp_path)},
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    for split in ("train", "test"):
        assert parquet_problems(split, str(out / f"{split}.parquet")) == []
        rows = pq.read_table(out / f"{split}.parquet").to_pylist()
        assert [r["reward_model"]["ground_truth"] for r in rows] == ["7", "3"]
        assert {r["data_source"] for r in rows} == {"openai/gsm8k"}
