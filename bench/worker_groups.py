"""A RayCluster with N GPU worker groups (values `workerGroups`), rendered by the kit's own
constructs in one cdk8s chart: seconds to synthesize, and the manifest's size.

    .venv/bin/python bench/worker_groups.py 64
"""

from __future__ import annotations

import json
import sys
import time

import cdk8s
from verl_grpo.constructs.app import VerlGrpoChart
from verl_grpo.profiles import find_profile
from verl_grpo.values.derive import Release, deploy_spec
from verl_grpo.values.loader import load_values


def main(groups: int) -> None:
    sets = "workerGroups.gpu-group=null," + ",".join(f"workerGroups.g{i}.replicas=1" for i in range(groups))
    values = load_values(find_profile("b200-standard-raycluster").layer(), (), (sets,))
    spec = deploy_spec(values, Release("verl", "default"))
    start = time.perf_counter()
    app = cdk8s.App()
    chart = VerlGrpoChart(app, "bench", spec)
    manifests = chart.to_json()
    seconds = time.perf_counter() - start
    (cluster,) = [m for m in manifests if m["kind"] == "RayCluster"]
    assert len(cluster["spec"]["workerGroupSpecs"]) == groups
    print(json.dumps({"groups": groups, "seconds": seconds, "json_bytes": len(json.dumps(cluster))}))


if __name__ == "__main__":
    main(int(sys.argv[1]))
