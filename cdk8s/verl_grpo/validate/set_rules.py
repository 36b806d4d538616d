"""Rules across the objects of one set: what no single object shows."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator
from typing import Any

from ..facts.kuberay import DASHBOARD_PORT
from .operator_rules import cluster_spec_paths

SetFinding = tuple[int, str, str, str, str]  # document index, severity, path, rule, message


def volume_handle_rules(bodies: list[Any]) -> Iterator[SetFinding]:
    """Kubelet and the CSI driver treat PVs with one volumeHandle as one volume and skip the
    second mount: the pod waits in ContainerCreating (gcs-fuse-csi-driver issue 48; use
    <bucket>:<suffix> handles, pkg/util/util.go ParseVolumeID)."""
    # handle -> PV name -> first document; one name seen twice is one object (dist/ holds profiles).
    seen: dict[tuple[str, str], dict[str, int]] = defaultdict(dict)
    for i, body in enumerate(bodies):
        if isinstance(body, dict) and body.get("kind") == "PersistentVolume":
            csi = (body.get("spec") or {}).get("csi") or {}
            if csi.get("volumeHandle"):
                name = (body.get("metadata") or {}).get("name", "")
                seen[(csi.get("driver", ""), csi["volumeHandle"])].setdefault(name, i)
    for (_, handle), by_name in seen.items():
        for name, i in list(by_name.items())[1:]:
            others = ", ".join(n for n in by_name if n != name)
            yield (
                i,
                "error",
                "spec.csi.volumeHandle",
                "csi-volume-handle-unique",
                f"{handle!r} is also the handle of {others}: give each PV its own (e.g. {handle}:data)",
            )


def _selects(selector: dict[str, Any], labels: dict[str, str]) -> bool:
    wanted = selector.get("matchLabels") or {}
    return not selector.get("matchExpressions") and all(labels.get(k) == v for k, v in wanted.items())


def _admits_dashboard_from_outside(policy: dict[str, Any]) -> bool:
    for rule in (policy.get("spec") or {}).get("ingress") or []:
        ports = rule.get("ports")
        if ports and not any(p.get("port") in (DASHBOARD_PORT, "dashboard") for p in ports):
            continue
        peers = rule.get("from")
        if peers is None or any("namespaceSelector" in p or "ipBlock" in p for p in peers):
            return True
    return False


def network_policy_rules(bodies: list[Any]) -> Iterator[SetFinding]:
    """A NetworkPolicy on the Ray head that admits the dashboard port only from its own
    namespace shuts out the KubeRay operator: the RayJob never learns the job's status."""
    heads = []
    for body in bodies:
        if not isinstance(body, dict):
            continue
        namespace = (body.get("metadata") or {}).get("namespace", "")
        for _, cluster in cluster_spec_paths(body):
            template = (cluster.get("headGroupSpec") or {}).get("template") or {}
            heads.append((namespace, (template.get("metadata") or {}).get("labels") or {}))
    for i, body in enumerate(bodies):
        if not isinstance(body, dict) or body.get("kind") != "NetworkPolicy":
            continue
        spec = body.get("spec") or {}
        if "Ingress" not in (spec.get("policyTypes") or ["Ingress"]):
            continue
        namespace = (body.get("metadata") or {}).get("namespace", "")
        selected = any(
            ns == namespace and _selects(spec.get("podSelector") or {}, labels) for ns, labels in heads
        )
        if selected and not _admits_dashboard_from_outside(body):
            yield (
                i,
                "error",
                "spec.ingress",
                "kuberay-operator-blocked",
                f"admits the Ray head's dashboard port {DASHBOARD_PORT} only from this namespace; the "
                "KubeRay operator polls it from its own (add a namespaceSelector peer for it)",
            )


def claim_ref_rules(bodies: list[Any]) -> Iterator[SetFinding]:
    """A statically bound PV names its claim's namespace in claimRef; Kustomize's `namespace:`
    (or Flux's targetNamespace) moves the claim but not the PV's claimRef, and the PVC then waits
    Pending for a PV that is reserved for another namespace."""
    pvs = {
        (b.get("metadata") or {}).get("name"): b
        for b in bodies
        if isinstance(b, dict) and b.get("kind") == "PersistentVolume"
    }
    for i, body in enumerate(bodies):
        if not isinstance(body, dict) or body.get("kind") != "PersistentVolumeClaim":
            continue
        meta, spec = body.get("metadata") or {}, body.get("spec") or {}
        pv = pvs.get(spec.get("volumeName"))
        ref = ((pv or {}).get("spec") or {}).get("claimRef") or {}
        if pv is None or not ref:
            continue
        namespace = meta.get("namespace", "default")
        if (ref.get("namespace"), ref.get("name")) != (namespace, meta.get("name")):
            yield (
                i,
                "error",
                "spec.volumeName",
                "pv-claim-ref",
                f"PersistentVolume {spec['volumeName']} is reserved for "
                f"{ref.get('namespace')}/{ref.get('name')}, not this claim "
                f"({namespace}/{meta.get('name')}): the claim stays Pending. Kustomize's namespace "
                "does not move claimRef: render for the namespace instead (verl-grpo synth -n, helm -n)",
            )


def set_findings(bodies: list[Any]) -> Iterator[SetFinding]:
    yield from volume_handle_rules(bodies)
    yield from network_policy_rules(bodies)
    yield from claim_ref_rules(bodies)
