"""Each release's data file (data/verl/<version>.yaml) against that verl's own code, in its venv
(`make oracle`): CPUs per GPU bundle, the environment it gives its workers, its loop workers."""

from __future__ import annotations

import subprocess

import pytest

from verl_grpo.facts.verl_releases import verl_release
from verl_grpo.rules.check import check
from verl_grpo.values.derive import Release, deploy_spec
from verl_grpo.values.helm_sets import SET_STRING
from verl_grpo.values.loader import load_values
from verl_grpo.verl_check.config import supported_versions

from ..conftest import oracle_python

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
import ast, importlib.util, json, pathlib, sys, types
root = pathlib.Path(importlib.util.find_spec("verl").origin).parent
# constants_ppo imports torch (0.9.1) only to look at the GPU: stand in for it, no GPU here.
sys.modules.setdefault("torch", types.SimpleNamespace(cuda=types.SimpleNamespace(is_available=lambda: False)))
from verl.trainer.constants_ppo import get_ppo_ray_runtime_env
env = get_ppo_ray_runtime_env()["env_vars"]
main = ast.parse((root / "trainer/main_ppo.py").read_text())
remote = [c.name for c in ast.walk(main) if isinstance(c, ast.ClassDef) and c.name.startswith("TaskRunner")
          and any("remote" in ast.unparse(d) for d in c.decorator_list)]
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
