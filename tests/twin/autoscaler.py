"""A stand-in for GKE's cluster autoscaler: it grows the twin's node pools for pods the real
kube-scheduler cannot place, and leaves every fit decision to that scheduler.

GKE's cluster-autoscaler cannot be built here (the module proxy refuses
k8s.io/autoscaler/cluster-autoscaler, 403, 2026-12-06), so this follows its documented scale-up
rule (cluster-autoscaler/FAQ.md@cluster-autoscaler-1.36.1, "How does scale-up work?"): it looks
for unschedulable pods, "creates template nodes for each of the node groups and checks if any of
the unschedulable pods would fit on a new node", and adds none where no pod would fit or where
"all suitable node groups are already at their maximum size". The check is the real scheduler's:
a trial node of the pool (tainted so that only a probe may use it) and, per pending pod, a probe
pod that copies its spec and may only go to that node (``matchFields`` on ``metadata.name``, the
NodeAffinity the scheduler's PreFilter narrows to). A probe that binds means the pod fits: the
trial node's taint is lifted and it stays (``TriggeredScaleUp``); otherwise the node goes and the
pod gets a ``NotTriggerScaleUp`` event naming each pool and the scheduler's verdict there, in
cluster-autoscaler's words (processors/status/eventing_scale_up_processor.go: "pod didn't trigger
scale-up: ..."; core/scaleup/orchestrator/skippedreasons.go: "max node group size reached").

Left out: expanders (the first pool that fits wins, in the order the scripts created them),
balancing similar node groups, scale-down and its timings, backoff after failed scale-ups, the 10 s
scan interval (1 s here; a pod is judged again every 10 s), and the 15-minute node provisioning
timeout. Pools with queued provisioning get nodes only through a ProvisioningRequest of GKE's
class, as on GKE; ``controlplane/provisioner.py`` plays that part where a test needs it.
"""

from __future__ import annotations

import copy
import dataclasses
import itertools
import json
import re
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from ..controlplane.cluster import KWOK_ANNOTATION, ControlPlane
from ..controlplane.provisioner import PROVISIONING_REQUESTS, set_condition
from .gke import TOPOLOGY_BLOCK, TOPOLOGY_HOST, TOPOLOGY_SUBBLOCK, Cluster, NodePool, autopilot_pool

TRIAL_TAINT = {"key": "twin.verl-grpo.test/trial", "value": "probe", "effect": "NoSchedule"}
PROBE_LABEL = "twin.verl-grpo.test/probe"
OWNER_LABEL = "twin.verl-grpo.test/autoscaler"
# The message part for nodes the probe's NodeAffinity PreFilter ruled out (the other nodes):
# pkg/scheduler/schedule_one.go@v1.36.3, "node(s) didn't satisfy plugin(s) [NodeAffinity]".
RULED_OUT = re.compile(r"didn't satisfy plugin\(s\) \[NodeAffinity\]")
NOT_TRIGGERED, TRIGGERED = "NotTriggerScaleUp", "TriggeredScaleUp"
MAX_SIZE = "max node group size reached"
RESCAN_S = 10.0
UNBOUND_CLAIMS = "unbound immediate PersistentVolumeClaims"
QUEUED = "queued provisioning: nodes only for a ProvisioningRequest"
# A pool pinned to a reservation sub-block with no free host: GCE creates no VM there (the twin's words).
NO_HOST = "no free host in the pinned reservation"
# The classes cluster-autoscaler implements (apis/provisioningrequest/autoscaling.x-k8s.io/v1).
CHECK_CAPACITY = "check-capacity.autoscaling.x-k8s.io"
ATOMIC_SCALE_UP = "best-effort-atomic-scale-up.autoscaling.x-k8s.io"


@dataclass
class Autoscaler:
    """Grows ``cluster``'s pools for unschedulable pods of ``namespaces``; ``events`` records each
    scale-up decision (also written as Events on the pods)."""

    cp: ControlPlane
    cluster: Cluster
    namespaces: tuple[str, ...]
    tag: str  # node names start with it: a test's nodes are its own
    sub_blocks: tuple[tuple[str, str, int], ...] = ()  # (block, sub-block, free hosts) for topology
    # What node agents publish once a node exists (a DRA driver's ResourceSlices): objects to create.
    on_node: Callable[[dict[str, Any]], list[dict[str, Any]]] | None = None
    sizes: dict[str, int] = field(default_factory=dict)
    nodes: list[str] = field(default_factory=list)
    events: list[dict[str, str]] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    _stop: threading.Event = field(default_factory=threading.Event)
    _serial: Iterator[int] = field(default_factory=itertools.count)
    _judged: object = None
    _judged_at: float = 0.0
    _autopilot_pools: dict[str, NodePool] = field(default_factory=dict)
    _published: dict[str, list[tuple[str, str, str]]] = field(default_factory=dict)
    _answered: set[str] = field(default_factory=set)
    _no_provisioning_api: bool = False

    # -- life cycle --

    @contextmanager
    def running(self) -> Iterator[Autoscaler]:
        """Start the pools at their initial size, scale up in the background, and remove every
        node this autoscaler made when the block ends."""
        for pool in self.cluster.pools:
            self.sizes[pool.name] = 0
            for _ in range(pool.initial):
                self._add(pool, trial=False)
        thread = threading.Thread(target=self._loop, name=f"autoscaler-{self.tag}", daemon=True)
        thread.start()
        try:
            yield self
        finally:
            self._stop.set()
            thread.join(timeout=30)
            if self.on_node:
                self.cp.kubectl("delete", "resourceslices", "-l", f"{OWNER_LABEL}={self.tag}", check=False)
            if self.nodes:
                self.cp.kubectl(
                    "delete", "nodes", *self.nodes, "--ignore-not-found", "--wait=false", check=False
                )

    def _loop(self) -> None:
        while not self._stop.wait(1.0):
            try:
                self.answer_provisioning_requests()
                self.scan()
            except Exception as err:  # noqa: BLE001 - kept for the test to report, never swallowed
                self.errors.append(repr(err))

    # -- ProvisioningRequests (Kueue's provisioning admission check) --

    def answer_provisioning_requests(self) -> None:
        """Answer the requests of the classes cluster-autoscaler itself implements
        (provisioningrequest/checkcapacity and besteffortatomic @cluster-autoscaler-1.36.1):
        check-capacity: Provisioned=True (CapacityIsFound) when every pod of the request fits the
        nodes there are, else Provisioned=False; best-effort-atomic-scale-up: the same when they
        fit, else a node for each pod from the pools, all or none, then Provisioned=True
        (CapacityIsProvisioned) or Provisioned=False (CapacityIsNotFound). Accepted=True first in
        both. GKE's queued-provisioning.gke.io is GKE's own (``controlplane/provisioner.py`` plays
        it in the tests that use it); booking expiry, the 7-day failure and retries are left out."""
        if self._no_provisioning_api:
            return
        for namespace in self.namespaces:
            listed = self.cp.kubectl("get", PROVISIONING_REQUESTS, "-n", namespace, "-o", "json", check=False)
            if not listed:
                self._no_provisioning_api = True  # the API is not served here (no Kueue tier)
                return
            for request in json.loads(listed)["items"]:
                if request["spec"]["provisioningClassName"] in (CHECK_CAPACITY, ATOMIC_SCALE_UP):
                    self.answer(request)

    def answer(self, request: dict[str, Any]) -> None:
        conditions = {c["type"]: c["status"] for c in request.get("status", {}).get("conditions", [])}
        if "True" in (conditions.get("Provisioned"), conditions.get("Failed")) or (
            conditions.get("Provisioned") == "False" and request["metadata"]["name"] in self._answered
        ):
            return
        self._answered.add(request["metadata"]["name"])
        name, namespace = request["metadata"]["name"], request["metadata"]["namespace"]
        self.set_condition(request, "Accepted", "True", "Accepted", "the twin's autoscaler accepted it")
        pods = []
        for pod_set in request["spec"]["podSets"]:
            template = json.loads(
                self.cp.kubectl(
                    "get", "podtemplate", pod_set["podTemplateRef"]["name"], "-n", namespace, "-o", "json"
                )
            )["template"]
            pods += [
                {"metadata": {"namespace": namespace, "name": name}, "spec": template["spec"]}
            ] * pod_set["count"]
        if self.fit_existing(pods):
            self.set_condition(
                request, "Provisioned", "True", "CapacityIsFound", "capacity is found in the cluster"
            )
            return
        if request["spec"]["provisioningClassName"] == CHECK_CAPACITY:
            message = "Capacity is not found, CA will try to find it later."
            self.set_condition(request, "Provisioned", "False", "CapacityIsNotFound", message)
            return
        added: list[tuple[NodePool, str]] = []
        for pod in pods:
            grown = self.grow_for(pod)
            if grown is None:
                for pool, node in added:  # all or none
                    self._remove(pool, node)
                message = "Provisioning Request wasn't provisioned: a pod fits no node group"
                self.set_condition(request, "Provisioned", "False", "CapacityIsNotFound", message)
                return
            added.append(grown)
        nodes = [node for _, node in added]
        self.set_condition(request, "Provisioned", "True", "CapacityIsProvisioned", f"nodes {nodes} added")

    def fit_existing(self, pods: list[dict[str, Any]]) -> bool:
        """Whether every pod fits the nodes there are, together: unrestricted probes, all held
        until the last is judged (each takes its room), then deleted."""
        made: list[tuple[str, str]] = []
        try:
            for pod in pods:
                name = f"twin-probe-{next(self._serial)}"
                body = probe_of(pod, "", name)
                self.cp.kubectl("create", "-f", "-", stdin=json.dumps(body))
                made.append((name, pod["metadata"]["namespace"]))
                if self.wait_verdict(name, pod["metadata"]["namespace"]) is not None:
                    return False
            return True
        finally:
            for name, namespace in made:
                self.delete_probe(name, namespace)

    def grow_for(self, pod: dict[str, Any]) -> tuple[NodePool, str] | None:
        """A node of the first pool whose trial node the scheduler would give a copy of the pod
        (the node stays, untainted), with its pool; None when no pool below its max takes it."""
        for pool in self.candidate_pools([pod]):
            if self.cannot_grow(pool):
                continue
            node = self._add(pool, trial=True)
            if self.probe(pod, node) is None:
                self._keep(node)
                return pool, node
            self._remove(pool, node)
        return None

    def cannot_grow(self, pool: NodePool) -> str | None:
        """Why the pool takes no node now, in cluster-autoscaler's words; None when it may."""
        if pool.queued:
            return QUEUED
        if pool.sub_block and not any((b, s) == pool.sub_block and free for b, s, free in self.sub_blocks):
            return f"{NO_HOST}: sub-block {'/'.join(pool.sub_block)} of reservation {pool.reservation}"
        return MAX_SIZE if self.sizes.get(pool.name, 0) >= pool.max_nodes else None

    def set_condition(
        self, request: dict[str, Any], kind: str, status: str, reason: str, message: str
    ) -> None:
        meta = request["metadata"]
        set_condition(self.cp, meta["namespace"], meta["name"], kind, status, reason, message)
        said = f"ProvisioningRequest {kind}={status}"
        self.events.append({"pod": meta["name"], "reason": said, "message": message})

    # -- one scan --

    def pending(self) -> list[dict[str, Any]]:
        """Pods the scheduler marked Unschedulable (not gated, not our probes), in our namespaces."""
        out = []
        for namespace in self.namespaces:
            for pod in json.loads(self.cp.kubectl("get", "pods", "-n", namespace, "-o", "json"))["items"]:
                conditions = pod.get("status", {}).get("conditions", [])
                # A pod tried before the PV controller bound its claims waits for that, not for a
                # node: the twin judges it once the scheduler's reason is about nodes (our choice).
                stuck = any(
                    c["type"] == "PodScheduled"
                    and c["status"] == "False"
                    and c.get("reason") == "Unschedulable"
                    and UNBOUND_CLAIMS not in c.get("message", "")
                    for c in conditions
                )
                if (
                    stuck
                    and not pod["spec"].get("nodeName")
                    and PROBE_LABEL not in pod["metadata"].get("labels", {})
                ):
                    out.append(pod)
        return out

    def scan(self) -> None:
        pods = self.pending()
        state = (sorted(p["metadata"]["uid"] for p in pods), sorted(self.sizes.items()), len(self.nodes))
        # Judged again when something changed, or after the real autoscaler's 10 s scan interval
        # (FAQ.md: "every 10 seconds"): a pod's reason may have changed (a claim bound meanwhile).
        if not pods or (state == self._judged and time.monotonic() - self._judged_at < RESCAN_S):
            return
        self._judged_at = time.monotonic()
        verdicts: dict[str, dict[str, str]] = {}  # pod uid -> pool -> verdict
        for pool in self.candidate_pools(pods):
            if skipped := self.cannot_grow(pool):
                for pod in pods:
                    verdicts.setdefault(pod["metadata"]["uid"], {})[pool.name] = skipped
                continue
            node = self._add(pool, trial=True)
            fits = []
            for pod in representatives(pods):
                verdict = self.probe(pod, node)
                if verdict is None:
                    fits.append(pod)
                else:
                    for same in pods:
                        if group_of(same) == group_of(pod):
                            verdicts.setdefault(same["metadata"]["uid"], {})[pool.name] = verdict
            if fits:
                before = self.sizes[pool.name] - 1
                self._keep(node)
                info = f"[{{{pool.name} {before}->{before + 1} (max: {pool.max_nodes})}}]"
                for pod in pods:
                    if group_of(pod) in {group_of(f) for f in fits}:
                        self.record(pod, TRIGGERED, f"pod triggered scale-up: {info}")
                self._judged = None
                return
            self._remove(pool, node)
        # A claim the PV controller has not bound yet (it binds the release's statically named PVs
        # within seconds) is no verdict on the nodes: the next scan judges again, as the real
        # autoscaler does every scan.
        binding = any(UNBOUND_CLAIMS in v for said in verdicts.values() for v in said.values())
        for pod in [] if binding else pods:
            said = verdicts.get(pod["metadata"]["uid"], {})
            text = "; ".join(f"{pool}: 1 {verdict}" for pool, verdict in said.items()) or "no node group"
            self.record(pod, NOT_TRIGGERED, f"pod didn't trigger scale-up: {text}")
        # What was judged, with the pools this scan met (an Autopilot shape's size now counts, at 0).
        self._judged = (state[0], sorted(self.sizes.items()), len(self.nodes))

    def candidate_pools(self, pods: list[dict[str, Any]]) -> list[NodePool]:
        if self.cluster.mode == "standard":
            return list(self.cluster.pools)
        # Autopilot has no pools: one per distinct node shape the pending pods ask for.
        for pod in pods:
            pool = autopilot_pool(pod, self.cluster.region)
            if pool is not None:
                shape = json.dumps([pool.machine_type, pool.labels, pool.allocatable], sort_keys=True)
                named = dataclasses.replace(pool, name=f"{pool.name}-{len(self._autopilot_pools)}")
                self._autopilot_pools.setdefault(shape, named)
        return list(self._autopilot_pools.values())

    # -- the scheduler's verdict --

    def probe(self, pod: dict[str, Any], node: str) -> str | None:
        """None when the scheduler binds a copy of ``pod`` to ``node``; else its reasons there."""
        name = f"twin-probe-{next(self._serial)}"
        namespace = pod["metadata"]["namespace"]
        self.cp.kubectl("create", "-f", "-", stdin=json.dumps(probe_of(pod, node, name)))
        try:
            return self.wait_verdict(name, namespace)
        finally:
            self.delete_probe(name, namespace)

    def delete_probe(self, name: str, namespace: str) -> None:
        self.cp.kubectl(
            "delete", "pod", name, "-n", namespace, "--force", "--grace-period=0", "--wait=false", check=False
        )

    def wait_verdict(self, name: str, namespace: str, timeout: float = 30.0) -> str | None:
        """None once the probe is bound; else the scheduler's reasons for the node it may use."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            found = json.loads(self.cp.kubectl("get", "pod", name, "-n", namespace, "-o", "json"))
            if found["spec"].get("nodeName"):
                return None
            for c in found.get("status", {}).get("conditions", []):
                if c["type"] == "PodScheduled" and c.get("reason") == "Unschedulable":
                    verdict = node_verdict(c.get("message", ""))
                    if verdict:
                        return verdict
            time.sleep(0.2)
        return f"no verdict from the scheduler in {timeout:.0f}s"

    # -- nodes --

    def _add(self, pool: NodePool, trial: bool) -> str:
        index = self.sizes.get(pool.name, 0)
        name = f"{self.tag}-{pool.name}-{next(self._serial)}"
        topology = self.topology_for(name, pool.sub_block) if pool.topology else None
        body = pool.node(name, {KWOK_ANNOTATION: "fake"}, topology)
        body["metadata"]["labels"][OWNER_LABEL] = self.tag
        if trial:
            body["spec"].setdefault("taints", []).append(dict(TRIAL_TAINT))
        published = self.on_node(body) if self.on_node else []
        for obj in published:
            obj["metadata"].setdefault("labels", {})[OWNER_LABEL] = self.tag
        self._published[name] = [
            (o["kind"], o["metadata"].get("namespace", ""), o["metadata"]["name"]) for o in published
        ]
        listed = {"apiVersion": "v1", "kind": "List", "items": [body, *published]}
        self.cp.kubectl("create", "-f", "-", stdin=json.dumps(listed))
        self.sizes[pool.name] = index + 1
        self.nodes.append(name)
        return name

    def _keep(self, node: str) -> None:
        """A trial node that takes a pod stays: its trial taint goes, the pool's own stay."""
        taints = json.loads(self.cp.kubectl("get", "node", node, "-o", "json"))["spec"].get("taints", [])
        kept = [t for t in taints if t.get("key") != TRIAL_TAINT["key"]]
        patch = [{"op": "replace", "path": "/spec/taints", "value": kept}]
        self.cp.kubectl("patch", "node", node, "--type=json", "-p", json.dumps(patch))

    def _remove(self, pool: NodePool, node: str) -> None:
        self.cp.kubectl("delete", "node", node, "--ignore-not-found", "--wait=false")
        # What was published for the node goes with it (a driver's slices, a node's system pods).
        for kind, namespace, name in self._published.pop(node, []):
            where = ("-n", namespace) if namespace else ()
            self.cp.kubectl(
                "delete",
                kind,
                name,
                *where,
                "--ignore-not-found",
                "--wait=false",
                "--force",
                "--grace-period=0",
            )
        self.sizes[pool.name] -= 1
        self.nodes.remove(node)

    def topology_for(self, node: str, pinned: tuple[str, str] | None = None) -> dict[str, str]:
        """GCE's physical-topology labels: the sub-block the pool is pinned to, else the first
        sub-block of the reservation with a free host."""
        for i, (block, sub, free) in enumerate(self.sub_blocks):
            if free > 0 and pinned in (None, (block, sub)):
                self.sub_blocks = (*self.sub_blocks[:i], (block, sub, free - 1), *self.sub_blocks[i + 1 :])
                return {TOPOLOGY_BLOCK: block, TOPOLOGY_SUBBLOCK: sub, TOPOLOGY_HOST: f"host-{node}"}
        return {TOPOLOGY_BLOCK: "block-0", TOPOLOGY_SUBBLOCK: "sub-block-0", TOPOLOGY_HOST: f"host-{node}"}

    def record(self, pod: dict[str, Any], reason: str, message: str) -> None:
        """An Event on the pod, as cluster-autoscaler writes it (source component cluster-autoscaler)."""
        meta = pod["metadata"]
        self.events.append({"pod": meta["name"], "reason": reason, "message": message})
        event = {
            "apiVersion": "v1",
            "kind": "Event",
            "metadata": {"generateName": f"{meta['name']}.", "namespace": meta["namespace"]},
            "involvedObject": {
                "apiVersion": "v1",
                "kind": "Pod",
                "name": meta["name"],
                "namespace": meta["namespace"],
                "uid": meta["uid"],
            },
            "reason": reason,
            "message": message,
            "type": "Normal",
            "source": {"component": "cluster-autoscaler"},
        }
        self.cp.kubectl("create", "-f", "-", stdin=json.dumps(event))


def group_of(pod: dict[str, Any]) -> tuple[str, str, str]:
    """Pods the autoscaler treats alike: same owner and Ray group (its equivalence groups are by
    controller, core/scaleup/equivalence/groups.go)."""
    meta = pod["metadata"]
    owner = next((o["uid"] for o in meta.get("ownerReferences", [])), meta["name"])
    return meta["namespace"], owner, meta.get("labels", {}).get("ray.io/group", "")


def representatives(pods: list[dict[str, Any]]) -> list[dict[str, Any]]:
    seen: dict[tuple[str, str, str], dict[str, Any]] = {}
    for pod in pods:
        seen.setdefault(group_of(pod), pod)
    return list(seen.values())


def probe_of(pod: dict[str, Any], node: str, name: str) -> dict[str, Any]:
    """A copy of the pod's spec that may go only to ``node`` (any, for "") and tolerates the
    trial taint."""
    spec = copy.deepcopy(pod["spec"])
    for key in ("nodeName", "schedulingGates"):
        spec.pop(key, None)
    spec["tolerations"] = [*spec.get("tolerations", []), {**TRIAL_TAINT, "operator": "Equal"}]
    if node:  # that node only (a capacity check takes any)
        only = {"key": "metadata.name", "operator": "In", "values": [node]}
        required = spec.setdefault("affinity", {}).setdefault("nodeAffinity", {})
        given = required.get("requiredDuringSchedulingIgnoredDuringExecution", {})
        terms = given.get("nodeSelectorTerms") or [{}]
        required["requiredDuringSchedulingIgnoredDuringExecution"] = {
            "nodeSelectorTerms": [{**t, "matchFields": [*t.get("matchFields", []), only]} for t in terms]
        }
    meta = {"name": name, "namespace": pod["metadata"]["namespace"], "labels": {PROBE_LABEL: "true"}}
    return {"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": spec}


def node_verdict(message: str) -> str:
    """The scheduler's reasons for the one node the probe could go to: its FitError message
    ("0/N nodes are available: 1 Insufficient ephemeral-storage, 4 node(s) didn't satisfy plugin(s)
    [NodeAffinity]. preemption: ...") without the nodes the PreFilter ruled out."""
    # After the reasons the scheduler may add sentences of its own ("no new claims to deallocate").
    reasons = message.split(": ", 1)[1] if ": " in message else message
    reasons = reasons.split(". ", 1)[0].rstrip(".")
    kept = [r.strip() for r in reasons.split(", ") if r.strip() and not RULED_OUT.search(r)]
    return ", ".join(re.sub(r"^\d+ ", "", r) for r in kept)
