"""The twin's node pools come from the scripts' own gcloud calls (tests/twin/gke.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from verl_grpo.facts.machines import (
    GIB,
    allocatable_ephemeral_bytes,
    cpu_machines,
    gpu_profiles,
    local_ssd_ephemeral,
)

from .twin.cloud import provision
from .twin.gke import (
    ACCELERATOR,
    ACCELERATOR_COUNT,
    LOCAL_SSD,
    NODEPOOL,
    SPOT,
    Call,
    autopilot_pool,
    pool_from_call,
)


def test_a_standard_cluster_has_the_pools_up_sh_creates(tmp_path: Path) -> None:
    cloud = provision("h200-standard", tmp_path)
    cluster = cloud.cluster
    assert (cluster.mode, cluster.region, cluster.zone) == ("standard", "us-central1", "us-central1-b")
    cpu, gpu = cluster.pools
    # The CPU pool: the cluster's default pool, of the values' machine and node count, not autoscaled.
    machine = cpu_machines()["c2-standard-16"]
    assert (cpu.name, cpu.machine_type, cpu.initial, cpu.max_nodes) == ("default-pool", machine.name, 2, 2)
    assert cpu.capacity["cpu"] == str(machine.vcpu) and not cpu.taints
    assert int(cpu.allocatable["ephemeral-storage"]) == int(
        allocatable_ephemeral_bytes(250)
    )  # --disk-size=250
    # The GPU pool: from zero to the workers' count, Spot, the machine's accelerator and taint.
    h200 = gpu_profiles()["h200"]
    assert (gpu.name, gpu.machine_type, gpu.initial, gpu.max_nodes) == ("gpu-pool", h200.machine_type, 0, 2)
    assert gpu.labels[ACCELERATOR] == h200.accelerator and gpu.labels[SPOT] == "true"
    assert gpu.labels[NODEPOOL] == "gpu-pool" and ACCELERATOR_COUNT not in gpu.labels
    assert gpu.allocatable["nvidia.com/gpu"] == "8"
    assert {"key": "nvidia.com/gpu", "value": "present", "effect": "NoSchedule"} in gpu.taints
    assert not gpu.topology  # Spot: GCE labels no physical topology
    # Its ephemeral storage on the machine's Local SSDs (the flag GPU_POOL_FLAGS carries).
    assert gpu.labels[LOCAL_SSD] == "true"
    assert int(gpu.allocatable["ephemeral-storage"]) == local_ssd_ephemeral(h200.local_ssds)[1]


def test_local_ssd_ephemeral_storage_follows_the_flag() -> None:
    """Without --ephemeral-storage-local-ssd a node's ephemeral storage is its boot disk's share;
    with it, the Local SSDs (count=0: the machine's bundled ones)."""
    base = [
        "--machine-type=a3-ultragpu-8g",
        "--accelerator=type=nvidia-h200-141gb,count=8",
        "--node-locations=z-b",
    ]
    boot = pool_from_call(Call.parse(base), "p", "r", cluster_has_cpu_pool=True)
    assert int(boot.allocatable["ephemeral-storage"]) == int(allocatable_ephemeral_bytes(100))
    assert LOCAL_SSD not in boot.labels
    ssd = pool_from_call(
        Call.parse([*base, "--ephemeral-storage-local-ssd=count=0"]), "p", "r", cluster_has_cpu_pool=True
    )
    capacity, allocatable = local_ssd_ephemeral(gpu_profiles()["h200"].local_ssds)
    assert int(ssd.capacity["ephemeral-storage"]) == capacity
    assert int(ssd.allocatable["ephemeral-storage"]) == allocatable
    assert ssd.labels[LOCAL_SSD] == "true"
    # 32 disks: 12,000 GiB less the measured filesystem overhead (the 24-disk figure), 10% and 100 GiB.
    assert capacity == 32 * 375 * GIB - 78686620 * 1024
    assert allocatable == int(capacity * 0.9 - 100 * GIB)


def test_a4x_pools_are_arm_reserved_and_labelled_with_their_topology(tmp_path: Path) -> None:
    cloud = provision("a4x-standard", tmp_path)
    (gpu,) = [p for p in cloud.cluster.pools if p.name == "gpu-pool"]
    assert gpu.arch == "arm64" and gpu.labels["kubernetes.io/arch"] == "arm64"
    assert {"key": "kubernetes.io/arch", "value": "arm64", "effect": "NoSchedule"} in gpu.taints
    assert gpu.reservation == "my-a4x-reservation" and gpu.topology
    assert gpu.labels["cloud.google.com/gke-networking-dra-driver"] == "true"  # DRANET's --node-labels
    assert cloud.sub_blocks == (("block-a", "sub-0", 1), ("block-a", "sub-1", 18))


@pytest.mark.parametrize("profile", ["h200-autopilot", "b200-autopilot"])
def test_autopilot_makes_a_node_per_pod_shape(profile: str, tmp_path: Path) -> None:
    cloud = provision(profile, tmp_path)
    assert cloud.cluster.mode == "autopilot" and cloud.cluster.pools == ()
    gpu = gpu_profiles()[profile.split("-")[0]]
    worker = {
        "spec": {
            "nodeSelector": {
                ACCELERATOR: gpu.accelerator,
                ACCELERATOR_COUNT: "8",
                SPOT: "true",
                "topology.kubernetes.io/zone": "us-central1-b",
            },
            "containers": [{"resources": {"requests": {"cpu": "200"}}}],
        }
    }
    pool = autopilot_pool(worker, cloud.cluster.region)
    assert pool is not None and pool.machine_type == gpu.machine_type
    assert pool.labels[ACCELERATOR_COUNT] == "8" and pool.labels[SPOT] == "true"
    assert NODEPOOL not in pool.labels
    head = {
        "spec": {
            "nodeSelector": {
                "cloud.google.com/compute-class": "Performance",
                "cloud.google.com/machine-family": "c2",
            },
            "containers": [{"resources": {"requests": {"cpu": "12"}}}],
        }
    }
    node = autopilot_pool(head, cloud.cluster.region)
    assert node is not None and node.machine_type == "c2-standard-16"  # the smallest c2 that fits 12 CPUs
    # A pod of no class (KubeRay's submitter): Autopilot's general-purpose platform, no whole node
    # of a class; a class the twin does not model makes no node.
    small = {"spec": {"containers": [{"resources": {"requests": {"cpu": "500m"}}}]}}
    general = autopilot_pool(small, cloud.cluster.region)
    assert general is not None and general.machine_type.startswith("e2-")
    assert "cloud.google.com/compute-class" not in general.labels
    scale_out = {"spec": {"nodeSelector": {"cloud.google.com/compute-class": "Scale-Out"}, "containers": []}}
    assert autopilot_pool(scale_out, cloud.cluster.region) is None
