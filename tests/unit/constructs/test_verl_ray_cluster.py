"""constructs/verl_ray_cluster.py: head and worker pods, requests, Ray start parameters, host paths."""

from __future__ import annotations

import pytest

from verl_grpo.facts.machines import GIB, allocatable_cpu, allocatable_memory_gib, gpu_profiles
from verl_grpo.facts.quantity import parse_quantity
from verl_grpo.values.model import DEFAULT_RAY_VERSION

from ...conftest import pods, ray_cluster_spec


@pytest.mark.parametrize("gpu", sorted(gpu_profiles()))
def test_worker_requests_fit_the_machine_and_feed_ray(shipped, gpu):
    facts = gpu_profiles()[gpu]
    for name, r in shipped.items():
        if not name.startswith(gpu):
            continue
        worker = dict(pods(r))["gpu-group"]["spec"]["containers"][0]["resources"]
        assert worker["requests"] == worker["limits"]
        cpu, mem = parse_quantity(worker["requests"]["cpu"]), parse_quantity(worker["requests"]["memory"])
        assert 3 * facts.gpus_per_node <= cpu <= allocatable_cpu(facts.vcpu)
        assert mem <= allocatable_memory_gib(facts.memory_gb) * GIB < facts.memory_gb * 10**9
        assert worker["requests"]["nvidia.com/gpu"] == str(facts.gpus_per_node)


def test_ray_start_params_and_version(shipped):
    for r in shipped.values():
        spec = ray_cluster_spec(r)
        assert spec["rayVersion"] == DEFAULT_RAY_VERSION
        for group in [spec["headGroupSpec"], *spec["workerGroupSpecs"]]:
            assert all(isinstance(v, str) for v in group["rayStartParams"].values())
        group = spec["workerGroupSpecs"][0]
        assert group["minReplicas"] <= group["replicas"] <= group["maxReplicas"]


def test_host_paths_are_exactly_the_gpu_stack_and_read_only(shipped):
    for r in shipped.values():
        for _, pod in pods(r):
            host = {v["name"]: v["hostPath"]["path"] for v in pod["spec"]["volumes"] if "hostPath" in v}
            containers = pod["spec"]["containers"] + pod["spec"].get("initContainers", [])
            mounts = {m["name"]: m for c in containers for m in c["volumeMounts"]}
            assert set(host) <= {"nvidia", "gib"}
            for name in host:
                assert mounts[name]["readOnly"] is True
            declared = {v["name"] for v in pod["spec"]["volumes"]}
            assert declared == set(mounts)  # nothing declared that is not mounted


def test_one_profile_starts_one_gpu_cluster(shipped):
    for name, r in shipped.items():
        kinds = [o.manifest["kind"] for o in r.objects]
        assert kinds.count("RayJob") + kinds.count("RayCluster") == 1, name
        assert ("RayCluster" in kinds) == name.endswith("raycluster")
