"""A queued run on the GKE twin: the real Kueue (v0.19.2) admits the kit's RayJob against the
chart's own queue objects, then the autoscaler stand-in grows the pools the scripts created.

Nothing here makes a node by hand, and nothing exists before the run: the GPU pools start at the
zero nodes their flags give them, as on GKE.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
import yaml

from ..twin.autoscaler import ATOMIC_SCALE_UP, Autoscaler
from ..twin.cloud import provision
from ..twin.gke import COMPUTE_CLASS
from .cluster import ControlPlane
from .helpers import items, objects, synth, wait_for
from .test_kueue import SUBBLOCK, condition, domains, ray_job, workload_of
from .test_twin import Flow, expected_pods, settled

pytestmark = pytest.mark.controlplane

QUEUED = ("queue.enabled=true", "queue.createObjects=true")


@pytest.fixture(scope="module")
def kueue() -> Iterator[ControlPlane]:
    """A control plane of its own: Kueue's webhooks see every RayJob of the cluster."""
    with ControlPlane.start() as cp:
        cp.start_kueue()
        yield cp


@contextmanager
def queued_run(
    cp: ControlPlane, flow: Flow, tmp_path: Path, prepare: Callable[[Path], None] | None = None, **env: str
) -> Iterator[tuple[Autoscaler, str, list[dict[str, Any]]]]:
    """The scripts for the flow's values, then its rendering (``prepare`` may add to it) applied in
    ``default`` (what the scripts grant) with the autoscaler over the scripts' pools; all of it
    deleted at the end."""
    cloud = provision(flow.profile, tmp_path / "cloud", *flow.values_args, env=env)
    folder = synth(tmp_path / "out", flow.profile, *flow.values_args)
    if prepare:
        prepare(folder)
    scaler = Autoscaler(cp, cloud.cluster, ("default",), tag=f"twin-{flow.id}", sub_blocks=cloud.sub_blocks)
    docs = objects(folder)
    with scaler.running():
        cp.kubectl("apply", "-k", str(folder))
        try:
            yield scaler, ray_job(folder)["metadata"]["name"], docs
        finally:
            cp.kubectl("delete", "-k", str(folder), "--wait=true", "--ignore-not-found", timeout=180)


def admitted(cp: ControlPlane, name: str) -> dict[str, Any] | None:
    w = workload_of(cp, name)
    return w if w and condition(w, "Admitted").get("status") == "True" else None


def test_a_run_with_topology_placement_is_admitted_on_pools_that_start_at_zero(
    kueue: ControlPlane, tmp_path: Path
) -> None:
    """The chart's queue asks for the GPU pod sets' nodes first (a ProvisioningRequest of the
    best-effort-atomic class, what Kueue documents for autoscaled pools: quota, then the check,
    then the topology "calculated taking into account any newly provisioned nodes",
    topology_aware_scheduling.md@v0.19.2). 30-gpu-pool.sh found sub-block sub-1 (sub-0 is full)
    and created the pool in it; the twin makes the reserved nodes there, GCE labels them, and
    Kueue places both workers in that one sub-block."""
    cp = kueue
    flow = Flow(
        "h200-standard",
        (*QUEUED, "queue.topology.mode=required", "cluster.capacity=reservation", "cluster.reservation=r1"),
        name="tas-reservation",
    )
    sub_blocks = "block-a/sub-0/18/18 block-a/sub-1/18/0"
    with queued_run(cp, flow, tmp_path, FAKE_SUB_BLOCKS=sub_blocks) as (scaler, name, _docs):
        workload = wait_for("the topology-placed Workload admitted", lambda: admitted(cp, name), timeout=120)
        assignments = workload["status"]["admission"]["podSetAssignments"]
        (workers,) = [p for p in assignments if "nvidia.com/gpu" in p["flavors"]]
        gpu_nodes = [n for n in scaler.nodes if "gpu-pool" in n]
        assert len(gpu_nodes) == 2, scaler.nodes  # made for the request, before any worker pod
        sub_block = {
            n["metadata"]["name"]: n["metadata"]["labels"][SUBBLOCK] for n in items(cp, "nodes", *gpu_nodes)
        }
        assert set(sub_block.values()) == {"sub-1"}, sub_block
        placed = domains(workers["topologyAssignment"])
        assert {d.get(SUBBLOCK) or sub_block[d["kubernetes.io/hostname"]] for d in placed} == {"sub-1"}, (
            placed
        )


def test_a_queued_run_without_topology_is_admitted_and_its_pools_grow(
    kueue: ControlPlane, tmp_path: Path
) -> None:
    cp = kueue
    flow = Flow("h200-autopilot", QUEUED, name="queued-autopilot")
    with queued_run(cp, flow, tmp_path) as (scaler, name, docs):
        wait_for("the Workload admitted", lambda: admitted(cp, name), timeout=60)
        # Kueue's job reconciler unsuspends the admitted RayJob right after admission.
        wait_for(
            "the admitted RayJob unsuspended",
            lambda: items(cp, "rayjob", name, "-n", "default")[0]["spec"].get("suspend") is not True,
            timeout=30,
        )
        # After admission, KubeRay makes the pods and the autoscaler's nodes take them.
        count = expected_pods(docs)
        outcome = wait_for(
            "the admitted run's pods running", lambda: settled(cp, scaler, "default", count), timeout=180
        )
        assert not isinstance(outcome, str), f"the autoscaler added no node: {outcome}"
        # Kueue added the CPU flavor's labels to the admitted pods: the head keeps the Performance
        # class it selects, the 0.5-CPU submitter gets none (not a whole Performance node).
        (head,) = items(cp, "pods", "-n", "default", "-l", "ray.io/node-type=head")
        (submitter,) = items(cp, "pods", "-n", "default", "-l", "app.kubernetes.io/component=submitter")
        assert head["spec"]["nodeSelector"].get(COMPUTE_CLASS) == "Performance"
        assert COMPUTE_CLASS not in (submitter["spec"].get("nodeSelector") or {}), submitter["spec"]


def atomic_check(folder: Path) -> None:
    """What a platform adds to the chart's queue: a provisioning admission check of
    cluster-autoscaler's best-effort-atomic class on the GPU flavor (Kueue v0.19.2
    site/content/en/docs/concepts/admission_check/provisioning_request.md)."""
    api = "kueue.x-k8s.io/v1beta2"
    (queue_file,) = folder.glob("clusterqueue-*.yaml")
    queue = yaml.safe_load(queue_file.read_text())
    (gpu_flavor,) = [
        f["name"] for g in queue["spec"]["resourceGroups"] for f in g["flavors"] if f["name"].endswith("-gpu")
    ]
    queue["spec"]["admissionChecksStrategy"] = {
        "admissionChecks": [{"name": "atomic", "onFlavors": [gpu_flavor]}]
    }
    queue_file.write_text(yaml.safe_dump(queue))
    extra = [
        {
            "apiVersion": api,
            "kind": "ProvisioningRequestConfig",
            "metadata": {"name": "atomic"},
            "spec": {"provisioningClassName": ATOMIC_SCALE_UP, "managedResources": ["nvidia.com/gpu"]},
        },
        {
            "apiVersion": api,
            "kind": "AdmissionCheck",
            "metadata": {"name": "atomic"},
            "spec": {
                "controllerName": "kueue.x-k8s.io/provisioning-request",
                "parameters": {
                    "apiGroup": "kueue.x-k8s.io",
                    "kind": "ProvisioningRequestConfig",
                    "name": "atomic",
                },
            },
        },
    ]
    kustomization = yaml.safe_load((folder / "kustomization.yaml").read_text())
    for obj in extra:
        name = f"atomic-{obj['kind'].lower()}.yaml"
        (folder / name).write_text(yaml.safe_dump(obj))
        kustomization["resources"].append(name)
    (folder / "kustomization.yaml").write_text(yaml.safe_dump(kustomization))


def test_an_atomic_scale_up_makes_the_run_s_nodes_before_kueue_admits_it(
    kueue: ControlPlane, tmp_path: Path
) -> None:
    """Kueue asks for the GPU pod sets' capacity (a ProvisioningRequest); the autoscaler stand-in
    adds a node for each worker from the scripts' pool, all or none, and says Provisioned; only
    then is the run admitted, and its workers land on those nodes."""
    cp = kueue
    flow = Flow("h200-standard", QUEUED, name="atomic")
    with queued_run(cp, flow, tmp_path, prepare=atomic_check) as (scaler, name, docs):
        wait_for("the Workload admitted", lambda: admitted(cp, name), timeout=120)
        said = [e for e in scaler.events if e["reason"] == "ProvisioningRequest Provisioned=True"]
        assert said and "nodes [" in said[0]["message"], scaler.events
        gpu_nodes = [n for n in scaler.nodes if "gpu-pool" in n]
        assert len(gpu_nodes) == 2, scaler.nodes  # one per worker, before any worker pod existed
        outcome = wait_for(
            "the admitted run's pods running",
            lambda: settled(cp, scaler, "default", expected_pods(docs)),
            timeout=180,
        )
        assert not isinstance(outcome, str), f"the autoscaler added no node: {outcome}"
        workers = [p for p in outcome if p["metadata"]["labels"].get("ray.io/node-type") == "worker"]
        assert sorted(p["spec"]["nodeName"] for p in workers) == sorted(gpu_nodes)
