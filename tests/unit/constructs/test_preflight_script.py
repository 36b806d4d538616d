"""constructs/preflight_script.py: the pod's Python modules in a ConfigMap the Ray pods mount, and on
a long-lived RayCluster the submit files beside them."""

from __future__ import annotations

import ast
import sys
from importlib import resources

import pytest

from verl_grpo.constructs.preflight_script import SHIPPED, preflight_sources

from ...conftest import objects_of_kind, pods, render_one

CONFIG_MAP_MAX_BYTES = 1024 * 1024  # the API server refuses a larger ConfigMap


def module_level_imports(tree: ast.Module) -> list[tuple[int, str]]:
    """(level, module) of the imports run when the file loads (not those inside functions)."""
    found: list[tuple[int, str]] = []
    stack: list[ast.AST] = list(tree.body)
    while stack:
        node = stack.pop()
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            continue
        if isinstance(node, ast.Import):
            found += [(0, alias.name.split(".")[0]) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                found += [(node.level, alias.name) for alias in node.names]
            else:
                found.append((0, (node.module or "").split(".")[0]))
        else:
            stack.extend(ast.iter_child_nodes(node))
    return found


def test_the_shipped_modules_load_with_the_stdlib_and_each_other_alone() -> None:
    """In the pod they are loose files in one folder: what they import when loaded is the standard
    library or a file shipped beside them (ray and torch only inside the functions that use them)."""
    siblings = {name.removesuffix(".py") for name in SHIPPED}
    pod_modules = {p.name.removesuffix(".py") for p in (resources.files("verl_grpo") / "pod").iterdir()}
    sources = preflight_sources()
    assert sorted(sources) == sorted(SHIPPED)
    for name, source in sources.items():
        for level, module in module_level_imports(ast.parse(source)):
            if level or module in pod_modules:
                assert module in siblings, (name, module)
            else:
                assert module in sys.stdlib_module_names or module == "__future__", (name, module)


@pytest.fixture(scope="module")
def ray_job():
    return render_one("preflight.mountPath=/opt/checks")


def test_the_config_map_carries_the_modules_within_the_api_servers_limit(ray_job) -> None:
    """The ConfigMap holds the shipped modules byte for byte, and stays under the API server's 1 MiB limit."""
    (config,) = [
        c for c in objects_of_kind(ray_job, "ConfigMap") if c["metadata"]["name"].endswith("-preflight")
    ]
    assert config["data"] == preflight_sources()
    assert sum(len(k) + len(v.encode()) for k, v in config["data"].items()) < CONFIG_MAP_MAX_BYTES


def test_the_run_starts_the_preflight_where_the_head_mounts_it(ray_job) -> None:
    """preflight.mountPath places the read-only mount, and the entrypoint runs preflight.py there."""
    head = dict(pods(ray_job))["head"]
    (mount,) = [m for m in head["spec"]["containers"][0]["volumeMounts"] if m["name"] == "preflight"]
    assert mount == {"name": "preflight", "mountPath": "/opt/checks", "readOnly": True}
    (job,) = objects_of_kind(ray_job, "RayJob")
    assert job["spec"]["entrypoint"].split()[:2] == ["python3", "/opt/checks/preflight.py"]


@pytest.mark.parametrize(
    ("profile", "projected"), [("h200-standard", False), ("h200-standard-raycluster", True)]
)
def test_a_ray_cluster_head_also_holds_the_submit_files(profile: str, projected: bool) -> None:
    """On a RayCluster the volume projects the submit ConfigMap beside the modules, so `ray job
    submit -- bash <mountPath>/entrypoint.sh` names a file on the head; the two share no key."""
    rendering = render_one(profile=profile)
    config_maps = {c["metadata"]["name"]: c["data"] for c in objects_of_kind(rendering, "ConfigMap")}
    for name, pod in pods(rendering):
        (volume,) = [v for v in pod["spec"]["volumes"] if v["name"] == "preflight"]
        if projected:
            names = [s["configMap"]["name"] for s in volume["projected"]["sources"]]
        else:
            names = [volume["configMap"]["name"]]
        assert len(names) == (2 if projected else 1) and set(names) <= set(config_maps), name
        keys = [key for n in names for key in config_maps[n]]
        assert len(keys) == len(set(keys)), name
        assert ("entrypoint.sh" in keys) is projected, name
