"""values/gke_versions.py: a profile's GKE version floor, the highest minimum over the features it
uses (data/gke-features.yaml, and each GPU's GPUDirect RDMA minimum in data/gpus/)."""

from __future__ import annotations

import pytest

from verl_grpo.facts.machines import gpu_profiles
from verl_grpo.values.gke_versions import features, floor, used_features, version_key
from verl_grpo.values.model import Values


def names(values: dict) -> set[str]:
    return {f.name for f in used_features(Values.model_validate(values))}


def test_gke_versions_compare_as_numbers_not_text() -> None:
    """1.33.10 is newer than 1.33.9, and gke.1000 newer than gke.999, though both sort lower as text."""
    assert version_key("1.33.5-gke.1162000") == (1, 33, 5, 1162000)
    assert version_key("1.33.10-gke.1") > version_key("1.33.9-gke.999999")
    assert version_key("1.34.0-gke.1000") > version_key("1.34.0-gke.999")


@pytest.mark.parametrize("text", ["1.33", "1.33.5", "v1.33.5-gke.1", "1.33.5-gke.", "1.33.5-gke.1 "])
def test_a_malformed_version_is_refused_with_an_example(text: str) -> None:
    """The scripts compare GKE_VERSION with the floor: a version not in GKE's form is an error that shows the
    form."""
    with pytest.raises(ValueError, match="is not a GKE version like 1.33.5-gke.1162000"):
        version_key(text)


def test_every_feature_has_a_gke_version_and_a_source() -> None:
    """Each minimum in data/gke-features.yaml parses as a GKE version and cites where it comes from."""
    assert {"ray-operator-addon", "flex-start", "dranet", "dra"} <= set(features())
    for name, feature in features().items():
        assert feature.name == name and feature.source.strip()
        version_key(feature.min)  # raises on a minimum that is not a GKE version


def test_the_floor_is_the_highest_minimum_of_the_features_used() -> None:
    """The floor is the one feature whose minimum no other used feature exceeds."""
    v = Values()
    used = used_features(v)
    top = floor(v)
    assert top in used and all(version_key(f.min) <= version_key(top.min) for f in used)
    # GPUDirect RDMA on the default machine is one of them, at data/gpus/b200.yaml's minimum.
    (rdma,) = [f for f in used if f.name == "gpudirect-rdma-b200"]
    assert rdma.min == gpu_profiles()["b200"].min_gke_version


def test_features_follow_the_values() -> None:
    """Flex-start (and queued provisioning with Kueue), DRANET, Autopilot reservations and a
    machine with multi-node NVLink (a DRA claim for its IMEX channel) each raise the floor."""
    base = names({})
    assert not base & {
        "flex-start",
        "queued-provisioning",
        "dranet",
        "dra",
        "autopilot-reservation-accelerator",
    }
    assert names({"cluster": {"capacity": "flex-start"}}) - base == {"flex-start"}
    assert names({"cluster": {"capacity": "flex-start"}, "queue": {"enabled": True}}) - base == {
        "flex-start",
        "queued-provisioning",
    }
    assert names({"queue": {"enabled": True}}) == base  # queued provisioning is flex-start's
    reserved = {"capacity": "reservation", "mode": "autopilot", "zone": "us-central1-b"}
    assert names({"cluster": reserved}) - base == {"autopilot-reservation-accelerator"}
    dranet = Values.model_validate({"network": {"rdma": "dranet"}})
    assert floor(dranet) == features()["dranet"]  # 1.34.1: above every default feature
    a4x = names({"gpu": {"type": "a4x"}, "cluster": {"capacity": "reservation"}})
    assert {"dra", "gpudirect-rdma-a4x"} <= a4x and "gpudirect-rdma-b200" not in a4x


def test_each_worker_groups_machine_brings_its_rdma_minimum() -> None:
    """A group on another machine needs that machine's GPUDirect RDMA too, beside gpu.type's."""
    groups = {"workerGroups": {"gpu-group": {"replicas": 1}, "other": {"replicas": 1, "machine": "h200"}}}
    assert {"gpudirect-rdma-b200", "gpudirect-rdma-h200"} <= names(groups)
