"""The real KubeRay operator acting on our RayJob and RayCluster: the objects it makes, and the
submitter Job's own command run with a recording `ray`.

There is no kubelet: the test marks the pods Running and Ready through the status subresource, as
KubeRay's own envtest does (ray-operator/controllers/ray/suite_helpers_test.go), which is what
makes the RayCluster Ready and the RayJob controller create its submitter Job.
"""

from __future__ import annotations

import json
import shlex
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from verl_grpo.constructs.runtime_env import GIB_NCCL_ENV_SCRIPT

from ..conftest import DIST_VALUES
from ..kuberay_submitter import run_recorded
from .build import REPO, kuberay_versions
from .cluster import ControlPlane, ControlPlaneError
from .helpers import items, kubectl_json, wait_for

pytestmark = pytest.mark.controlplane
CLI = REPO / ".venv" / "bin" / "verl-grpo"


@pytest.fixture(scope="module", params=kuberay_versions(), ids=lambda v: f"kuberay-{v}")
def control_plane(request: pytest.FixtureRequest) -> Iterator[ControlPlane]:
    """A control plane of this module's own, once per supported KubeRay operator (with that
    version's own CRDs): the operator's state after our RayJob (a cluster marked Ready, a
    dashboard it keeps polling) and the pods left Pending must not reach the scheduling tests,
    which count what binds where."""
    with ControlPlane.start(kuberay=request.param) as cp:
        yield cp


def render(profile: str, namespace: str, kuberay: str) -> list[dict[str, Any]]:
    """The profile's objects as `verl-grpo synth` writes them, for this namespace and operator."""
    done = subprocess.run(
        [
            str(CLI),
            "synth",
            "--profile",
            profile,
            "-f",
            str(DIST_VALUES),
            "-n",
            namespace,
            "--set",
            f"kuberay.version={kuberay}",
            "-o",
            "-",
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return [d for d in yaml.safe_load_all(done.stdout) if d]


def apply(cp: ControlPlane, docs: list[dict[str, Any]]) -> None:
    cp.kubectl("apply", "--server-side", "--field-manager=test", "-f", "-", stdin=yaml.safe_dump_all(docs))


def mark_running_and_ready(cp: ControlPlane, namespace: str, selector: str) -> int:
    pods = items(cp, "pods", "-n", namespace, "-l", selector)
    now = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    for pod in pods:
        status = {
            "phase": "Running",
            "podIP": "10.1.0.10",
            "conditions": [{"type": "Ready", "status": "True", "lastTransitionTime": now}],
            "containerStatuses": [
                {
                    "name": c["name"],
                    "image": c["image"],
                    "imageID": "",
                    "ready": True,
                    "restartCount": 0,
                    "started": True,
                    "state": {"running": {"startedAt": now}},
                }
                for c in pod["spec"]["containers"]
            ],
        }
        cp.kubectl(
            "patch",
            "pod",
            pod["metadata"]["name"],
            "-n",
            namespace,
            "--subresource=status",
            "--type=merge",
            "-p",
            json.dumps({"status": status}),
        )
    return len(pods)


def test_rayjob_submitter_sends_the_whole_run_to_ray(control_plane: ControlPlane, tmp_path: Path) -> None:
    namespace = "op-rayjob"
    control_plane.kubectl("create", "namespace", namespace)
    docs = [
        d for d in render("h200-standard", namespace, control_plane.kuberay_version) if d["kind"] != "Job"
    ]
    apply(control_plane, docs)
    (job,) = [d for d in docs if d["kind"] == "RayJob"]
    name = job["metadata"]["name"]

    cluster = wait_for(
        "the RayCluster of the RayJob",
        lambda: (
            kubectl_json(control_plane, "get", "rayjob", name, "-n", namespace)
            .get("status", {})
            .get("rayClusterName")
        ),
    )
    selector = f"ray.io/cluster={cluster}"
    expected_pods = 1 + job["spec"]["rayClusterSpec"]["workerGroupSpecs"][0]["replicas"]
    wait_for(
        "head and worker pods",
        lambda: len(items(control_plane, "pods", "-n", namespace, "-l", selector)) == expected_pods,
    )
    assert kubectl_json(control_plane, "get", "service", f"{cluster}-head-svc", "-n", namespace)["spec"][
        "ports"
    ]
    assert mark_running_and_ready(control_plane, namespace, selector) == expected_pods

    submitter = wait_for(
        "the submitter Job",
        lambda: next(iter(items(control_plane, "jobs", "-n", namespace)), None),
    )
    (container,) = submitter["spec"]["template"]["spec"]["containers"]
    command = [*container["command"], *container.get("args", [])]
    calls = run_recorded(command, tmp_path)

    entrypoint = shlex.split(job["spec"]["entrypoint"].replace("\\\n", " "))
    programs = [c[0] for c in calls]
    assert set(programs) <= {"ray", "python"}, programs  # nothing of the run executes in the submitter pod
    submits = [c for c in calls if c[1:3] == ["job", "submit"]]
    assert len(submits) == 1
    (submit,) = submits
    assert submit[submit.index("--") + 1 :] == entrypoint
    assert entrypoint[entrypoint.index("--") + 1 : entrypoint.index("--") + 4] == [
        "python3",
        "-m",
        "verl.trainer.main_ppo",
    ]


def test_raycluster_profile_gets_its_pods_and_head_service(
    control_plane: ControlPlane, tmp_path: Path
) -> None:
    namespace = "op-raycluster"
    control_plane.kubectl("create", "namespace", namespace)
    docs = [
        d
        for d in render("b200-standard-raycluster", namespace, control_plane.kuberay_version)
        if d["kind"] != "Job"
    ]
    apply(control_plane, docs)
    (cluster,) = [d for d in docs if d["kind"] == "RayCluster"]
    name = cluster["metadata"]["name"]
    pods = wait_for(
        "head and worker pods",
        lambda: (
            (
                p := kubectl_json(
                    control_plane, "get", "pods", "-n", namespace, "-l", f"ray.io/cluster={name}"
                )["items"]
            )
            and len(p) == 3
            and p
        ),
    )
    head = next(p for p in pods if p["metadata"]["labels"].get("ray.io/node-type") == "head")
    volumes = {v["name"]: v for v in head["spec"]["volumes"]}
    # The projected volume carries entrypoint.sh beside preflight.py on the head.
    sources = [s["configMap"]["name"] for s in volumes["preflight"]["projected"]["sources"]]
    assert sources == ["verl-preflight", "verl-submit"]
    assert kubectl_json(control_plane, "get", "service", f"{name}-head-svc", "-n", namespace)["spec"]["ports"]
    for worker in (p for p in pods if p is not head):
        (work := tmp_path / worker["metadata"]["name"]).mkdir()
        assert_workers_start_ray_with_gib_nccl_env(worker["spec"]["containers"][0], work)
    assert mark_running_and_ready(control_plane, namespace, f"ray.io/cluster={name}") == 3
    wait_for(
        "the RayCluster to be ready",
        lambda: (
            kubectl_json(control_plane, "get", "raycluster", name, "-n", namespace)
            .get("status", {})
            .get("state")
            == "ready"
        ),
    )


def assert_workers_start_ray_with_gib_nccl_env(container: dict[str, Any], tmp_path: Path) -> None:
    """The worker's command as KubeRay built it, run by bash with a recording `ray`: the raylet
    starts with gIB's set_nccl_env.sh exports and the image's LD_LIBRARY_PATH behind gIB's, and never
    without them (a missing script, before the node's RDMA installer has run, stops the container)."""
    command = [*container["command"], *container["args"]]
    assert command[-1].index(GIB_NCCL_ENV_SCRIPT) < command[-1].index("ray start")
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "ray").write_text(
        '#!/bin/sh\necho "ray $1 NCCL_NET=$NCCL_NET LD_LIBRARY_PATH=$LD_LIBRARY_PATH"\n'
    )
    (bin_dir / "ray").chmod(0o755)
    script = tmp_path / "set_nccl_env.sh"
    env = {"PATH": f"{bin_dir}:/usr/bin:/bin", "HOME": str(tmp_path), "LD_LIBRARY_PATH": "/image/lib"}

    def run() -> subprocess.CompletedProcess[str]:
        local = [*command[:-1], command[-1].replace(GIB_NCCL_ENV_SCRIPT, str(script))]
        return subprocess.run(local, env=env, capture_output=True, text=True, check=False)

    missing = run()
    assert missing.returncode == 1 and "ray start" not in missing.stdout, missing
    assert "the gIB RDMA installer has not run on this node" in missing.stdout
    script.write_text("export NCCL_NET=gIB\n")
    started = run()
    # gIB's plugin and the driver's libraries before the image's own, which stays.
    libraries = "/usr/local/gib/lib64:/usr/local/nvidia/lib64:/image/lib"
    assert started.returncode == 0, started
    assert started.stdout.strip() == f"ray start NCCL_NET=gIB LD_LIBRARY_PATH={libraries}", started


def test_the_cluster_s_kuberay_crds_name_its_release(control_plane: ControlPlane) -> None:
    """The fields data/kuberay-crd-fields.json holds for this operator are those of the CRDs its
    Go module installs; `check --cluster-crds` on what the API server serves accepts this version
    and refuses the other minors."""
    from verl_grpo.facts.kuberay_crds import own_fields, release_fields

    version = control_plane.kuberay_version
    served = control_plane.kubectl("get", "crd", "rayclusters.ray.io", "rayjobs.ray.io", "-o", "yaml")
    docs = yaml.safe_load(served)["items"]
    assert own_fields(docs) == release_fields()[version]

    def check(kuberay: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [
                str(CLI),
                "check",
                "--profile",
                "h200-standard",
                "--set",
                f"kuberay.version={kuberay}",
                "--cluster-crds",
                "-",
                "-o",
                "json",
            ],
            input=served,
            capture_output=True,
            text=True,
            check=False,
        )

    assert "kuberay-matches-cluster" not in check(version).stdout
    for other in {"1.4.2", "1.5.1", "1.6.1", "1.7.0"} - {version}:
        refused = check(other)
        assert refused.returncode == 1 and "kuberay-matches-cluster" in refused.stdout, (other, refused)


def test_a_field_the_operator_lacks_is_refused_not_dropped(control_plane: ControlPlane) -> None:
    """Why the fields follow kuberay.version: a RayJob rendered for a newer operator than the
    cluster's is refused by a strict apply against the older CRD (and pruned by a lax one)."""
    namespace = "op-version-skew"
    control_plane.kubectl("create", "namespace", namespace)
    newest = max(kuberay_versions(), key=lambda v: tuple(map(int, v.split("."))))
    (job,) = [d for d in render("h200-standard", namespace, newest) if d["kind"] == "RayJob"]
    job["metadata"]["name"] = "skew"
    if "preRunningDeadlineSeconds" in (control_plane.crd_dir / "ray.io_rayjobs.yaml").read_text():
        apply(control_plane, [job])
        return
    with pytest.raises(
        ControlPlaneError, match=r"\.spec\.preRunningDeadlineSeconds: field not declared in schema"
    ):
        apply(control_plane, [job])
