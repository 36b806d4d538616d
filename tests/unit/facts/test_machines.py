"""facts/machines.py: machine facts from data/ and what GKE leaves allocatable on them."""

from __future__ import annotations

import dataclasses
from importlib import resources

import pytest

from verl_grpo.facts.machines import (
    GIB,
    GPU_BOOT_DISK_GB,
    LOCAL_SSD_GIB,
    allocatable_cpu,
    allocatable_ephemeral_bytes,
    allocatable_memory_gib,
    cpu_machines,
    gpu_node_ephemeral_bytes,
    gpu_profiles,
    local_ssd_ephemeral,
    nccl_gate_threshold,
)


def test_the_data_files_are_read_as_their_machines() -> None:
    """data/gpus/<name>.yaml is the profile <name>; its NCCL env names the tuner file only where gIB
    publishes one (A4X has none). data/cpu-machines.yaml: GCE's -standard-N types have N vCPUs and
    4 GB of memory per vCPU."""
    folder = resources.files("verl_grpo") / "data" / "gpus"
    files = {e.name.removesuffix(".yaml") for e in folder.iterdir() if e.name.endswith(".yaml")}
    assert files and set(gpu_profiles()) == files
    for name, gpu in gpu_profiles().items():
        env = dict(gpu.nccl_env)
        assert gpu.name == name and list(env) == sorted(env)
        assert env.get("NCCL_TUNER_CONFIG_PATH") == (gpu.nccl_tuner_config or None)
    assert "NCCL_TUNER_CONFIG_PATH" not in dict(gpu_profiles()["a4x"].nccl_env)
    for name, machine in cpu_machines().items():
        assert "-standard-" in name and machine.vcpu == int(name.rsplit("-", 1)[1])
        assert machine.memory_gb == 4 * machine.vcpu


def test_the_nccl_gate_asks_a_quarter_of_the_line_rate_in_bytes() -> None:
    """3200 Gb/s is 400 GB/s: a quarter is 100 GB/s of bus bandwidth; A4X's 1600 Gb/s gives 50."""
    assert nccl_gate_threshold(3200) == 100 and nccl_gate_threshold(1600) == 50
    assert gpu_profiles()["b200"].nccl_gate_min_bus_gbps == 100  # 8 CX-7 NICs of 400 Gbps (data/gpus/)


@pytest.mark.parametrize(("vcpu", "allocatable"), [(1, 0.94), (2, 1.93), (4, 3.92), (8, 7.91), (224, 223.37)])
def test_gke_reserves_cpu_by_its_documented_tiers(vcpu: int, allocatable: float) -> None:
    """6% of the first core, 1% of the second, 0.5% of cores 3-4, 0.25% above (by hand)."""
    assert allocatable_cpu(vcpu) == pytest.approx(allocatable)


def test_memory_above_128_gib_loses_two_percent_and_allocatable_stays_below_the_machine() -> None:
    """Between two machines above 128 GiB, each extra GiB leaves 0.98 GiB to pods; allocatable grows
    with the machine and always stays below its memory."""
    small, large = 1000, 2000  # GB, both above 128 GiB
    gained = allocatable_memory_gib(large) - allocatable_memory_gib(small)
    assert gained == pytest.approx(0.98 * (large - small) * 1e9 / GIB)
    sizes = [4, 8, 16, 32, 64, 128, 256, 2952]
    values = [allocatable_memory_gib(gb) for gb in sizes]
    assert values == sorted(values)
    assert all(0 < v < gb * 1e9 / GIB for v, gb in zip(values, sizes, strict=True))


def test_local_ssds_lose_overhead_and_a_reservation_by_count() -> None:
    """Capacity is below the raw disks and grows with each disk; 9 to 16 disks share the 16-disk
    overhead figure (and 17 to 24 the 24-disk one); GKE reserves 50 GiB for one disk, 75 for two and
    100 from three (plus the 10% eviction threshold)."""
    capacity = {n: local_ssd_ephemeral(n)[0] for n in range(1, 33)}
    assert all(capacity[n] < n * LOCAL_SSD_GIB * GIB for n in capacity)
    assert all(capacity[n] < capacity[n + 1] for n in range(1, 32))
    assert capacity[16] - capacity[9] == 7 * LOCAL_SSD_GIB * GIB
    assert capacity[24] - capacity[17] == 7 * LOCAL_SSD_GIB * GIB
    for count, reserved_gib in ((1, 50), (2, 75), (3, 100), (32, 100)):
        cap, allocatable = local_ssd_ephemeral(count)
        assert 0.9 * cap - allocatable == pytest.approx(reserved_gib * GIB, abs=1)


def test_a_gpu_node_offers_its_local_ssds_else_a_boot_disk_less_gke_s_share() -> None:
    """Machines with bundled Local SSDs use them; without, the pool's 1000 GB boot disk. gcloud's
    default 100 GB boot disk leaves about 45 GiB (the module's comment); past the 100 GiB reservation
    cap each extra GB leaves 90% (the eviction threshold only)."""
    assert 44 * GIB < allocatable_ephemeral_bytes(100) < 46 * GIB
    assert allocatable_ephemeral_bytes(2000) - allocatable_ephemeral_bytes(1000) == pytest.approx(
        0.9 * 1000e9
    )
    for gpu in gpu_profiles().values():
        if gpu.local_ssds:
            assert gpu_node_ephemeral_bytes(gpu) == local_ssd_ephemeral(gpu.local_ssds)[1]
        bare = dataclasses.replace(gpu, local_ssds=0)
        assert gpu_node_ephemeral_bytes(bare) == allocatable_ephemeral_bytes(GPU_BOOT_DISK_GB)
    b200 = gpu_profiles()["b200"]  # 32 bundled Local SSDs (data/gpus/b200.yaml)
    assert gpu_node_ephemeral_bytes(b200) > 10 * gpu_node_ephemeral_bytes(
        dataclasses.replace(b200, local_ssds=0)
    )


def test_a_quota_family_for_every_machine_not_only_from_a_reservation() -> None:
    """doctor.sh looks the run's GPU quota up by family; a machine that comes only from a
    reservation needs none (https://cloud.google.com/compute/resource-usage#gpu_quota)."""
    for name, gpu in gpu_profiles().items():
        assert bool(gpu.quota_family) == (gpu.capacities != ("reservation",)), name
        assert gpu.quota_family in ("", f"NVIDIA_{name.upper()}"), name
