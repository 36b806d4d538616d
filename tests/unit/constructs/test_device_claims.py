"""constructs/device_claims.py: DRANET's NIC claim and A4X's IMEX channel, and what the workers add."""

from __future__ import annotations

from typing import Any

from ...conftest import render_one


def objects(*sets: str, profile: str) -> list[dict[str, Any]]:
    return [o.manifest for o in render_one(*sets, profile=profile).objects]


def worker(objs: list[dict[str, Any]]) -> dict[str, Any]:
    job = next(o for o in objs if o["kind"] in {"RayJob", "RayCluster"})
    spec = job["spec"].get("rayClusterSpec", job["spec"])
    (group,) = spec["workerGroupSpecs"]
    return group["template"]


def kinds(objs: list[dict[str, Any]]) -> list[str]:
    return [o["kind"] for o in objs]


def test_multi_networking_claims_nothing() -> None:
    objs = objects(profile="b200-standard")
    pod = worker(objs)
    assert "ResourceClaimTemplate" not in kinds(objs) and "ComputeDomain" not in kinds(objs)
    assert "resourceClaims" not in pod["spec"] and "claims" not in pod["spec"]["containers"][0]["resources"]
    assert "networking.gke.io/interfaces" in pod["metadata"]["annotations"]


def test_dranet_claims_every_nic_of_the_node_instead_of_interfaces() -> None:
    objs = objects("network.rdma=dranet", profile="b200-standard")
    (template,) = [o for o in objs if o["kind"] == "ResourceClaimTemplate"]
    (request,) = template["spec"]["spec"]["devices"]["requests"]
    assert request["exactly"] == {"deviceClassName": "mrdma.google.com", "allocationMode": "All"}
    pod = worker(objs)
    assert pod["spec"]["resourceClaims"] == [{"name": "rdma", "resourceClaimTemplateName": "verl-rdma"}]
    assert pod["spec"]["containers"][0]["resources"]["claims"] == [{"name": "rdma"}]
    assert pod["spec"]["nodeSelector"]["cloud.google.com/gke-networking-dra-driver"] == "true"
    assert not any(k.startswith("networking.gke.io/") for k in pod["metadata"]["annotations"])
    assert "Network" not in kinds(
        objects("network.rdma=dranet", "network.createObjects=true", profile="b200-standard")
    )


def test_a4x_workers_claim_an_imex_channel_of_a_domain_named_after_its_size() -> None:
    objs = objects(profile="a4x-standard")
    (domain,) = [o for o in objs if o["kind"] == "ComputeDomain"]
    assert domain["spec"]["numNodes"] == 2
    channel = domain["spec"]["channel"]["resourceClaimTemplate"]["name"]
    assert channel == f"{domain['metadata']['name']}-channel"
    pod = worker(objs)
    assert {"name": "imex-channel", "resourceClaimTemplateName": channel} in pod["spec"]["resourceClaims"]
    assert pod["spec"]["nodeSelector"]["kubernetes.io/arch"] == "arm64"
    assert {"key": "kubernetes.io/arch", "operator": "Equal", "value": "arm64", "effect": "NoSchedule"} in (
        pod["spec"]["tolerations"]
    )
    # The spec is immutable on the server: a new size is a new domain, not a refused update.
    (bigger,) = [
        o
        for o in objects("workerGroups.gpu-group.replicas=4", profile="a4x-standard")
        if o["kind"] == "ComputeDomain"
    ]
    assert bigger["metadata"]["name"] != domain["metadata"]["name"] and bigger["spec"]["numNodes"] == 4
