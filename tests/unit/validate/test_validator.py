"""validate/validator.py: each document against its kind's schema (built-in or CRD), its scope and
name, then the operators' rules, and the set's rules attributed to the document they are about."""

from __future__ import annotations

import copy

import pytest

from verl_grpo.validate import DEFAULT_KUBE_VERSION
from verl_grpo.validate.documents import Document
from verl_grpo.validate.validator import MESSAGE_LIMIT, ManifestValidator

from ...conftest import objects_of_kind, render_one


@pytest.fixture(scope="module")
def validator() -> ManifestValidator:
    return ManifestValidator(crd_dirs=[])


# dist/'s placeholder bucket is refused by `validate` (dist-placeholder): render with a bucket of one's own.
BUCKET = "storage.bucket=my-training-bucket"


@pytest.fixture(scope="module")
def rendered() -> list[dict]:
    return [o.manifest for o in render_one(BUCKET).objects]


def lines(validator: ManifestValidator, *bodies: object) -> list[tuple[str, str, str, str]]:
    found = validator.validate([Document(f"doc{i}", b) for i, b in enumerate(bodies)])
    return [(p.severity, p.object, p.key, p.rule) for p in found]


def test_a_rendered_profile_is_valid_and_a_typo_in_its_ray_job_is_not(validator, rendered) -> None:
    """A render with one's own bucket is clean; a misspelt field of the RayJob is named, with
    every other unknown field of the same object."""
    assert lines(validator, *rendered) == []
    (job,) = [copy.deepcopy(b) for b in rendered if b["kind"] == "RayJob"]
    group = job["spec"]["rayClusterSpec"]["workerGroupSpecs"][0]
    group["replica"], group["minReplica"] = 2, 2  # replicas, minReplicas: the CRD closes the object
    (problem,) = validator.validate([Document("job.yaml", job)])
    assert (problem.rule, problem.key) == ("crd-schema", "spec.rayClusterSpec.workerGroupSpecs[0].minReplica")
    assert problem.message == "unknown field 'minReplica' (and 'replica')"
    assert problem.object == f"RayJob/default/{job['metadata']['name']}" and problem.source == "job.yaml"


def test_an_unknown_kind_is_an_error_unless_told_otherwise() -> None:
    """A kind no schema knows was checked for nothing: an error by default, so it cannot pass."""
    body = {"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w"}}
    (problem,) = ManifestValidator(crd_dirs=[]).validate([Document("w.yaml", body)])
    assert (problem.severity, problem.rule) == ("error", "unknown-kind")
    known = f"example.com/v1 Widget is neither a Kubernetes {DEFAULT_KUBE_VERSION} kind nor a known CRD"
    assert known in problem.message
    lenient = ManifestValidator(crd_dirs=[], unknown_kind_severity="warning")
    assert [p.severity for p in lenient.validate([Document("w.yaml", body)])] == ["warning"]
    with pytest.raises(ValueError, match="--kube-version '1.2' is not supported; allowed: "):
        ManifestValidator(kube_version="1.2", crd_dirs=[])


def test_a_cluster_scoped_kind_takes_no_namespace_builtin_or_custom(validator, rendered) -> None:
    """PersistentVolume (built in) and GKE's Network (a CRD) are cluster-scoped: no namespace."""
    pv = copy.deepcopy(next(b for b in rendered if b["kind"] == "PersistentVolume"))
    pv["metadata"]["namespace"] = "default"
    network = {
        "apiVersion": "networking.gke.io/v1",
        "kind": "Network",
        "metadata": {"name": "rdma-0", "namespace": "default"},  # GKE's Network CRD is cluster-scoped
        "spec": {"type": "Device"},
    }
    found = lines(validator, pv, network)
    assert (
        "error",
        f"PersistentVolume/default/{pv['metadata']['name']}",
        "metadata.namespace",
        "cluster-scoped-namespace",
    ) in found
    assert ("error", "Network/default/rdma-0", "metadata.namespace", "cluster-scoped-namespace") in found


def test_what_is_not_an_object_and_overlong_messages(validator) -> None:
    """A document that is no object is named as such; a long message is cut at MESSAGE_LIMIT."""
    assert lines(validator, ["a", "list"], {"kind": "ConfigMap"}) == [
        ("error", "(document)", "", "not-an-object"),
        ("error", "(document)", "", "not-an-object"),
    ]
    # The schema's message quotes the bad value whole: a line stays readable, cut at the limit.
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}}
    pod["spec"] = {"containers": [{"name": "c", "image": "x"}], "restartPolicy": "Sometimes" * 40}
    messages = [p.message for p in validator.validate([Document("pod.yaml", pod)])]
    assert len(messages) == 1 and len(messages[0]) == MESSAGE_LIMIT
    assert messages[0].startswith("'SometimesSometimes") and messages[0].endswith("...")


def test_set_findings_name_the_document_they_are_about(validator, rendered) -> None:
    """Two PVs with one volume handle: the second one's source and object carry the finding."""
    pvs = [copy.deepcopy(b) for b in rendered if b["kind"] == "PersistentVolume"][:2]
    pvs[1]["spec"]["csi"]["volumeHandle"] = pvs[0]["spec"]["csi"]["volumeHandle"]
    found = validator.validate([Document("first.yaml", pvs[0]), Document("second.yaml", pvs[1])])
    assert [(p.source, p.object, p.rule) for p in found] == [
        ("second.yaml", f"PersistentVolume/{pvs[1]['metadata']['name']}", "csi-volume-handle-unique")
    ]


def test_a_render_with_the_network_objects_checks_the_pods_interfaces(validator) -> None:
    """With Network objects in the set, every network a pod's interfaces name must be one of them."""
    rendering = render_one(BUCKET, "network.createObjects=true")
    bodies = [o.manifest for o in rendering.objects]
    networks = objects_of_kind(rendering, "Network")
    assert networks and lines(validator, *bodies) == []
    dropped = networks[-1]["metadata"]["name"]
    found = lines(validator, *[b for b in bodies if b.get("metadata", {}).get("name") != dropped])
    assert found and {rule for *_, rule in found} == {"gke-interfaces-network"}
