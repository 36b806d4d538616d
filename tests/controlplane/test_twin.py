"""A run on the GKE twin: the scripts make the cloud (tests/fakes, recorded), `helm install` makes
the run, KubeRay makes its pods, the autoscaler stand-in grows the pools the scripts created from
where their flags start, the real scheduler binds every pod, kwok runs them, and the RayJob's
submitter runs its command (with a recording `ray`). No node here is made by hand: every one comes
from a pool in the recorded gcloud calls (tests/twin/gke.py), shaped as GKE shapes that pool's nodes.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml

from verl_grpo.rules.cluster_pools import NAMESPACE as RECORDS_NAMESPACE
from verl_grpo.rules.cluster_pools import RECORDS
from verl_grpo.values.worker_groups import pool_name

from ..kuberay_submitter import run_recorded
from ..scripts_harness import MY_VALUES, profile_values
from ..twin.autoscaler import NOT_TRIGGERED, PROBE_LABEL, TRIGGERED, Autoscaler
from ..twin.cloud import Cloud, provision
from ..twin.dra import A4X, CHANNEL_DRIVER, FAKE_DRANET_DRIVER, channel_template, device_classes, drivers
from ..twin.gke import ACCELERATOR, NODEPOOL
from .cluster import ControlPlane
from .helpers import (
    CHART,
    OVERLAYS,
    Helm,
    await_namespaces_deleted,
    begin_namespace_deletion,
    items,
    pods,
    wait_for,
)

pytestmark = pytest.mark.controlplane


@dataclass(frozen=True)
class Flow:
    """One way a user runs the kit: a shipped profile, and values on top of it."""

    profile: str  # e.g. h200-standard-raycluster
    sets: tuple[str, ...] = ()
    name: str = ""

    @property
    def id(self) -> str:
        return self.name or self.profile

    @property
    def overlay(self) -> Path:
        return OVERLAYS / self.profile / "values.yaml"

    @property
    def values_args(self) -> list[str]:
        sets = (a for s in self.sets for a in ("--set", s))
        return ["-f", str(MY_VALUES), *profile_values(self.profile), *sets]


PROFILES = sorted(p.parent.name for p in (OVERLAYS.parent / "dist").glob("*/kustomization.yaml"))
GROUPS = (
    "cluster.capacity=reservation,cluster.reservation=r1,workerGroups.gpu-group=null,"
    "workerGroups.reserved.replicas=1,workerGroups.spot.replicas=1,workerGroups.spot.capacity=spot"
)
FLOWS = [
    *(Flow(p) for p in PROFILES),
    *(
        Flow("h200-standard", (f"cluster.capacity={c}", *extra), name=f"h200-{c}")
        for c, extra in (("reservation", ("cluster.reservation=r1",)), ("flex-start", ()), ("on-demand", ()))
    ),
    Flow(
        "h200-autopilot", ("cluster.capacity=reservation", "cluster.reservation=r1"), name="h200-ap-reserved"
    ),
    Flow("b200-standard-raycluster", (GROUPS,), name="groups-reserved-and-spot"),
    # A B200 run's spot group on H200s (workerGroups.<name>.machine): its pool is of H200s, and its
    # workers fit there only with the H200's derived memory, not the B200's.
    Flow(
        "b200-standard-raycluster", (f"{GROUPS},workerGroups.spot.machine=h200",), name="b200-run-h200-group"
    ),
]


@pytest.fixture(scope="module")
def helm(control_plane: ControlPlane, tmp_path_factory: pytest.TempPathFactory) -> Helm:
    return Helm(control_plane.kubeconfig, tmp_path_factory.mktemp("helm-home"))


@pytest.fixture(scope="module")
def doomed(control_plane: ControlPlane) -> Iterator[list[str]]:
    names: list[str] = []
    yield names
    await_namespaces_deleted(control_plane, names)


@pytest.fixture(scope="module")
def dra(control_plane: ControlPlane) -> Iterator[None]:
    """The DeviceClasses GKE's DRANET and NVIDIA's DRA driver define (stand-ins, twin/dra.py)."""
    classes = device_classes()
    listed = json.dumps({"kind": "List", "apiVersion": "v1", "items": classes})
    control_plane.kubectl("apply", "--server-side", "-f", "-", stdin=listed)
    yield
    names = [c["metadata"]["name"] for c in classes]
    control_plane.kubectl("delete", "deviceclasses", *names, "--ignore-not-found")


@dataclass
class Run:
    cloud: Cloud
    autoscaler: Autoscaler
    namespace: str
    docs: list[dict[str, Any]]


@pytest.fixture
def twin(
    control_plane: ControlPlane, helm: Helm, doomed: list[str], dra: None, tmp_path: Path
) -> Iterator[Callable[[Flow], Run]]:
    """``twin(flow)``: the scripts on the fake cloud, the autoscaler over their pools, `helm
    install`; the namespace and the nodes go at the end."""
    stack = ExitStack()

    def start(flow: Flow) -> Run:
        namespace = f"twin-{flow.id}"[:63]
        cloud = provision(flow.profile, tmp_path / "cloud", *flow.values_args)
        scaler = Autoscaler(
            control_plane,
            cloud.cluster,
            (namespace,),
            tag=namespace,
            sub_blocks=cloud.sub_blocks,
            on_node=drivers,
        )
        stack.enter_context(scaler.running())
        stack.callback(begin_namespace_deletion, control_plane, namespace)  # before the nodes go
        doomed.append(namespace)
        helm.ok(
            "install",
            "verl",
            str(CHART),
            "-f",
            str(flow.overlay),
            *flow.values_args,
            "-n",
            namespace,
            "--create-namespace",
        )
        docs = [d for d in yaml.safe_load_all(helm.ok("get", "manifest", "verl", "-n", namespace)) if d]
        for domain in (d for d in docs if d["kind"] == "ComputeDomain"):
            # NVIDIA's ComputeDomain controller, in its place: the channel template the domain names.
            template = channel_template(domain["spec"]["channel"]["resourceClaimTemplate"]["name"], namespace)
            control_plane.kubectl("create", "-f", "-", stdin=json.dumps(template))
        return Run(cloud, scaler, namespace, docs)

    with stack:
        yield start


def groups(docs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    (ray,) = [d for d in docs if d["kind"] in ("RayCluster", "RayJob")]
    return (ray["spec"]["rayClusterSpec"] if ray["kind"] == "RayJob" else ray["spec"])["workerGroupSpecs"]


def expected_pods(docs: list[dict[str, Any]]) -> int:
    """Head, workers (every group's replicas), the data-prep Job's pod, a RayJob's submitter."""
    workers = sum(g["replicas"] for g in groups(docs))
    return 1 + workers + sum(d["kind"] == "Job" for d in docs) + any(d["kind"] == "RayJob" for d in docs)


def settled(
    cp: ControlPlane, scaler: Autoscaler, namespace: str, count: int
) -> list[dict[str, Any]] | str | None:
    """Every pod bound and running (kwok), or the autoscaler's verdict on a pod it could not help."""
    assert not scaler.errors, scaler.errors
    stuck = [e for e in scaler.events if e["reason"] == NOT_TRIGGERED]
    if stuck:
        return f"{stuck[0]['pod']}: {stuck[0]['message']}"
    found = [p for p in pods(cp, namespace) if PROBE_LABEL not in p["metadata"].get("labels", {})]
    running = [p for p in found if p["status"].get("phase") in ("Running", "Succeeded")]
    return found if len(found) >= count and len(running) == len(found) else None


@pytest.mark.parametrize("flow", FLOWS, ids=lambda f: f.id)
def test_a_run_comes_up_on_the_twin(
    control_plane: ControlPlane, twin: Callable[[Flow], Run], flow: Flow, tmp_path: Path
) -> None:
    cp = control_plane
    run = twin(flow)
    count = expected_pods(run.docs)
    outcome = wait_for(
        "every pod running, or the autoscaler's verdict",
        lambda: settled(cp, run.autoscaler, run.namespace, count),
        timeout=180,
    )
    assert not isinstance(outcome, str), f"the autoscaler added no node: {outcome}"

    # The GPU pools grew from zero to their groups' sizes; every node is one the autoscaler made
    # from a pool of the recorded calls.
    nodes = {
        n["metadata"]["name"]: n
        for n in items(cp, "nodes", "-l", f"twin.verl-grpo.test/autoscaler={run.namespace}")
    }
    workers = [p for p in outcome if p["metadata"]["labels"].get("ray.io/node-type") == "worker"]
    assert {p["spec"]["nodeName"] for p in workers} <= set(nodes)
    triggered = [e for e in run.autoscaler.events if e["reason"] == TRIGGERED]
    assert triggered, "the GPU nodes came without a scale-up"
    # The head and the data-prep Job on CPU nodes (Standard: the CPU pool; Autopilot: the
    # Performance class on the values' machine family), on different nodes: together they ask
    # more CPU than one c2-standard-16 has.
    labels = {name: node["metadata"]["labels"] for name, node in nodes.items()}
    cpu_pods = [
        p["spec"]["nodeName"]
        for p in outcome
        if p["metadata"]["labels"].get("ray.io/node-type") == "head" or "data-prep" in p["metadata"]["name"]
    ]
    assert len(set(cpu_pods)) == 2, cpu_pods
    cpu_labels = (
        {NODEPOOL: "default-pool"}
        if run.cloud.cluster.mode == "standard"
        else {"cloud.google.com/compute-class": "Performance", "cloud.google.com/machine-family": "c2"}
    )
    assert all(cpu_labels.items() <= labels[n].items() for n in cpu_pods), cpu_pods
    # Each worker on a node of its group's machine.
    machines = {g["groupName"]: g["template"]["spec"]["nodeSelector"][ACCELERATOR] for g in groups(run.docs)}
    for pod in workers:
        assert (
            labels[pod["spec"]["nodeName"]][ACCELERATOR]
            == machines[pod["metadata"]["labels"]["ray.io/group"]]
        )
    if any(d["kind"] == "ComputeDomain" for d in run.docs):
        # A4X: the scheduler gave each worker every RDMA NIC of its own node (DRANET's
        # allocationMode All) and that node's IMEX channel.
        by_pod: dict[str, dict[str, list[dict[str, Any]]]] = {}
        for claim in items(cp, "resourceclaims", "-n", run.namespace):
            (owner,) = claim["metadata"]["ownerReferences"]
            results = claim["status"]["allocation"]["devices"]["results"]
            by_pod.setdefault(owner["name"], {})[results[0]["request"]] = results
        assert set(by_pod) == {p["metadata"]["name"] for p in workers}
        for pod in workers:
            node = pod["spec"]["nodeName"]
            nics, channel = (
                by_pod[pod["metadata"]["name"]]["rdma"],
                by_pod[pod["metadata"]["name"]]["channel"],
            )
            assert sorted(r["device"] for r in nics) == [f"rdma{i}" for i in range(A4X.rdma_nics)]
            assert {(r["driver"], r["pool"]) for r in nics} == {(FAKE_DRANET_DRIVER, node)}
            assert [(r["driver"], r["pool"], r["device"]) for r in channel] == [
                (CHANNEL_DRIVER, node, "channel-0")
            ]
    if run.cloud.cluster.mode == "standard":
        # Each group's workers on its own pool (worker_groups.pool_name), which the scripts made.
        own = {g["groupName"]: pool_name(g["groupName"]) for g in groups(run.docs)}
        assert set(own.values()) <= {p.name for p in run.cloud.cluster.pools}, own
        for pod in workers:
            group = pod["metadata"]["labels"]["ray.io/group"]
            assert nodes[pod["spec"]["nodeName"]]["metadata"]["labels"][NODEPOOL] == own[group], group
        # What 40-rdma.sh recorded of each pool (rules/cluster_pools.py, the chart's pool guard) is
        # what its nodes carry, as the twin shapes them from the recorded gcloud calls.
        state = json.loads((tmp_path / "cloud" / "state" / "state.json").read_text())
        record = state["applied"][f"ConfigMap/{RECORDS_NAMESPACE}/{RECORDS}"]["data"]
        assert set(record) == {p.name for p in run.cloud.cluster.pools if p.name.startswith("gpu-pool")}
        for pod in workers:
            node_labels = labels[pod["spec"]["nodeName"]]
            recorded = json.loads(record[node_labels[NODEPOOL]])["labels"]
            assert recorded.items() <= node_labels.items(), (recorded, node_labels)

    # The run itself: KubeRay's cluster ready; a RayJob's submitter runs `ray job submit` with the
    # entrypoint (KubeRay's own command, with a recording `ray`).
    (ray,) = [d for d in run.docs if d["kind"] in ("RayCluster", "RayJob")]
    if ray["kind"] == "RayJob":
        # KubeRay names the submitter Job after the RayJob (rayjob_controller.go@v1.6.1).
        name = ray["metadata"]["name"]
        job = wait_for(
            "the submitter Job",
            lambda: next(
                iter(items(cp, "jobs", "-n", run.namespace, f"--field-selector=metadata.name={name}")), None
            ),
        )
        (container,) = job["spec"]["template"]["spec"]["containers"]
        recorded = run_recorded([*container["command"], *container.get("args", [])], tmp_path)
        (submit,) = [c for c in recorded if c[:3] == ["ray", "job", "submit"]]
        assert "--submission-id" in submit and "/opt/verl-grpo/preflight.py" in submit, submit
    else:
        wait_for(
            "the RayCluster ready",
            lambda: items(cp, "raycluster", "-n", run.namespace)[0].get("status", {}).get("state") == "ready",
        )
