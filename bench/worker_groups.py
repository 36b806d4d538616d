"""A RayCluster with N GPU worker groups through the same construct code: seconds to synthesize.

The values model has one worker group (the reference workload needs one); this bench builds
the group N times with VerlRayCluster's own group builder to see how synthesis cost grows.

    .venv/bin/python bench/worker_groups.py 64
"""

from __future__ import annotations

import copy
import json
import sys
import time

import cdk8s
from verl_grpo.app import VerlGrpoChart
from verl_grpo.profiles import find_profile
from verl_grpo.values.derive import Release, deploy_spec
from verl_grpo.values.loader import load_values


def main(groups: int) -> None:
    spec = deploy_spec(
        load_values(find_profile("b200-standard-raycluster").layer()), Release("verl", "default")
    )
    start = time.perf_counter()
    app = cdk8s.App()
    chart = VerlGrpoChart(app, "bench", spec)
    cluster = next(p for p in chart.parts if p.construct_id == "cluster")
    group = cluster.spec["workerGroupSpecs"][0]
    many = []
    for i in range(groups):
        g = copy.deepcopy(group)
        g["groupName"] = f"gpu-group-{i}"
        many.append(g)
    obj = cdk8s.ApiObject(
        chart,
        "many",
        api_version="ray.io/v1",
        kind="RayCluster",
        metadata=cdk8s.ApiObjectMetadata(name="verl-many", namespace="default"),
    )
    obj.add_json_patch(cdk8s.JsonPatch.add("/spec", {**cluster.spec, "workerGroupSpecs": many}))
    manifests = chart.to_json()
    seconds = time.perf_counter() - start
    size = len(json.dumps(manifests))
    print(json.dumps({"groups": groups, "seconds": seconds, "json_bytes": size}))


if __name__ == "__main__":
    main(int(sys.argv[1]))
