"""validate/set_rules.py: what breaks only when objects meet (two PVs, a policy and the Ray head, a
claim and its PV), on a rendered set and on small hand-written ones."""

from __future__ import annotations

import copy

from verl_grpo.validate.set_rules import set_findings

from ...conftest import render_one


def pv(name: str, handle: str, claim: tuple[str, str] | None = None) -> dict:
    spec: dict = {"csi": {"driver": "gcsfuse.csi.storage.gke.io", "volumeHandle": handle}}
    if claim:
        spec["claimRef"] = {"namespace": claim[0], "name": claim[1]}
    return {"apiVersion": "v1", "kind": "PersistentVolume", "metadata": {"name": name}, "spec": spec}


def rules(bodies: list) -> list[tuple[int, str, str]]:
    return [(i, path, rule) for i, _, path, rule, _ in set_findings(bodies)]


def test_a_rendered_set_is_clean_and_a_namespace_moved_claim_is_stranded() -> None:
    """Kustomize's `namespace:` moves a PVC but not its PV's claimRef: the claim stays Pending."""
    bodies = [copy.deepcopy(o.manifest) for o in render_one().objects]
    assert list(set_findings(bodies)) == []
    claim = next(b for b in bodies if b["kind"] == "PersistentVolumeClaim")
    claim["metadata"]["namespace"] = "team-a"
    ((i, severity, path, rule, message),) = set_findings(bodies)
    assert (bodies[i] is claim, severity, path, rule) == (True, "error", "spec.volumeName", "pv-claim-ref")
    assert f"is reserved for default/{claim['metadata']['name']}, not this claim (team-a/" in message


def test_two_pvs_with_one_volume_handle_are_refused_but_one_pv_twice_is_not() -> None:
    """The CSI driver mounts one volume per handle and skips the second (gcs-fuse-csi-driver issue 48);
    the same PV listed twice (dist/ holds every profile) is one object."""
    bodies = [pv("model", "bucket"), pv("data", "bucket"), pv("model", "bucket"), pv("ckpt", "bucket:ckpt")]
    ((i, severity, path, rule, message),) = set_findings(bodies)
    assert (i, severity, path, rule) == (1, "error", "spec.csi.volumeHandle", "csi-volume-handle-unique")
    assert message == "'bucket' is also the handle of model: give each PV its own (e.g. bucket:data)"


def test_a_policy_that_admits_the_dashboard_only_from_its_namespace_blocks_the_operator() -> None:
    """KubeRay's operator polls the head's dashboard (8265) from its own namespace."""
    head = {"metadata": {"labels": {"ray.io/node-type": "head"}}}
    cluster = {
        "apiVersion": "ray.io/v1",
        "kind": "RayCluster",
        "metadata": {"name": "verl", "namespace": "ml"},
        "spec": {"headGroupSpec": {"template": head}},
    }

    def policy(
        ingress: list, namespace: str = "ml", labels: dict | None = None, types: list | None = None
    ) -> dict:
        spec = {"podSelector": {"matchLabels": labels or {"ray.io/node-type": "head"}}, "ingress": ingress}
        if types is not None:
            spec["policyTypes"] = types
        return {"kind": "NetworkPolicy", "metadata": {"name": "p", "namespace": namespace}, "spec": spec}

    same_namespace = [{"from": [{"podSelector": {}}]}]
    assert rules([cluster, policy(same_namespace)]) == [(1, "spec.ingress", "kuberay-operator-blocked")]
    operator = [{"from": [{"podSelector": {}}, {"namespaceSelector": {}}], "ports": [{"port": 8265}]}]
    assert rules([cluster, policy(operator)]) == []
    # A rule for other ports leaves the dashboard shut as well.
    other_port = [{"from": [{"namespaceSelector": {}}], "ports": [{"port": 6379}]}]
    assert rules([cluster, policy(other_port)]) == [(1, "spec.ingress", "kuberay-operator-blocked")]
    # Not the head's pods, another namespace, or an egress-only policy: not this rule's business.
    assert rules([cluster, policy(same_namespace, labels={"app": "web"})]) == []
    assert rules([cluster, policy(same_namespace, namespace="other")]) == []
    assert rules([cluster, policy(same_namespace, types=["Egress"])]) == []
