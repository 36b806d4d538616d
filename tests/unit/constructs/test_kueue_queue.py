"""Kueue: the queue label, topology placement, flex-start's queued provisioning, Kueue's objects."""

from __future__ import annotations

import pytest

from verl_grpo.facts.kueue import QUEUE_LABEL, QUEUED_PROVISIONING_FLAG, QUEUED_TOLERATION
from verl_grpo.problems import Problems
from verl_grpo.shell_env import pool_flags

from ...conftest import pods, render_one

QUEUED = ("queue.enabled=true",)
RESERVED = ("cluster.capacity=reservation", "cluster.reservation=r1")


def objects(rendering, kind: str) -> list[dict]:
    return [o.manifest for o in rendering.objects if o.manifest["kind"] == kind]


def workers(rendering) -> dict:
    return dict(pods(rendering))["gpu-group"]


def test_without_a_queue_nothing_changes(shipped):
    for rendering in shipped.values():
        for o in rendering.objects:
            assert QUEUE_LABEL not in o.manifest["metadata"].get("labels", {})
            assert not o.manifest["apiVersion"].startswith("kueue.x-k8s.io")
        annotations = workers(rendering)["metadata"]["annotations"]
        assert not [a for a in annotations if a.startswith("kueue.x-k8s.io")]


@pytest.mark.parametrize(
    ("kind", "profile"), [("RayJob", "b200-standard"), ("RayCluster", "b200-standard-raycluster")]
)
def test_the_run_carries_the_queue_label_and_no_suspend(kind, profile):
    r = render_one(*QUEUED, "queue.localQueue=team-a", profile=profile)
    (run,) = objects(r, kind)
    assert run["metadata"]["labels"][QUEUE_LABEL] == "team-a"
    assert run["metadata"]["labels"]["app.kubernetes.io/name"] == "verl-grpo"  # the chart's stay
    assert "suspend" not in run["spec"]  # Kueue's webhook suspends it; GitOps must not fight it


@pytest.mark.parametrize(
    ("mode", "annotation"),
    [
        ("none", None),
        ("required", "kueue.x-k8s.io/podset-required-topology"),
        ("preferred", "kueue.x-k8s.io/podset-preferred-topology"),
    ],
)
def test_topology_placement_is_asked_for_the_workers_only(mode, annotation):
    r = render_one(
        *QUEUED,
        *RESERVED,
        f"queue.topology.mode={mode}",
        "queue.topology.level=cloud.google.com/gce-topology-block",
    )
    asked = {k: v for k, v in workers(r)["metadata"]["annotations"].items() if k.startswith("kueue.x-k8s.io")}
    assert asked == ({} if annotation is None else {annotation: "cloud.google.com/gce-topology-block"})
    head = dict(pods(r))["head"]["metadata"]["annotations"]
    assert not [k for k in head if k.startswith("kueue.x-k8s.io")]


def test_flex_start_through_kueue_uses_queued_provisioning():
    queued = render_one(*QUEUED, "cluster.capacity=flex-start")
    assert workers(queued)["spec"]["tolerations"][-1] == QUEUED_TOLERATION
    assert QUEUED_PROVISIONING_FLAG in pool_flags(queued.spec.values, 2)
    plain = render_one("cluster.capacity=flex-start")
    assert QUEUED_TOLERATION not in workers(plain)["spec"]["tolerations"]
    assert QUEUED_PROVISIONING_FLAG not in pool_flags(plain.spec.values, 2)


def test_kueue_objects_cover_the_run_and_place_it():
    r = render_one(
        *QUEUED,
        "queue.createObjects=true",
        "cluster.capacity=flex-start",
        "queue.clusterQueue=gpus",
    )
    (local,) = objects(r, "LocalQueue")
    assert local["metadata"]["namespace"] == "default" and local["spec"] == {"clusterQueue": "gpus"}
    (cq,) = objects(r, "ClusterQueue")
    assert "namespace" not in cq["metadata"] and cq["spec"]["namespaceSelector"] == {}
    (group,) = cq["spec"]["resourceGroups"]
    assert [f["name"] for f in group["flavors"]] == ["gpus-cpu", "gpus-gpu"]  # CPU pods land first
    gpu_quota = {f["name"]: {q["name"]: q["nominalQuota"] for q in f["resources"]} for f in group["flavors"]}
    assert gpu_quota["gpus-cpu"]["nvidia.com/gpu"] == 0 and gpu_quota["gpus-gpu"]["nvidia.com/gpu"] == 16
    # Every resource a pod asks for is covered, or Kueue never admits the run.
    asked = {
        res for _, pod in pods(r) for c in pod["spec"]["containers"] for res in c["resources"]["requests"]
    }
    assert asked <= set(group["coveredResources"])
    flavors = {f["metadata"]["name"]: f["spec"] for f in objects(r, "ResourceFlavor")}
    assert flavors["gpus-gpu"]["nodeLabels"] == workers(r)["spec"]["nodeSelector"]
    assert flavors["gpus-cpu"]["nodeLabels"] == dict(pods(r))["head"]["spec"]["nodeSelector"]
    (check,) = objects(r, "AdmissionCheck")
    (config,) = objects(r, "ProvisioningRequestConfig")
    assert check["spec"]["parameters"]["name"] == config["metadata"]["name"]
    assert config["spec"]["provisioningClassName"] == "queued-provisioning.gke.io"
    assert cq["spec"]["admissionChecksStrategy"] == {
        "admissionChecks": [{"name": check["metadata"]["name"], "onFlavors": ["gpus-gpu"]}]
    }


def test_topology_placement_asks_for_the_reserved_nodes_before_kueue_places_the_workers():
    """The pools start at zero and Kueue places by the nodes there are: an atomic capacity request
    on the GPU flavor first, and the flavor names the Topology."""
    r = render_one(*QUEUED, *RESERVED, "queue.createObjects=true", "queue.topology.mode=required")
    flavors = {f["metadata"]["name"]: f["spec"] for f in objects(r, "ResourceFlavor")}
    (topology,) = objects(r, "Topology")
    gpu_flavor = next(name for name in flavors if name.endswith("-gpu"))
    assert flavors[gpu_flavor]["topologyName"] == topology["metadata"]["name"]
    assert all("topologyName" not in f for name, f in flavors.items() if name != gpu_flavor)
    assert topology["spec"]["levels"][-1] == {"nodeLabel": "kubernetes.io/hostname"}
    (check,) = objects(r, "AdmissionCheck")
    (config,) = objects(r, "ProvisioningRequestConfig")
    assert check["spec"]["parameters"]["name"] == config["metadata"]["name"]
    assert config["spec"] == {
        "provisioningClassName": "best-effort-atomic-scale-up.autoscaling.x-k8s.io",
        "managedResources": ["nvidia.com/gpu"],
    }
    (cq,) = objects(r, "ClusterQueue")
    assert cq["spec"]["admissionChecksStrategy"] == {
        "admissionChecks": [{"name": check["metadata"]["name"], "onFlavors": [gpu_flavor]}]
    }


@pytest.mark.parametrize("capacity", ["spot", "on-demand", "flex-start"])
def test_topology_placement_is_refused_on_capacity_gce_gives_no_topology_labels(capacity):
    with pytest.raises(Problems) as refused:
        render_one(*QUEUED, f"cluster.capacity={capacity}", "queue.topology.mode=preferred")
    assert [p.rule for p in refused.value.problems] == ["topology-needs-reservation"], refused.value


def test_without_flex_start_or_placement_no_check_and_no_topology_on_the_flavor():
    r = render_one(*QUEUED, "queue.createObjects=true")
    assert objects(r, "AdmissionCheck") == [] and objects(r, "ProvisioningRequestConfig") == []
    (cq,) = objects(r, "ClusterQueue")
    assert "admissionChecksStrategy" not in cq["spec"]
    assert all("topologyName" not in f["spec"] for f in objects(r, "ResourceFlavor"))


MIXED = (
    "cluster.capacity=reservation,cluster.reservation=r1,workerGroups.gpu-group=null,"
    "workerGroups.reserved.replicas=1,workerGroups.spot.replicas=1,workerGroups.spot.capacity=spot"
)


@pytest.mark.parametrize("profile", ["h200-standard", "h200-autopilot"])
def test_groups_of_several_capacities_share_the_gpu_flavor_by_the_machine_labels(profile):
    """Kueue gives a pod set only a flavor its selectors match, and adds the flavor's labels to the
    admitted pods: with a reserved and a spot group the one GPU flavor names the machine alone,
    labels both groups select, and no capacity's."""
    sets = (*QUEUED, "queue.createObjects=true", MIXED)
    if profile.endswith("autopilot"):
        sets = (*sets, "cluster.zone=us-central1-b")
    r = render_one(*sets, profile=profile)
    (flavor,) = [f for f in objects(r, "ResourceFlavor") if f["metadata"]["name"].endswith("-gpu")]
    labels = flavor["spec"]["nodeLabels"]
    for name in ("reserved", "spot"):
        assert labels.items() <= dict(pods(r))[name]["spec"]["nodeSelector"].items(), name
    assert labels["cloud.google.com/gke-accelerator"] == "nvidia-h200-141gb"
    capacity = {
        "cloud.google.com/gke-spot",
        "cloud.google.com/reservation-name",
        "cloud.google.com/gke-flex-start",
    }
    assert not capacity & set(labels)


def test_a_flex_start_group_among_others_is_refused_with_the_queue_objects():
    from verl_grpo.problems import Problems

    flex = MIXED.replace("capacity=spot", "capacity=flex-start")
    with pytest.raises(Problems, match=r"queue\.createObjects: .*flex-start groups cannot be mixed"):
        render_one(*QUEUED, "queue.createObjects=true", flex)
    render_one(*QUEUED, flex)  # a platform's ClusterQueue may hold each its own flavor and check


@pytest.mark.parametrize(
    ("profile", "sets"),
    [
        ("a4x-standard", ()),
        ("b200-standard", ("network.rdma=dranet",)),
        ("h200-standard", ("network.rdma=dranet",)),
    ],
)
def test_a_queued_run_whose_pods_claim_devices_is_refused(profile, sets):
    """Kueue v0.19.2 refuses DRANET's allocationMode All claim and unmapped DeviceClasses
    (pkg/dra/claims.go): refused before anything is rendered, naming the way out."""
    with pytest.raises(Problems) as refused:
        render_one(*QUEUED, *sets, profile=profile)
    assert [p.rule for p in refused.value.problems] == ["queue-without-device-claims"], refused.value
    assert "run it without queue.enabled" in str(refused.value)
    render_one(*sets, profile=profile)  # the same run without the queue renders
