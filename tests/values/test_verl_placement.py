"""The CPUs-per-GPU fact against verl's own source, in each supported verl's venv (`make oracle`)."""

from __future__ import annotations

import subprocess

import pytest

from verl_grpo.facts.verl_placement import MOST_RAY_CPUS_PER_GPU, ray_cpus_per_gpu
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
    assert found["passed"] == [ray_cpus_per_gpu(version)]


def test_by_version() -> None:
    assert [ray_cpus_per_gpu(v) for v in ("0.5.0", "0.6.1", "0.7.0", "0.9.1", "1.0.0")] == [1, 1, 3, 3, 3]
    assert MOST_RAY_CPUS_PER_GPU == 3


def _worker_cpu_problems(cpu: str) -> list[str]:
    values = load_values(None, (), (f"{SET_STRING}worker.cpu={cpu}",))
    return [
        p.message for p in check(deploy_spec(values, Release("verl", "default"))) if p.key == "worker.cpu"
    ]


def test_worker_cpu_rule_uses_the_most_any_verl_asks() -> None:
    assert _worker_cpu_problems("24") == []  # b200: 8 GPUs x 3
    (problem,) = _worker_cpu_problems("23")
    assert "is below 24" in problem and "places 3 CPUs per GPU bundle" in problem
