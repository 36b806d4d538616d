"""Machine facts (data files) and what GKE leaves allocatable on them."""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cache
from importlib import resources

import yaml

GIB = 2**30


@dataclass(frozen=True)
class GpuProfile:
    """One GPU node type, read from data/gpus/<name>.yaml."""

    name: str
    machine_type: str
    accelerator: str
    gpus_per_node: int
    vcpu: int
    memory_gb: int
    gpu_memory_gb: int
    nccl_tuner_config: str
    min_gke_version: str
    gpu_network_gbps: int
    rdma_nics: int  # RoCE NICs: RDMA subnets, Network objects and pod interfaces
    arch: str  # kubernetes.io/arch of the node
    modes: tuple[str, ...]  # cluster modes the machine is offered in
    capacities: tuple[str, ...]  # cluster.capacity values GKE offers it with
    sub_block_nodes: int | None  # nodes in one sub-block, where Google publishes the number
    boot_disk_type: str  # the GPU pool's --disk-type where GKE's default is refused, or ""
    local_ssds: int  # Local SSDs (375 GiB each) bundled with the machine; 0: none
    accelerator_topology: str  # a workload policy's --accelerator-topology the pool needs, or ""
    imex: bool  # multi-node NVLink: pods need an IMEX channel (a ComputeDomain)
    # NCCL settings of the Ray workers on top of set_nccl_env.sh: the machine's tuner file (when
    # gIB publishes one) and what Google sets beyond the script (ncclEnv; constructs/runtime_env.py).
    nccl_env: tuple[tuple[str, str], ...]
    nccl_gate_min_bus_gbps: int  # nccl_gate_threshold
    # Compute Engine's GPU family of its quota (gpu_family:<it>, https://cloud.google.com/compute/
    # resource-usage#gpu_quota); "" where the machine comes only from a reservation, which needs none.
    quota_family: str = ""


def nccl_gate_threshold(gpu_network_gbps: int) -> int:
    """The NCCL gate's default threshold: a quarter of the node's GPU network in GB/s of all-reduce
    bus bandwidth. Our choice, not a vendor figure: a ring over RDMA between two nodes approaches
    the node's line rate (nccl-tests doc/PERFORMANCE.md: busbw is comparable to the hardware's
    peak), while NCCL fallen back to TCP over the gVNIC, or a NIC missing, lands far below a
    quarter of it."""
    return gpu_network_gbps // 8 // 4


@dataclass(frozen=True)
class CpuMachine:
    name: str
    vcpu: int
    memory_gb: int


@cache
def gpu_profiles() -> dict[str, GpuProfile]:
    folder = resources.files("verl_grpo") / "data" / "gpus"
    profiles = {}
    for entry in sorted(folder.iterdir(), key=lambda e: e.name):
        if not entry.name.endswith(".yaml"):
            continue
        d = yaml.safe_load(entry.read_text())
        profiles[d["name"]] = GpuProfile(
            name=d["name"],
            machine_type=d["machineType"],
            accelerator=d["accelerator"],
            gpus_per_node=int(d["gpusPerNode"]),
            vcpu=int(d["vcpu"]),
            memory_gb=int(d["memoryGB"]),
            gpu_memory_gb=int(d["gpuMemoryGB"]),
            nccl_tuner_config=d["ncclTunerConfig"],
            min_gke_version=d["minGkeVersion"],
            gpu_network_gbps=int(d["gpuNetworkGbps"]),
            rdma_nics=int(d["rdmaNics"]),
            arch=d["arch"],
            modes=tuple(d["modes"]),
            capacities=tuple(d["capacities"]),
            sub_block_nodes=d.get("subBlockNodes"),
            accelerator_topology=d.get("acceleratorTopology", ""),
            boot_disk_type=d.get("bootDiskType", ""),
            local_ssds=int(d.get("localSsds", 0)),
            imex=bool(d.get("imex", False)),
            quota_family=d.get("quotaFamily", ""),
            nccl_env=tuple(
                sorted(
                    (
                        ({"NCCL_TUNER_CONFIG_PATH": d["ncclTunerConfig"]} if d["ncclTunerConfig"] else {})
                        | {str(k): str(v) for k, v in (d.get("ncclEnv") or {}).items()}
                    ).items()
                )
            ),
            nccl_gate_min_bus_gbps=nccl_gate_threshold(int(d["gpuNetworkGbps"])),
        )
    return profiles


@cache
def cpu_machines() -> dict[str, CpuMachine]:
    text = (resources.files("verl_grpo") / "data" / "cpu-machines.yaml").read_text()
    return {k: CpuMachine(k, int(v["vcpu"]), int(v["memoryGB"])) for k, v in yaml.safe_load(text).items()}


def allocatable_cpu(vcpu: int) -> float:
    """GKE kube-reserved CPU: 6% of core 1, 1% of core 2, 0.5% of cores 3-4, 0.25% above."""
    tiers = [(1, 0.06), (1, 0.01), (2, 0.005), (math.inf, 0.0025)]
    return vcpu - _tiered(vcpu, tiers)


def allocatable_memory_gib(memory_gb: int) -> float:
    """GKE kube-reserved memory (255 MiB + tiered share) and the 100 MiB eviction threshold."""
    total = memory_gb * 1e9 / GIB
    tiers = [(4, 0.25), (4, 0.20), (8, 0.10), (112, 0.06), (math.inf, 0.02)]
    return total - 255 / 1024 - _tiered(total, tiers) - 100 / 1024


def _tiered(amount: float, tiers: list[tuple[float, float]]) -> float:
    reserved, left = 0.0, amount
    for size, share in tiers:
        part = min(left, size)
        reserved += part * share
        left -= part
        if left <= 0:
            break
    return reserved


def allocatable_ephemeral_bytes(boot_disk_gb: int) -> float:
    """Boot-disk-backed ephemeral storage GKE leaves to pods: the disk minus an eviction threshold
    of 10% and a system reservation of min(50%, 6 GiB + 35%, 100 GiB) (GKE "Node allocatable",
    https://cloud.google.com/kubernetes-engine/docs/concepts/plan-node-sizes; the page notes the
    reservation differs by node image: COS figures)."""
    disk = boot_disk_gb * 1e9
    reserved = min(0.5 * disk, 6 * GIB + 0.35 * disk, 100 * GIB)
    return disk - 0.1 * disk - reserved


LOCAL_SSD_GIB = 375  # each Local SSD disk (https://cloud.google.com/compute/docs/disks/local-ssd)
DEFAULT_BOOT_DISK_GB = 100  # a node pool's --disk-size when none is given (gcloud's default)
# A GPU pool's boot disk on a machine with no bundled Local SSDs (--disk-size): the model, the image
# and the file cache live on it, which gcloud's 100 GB (about 45 GiB for pods) cannot hold. Our choice.
GPU_BOOT_DISK_GB = 1000


def local_ssd_ephemeral(count: int) -> tuple[int, int]:
    """Capacity and allocatable ephemeral storage on ``count`` Local SSDs (bytes).

    Capacity: the disks less the filesystem's overhead as cluster-autoscaler measured it on GKE's
    COS nodes (cloudprovider/gce/gce_reserved.go@cluster-autoscaler-1.36.1
    ephemeralStorageOnLocalSSDFilesystemOverheadInKiBByOSAndDiskCount; counts above 16 take the
    24-disk figure, as EphemeralStorageOnLocalSSDFilesystemOverheadInBytes does). Allocatable: that
    less the kubelet's 10% nodefs eviction threshold (same file,
    defaultKubeletEvictionHardEphemeralStorageRatio) and GKE's system reservation for Local-SSD
    ephemeral storage, 100 GiB from three disks up (GKE "Plan node sizes", Local SSD-backed
    ephemeral storage: 50 GiB for one disk, 75 GiB for two; the 100 GiB figure could not be
    re-read from a stored copy of the page)."""
    overhead_kib = {1: 7289472, 2: 13725224, 3: 20031312, 4: 26332924, 5: 32634536, 6: 38946604}
    overhead_kib |= {7: 45254008, 8: 51556096, 16: 52837800, 24: 78686620}
    measured = count if count <= 8 else (16 if count <= 16 else 24)
    capacity = count * LOCAL_SSD_GIB * GIB - overhead_kib[measured] * 1024
    reserved = {1: 50, 2: 75}.get(count, 100) * GIB
    return capacity, math.floor(capacity - 0.1 * capacity - reserved)


def gpu_node_ephemeral_bytes(gpu: GpuProfile) -> float:
    """Ephemeral storage a GPU node offers its pods: the machine's bundled Local SSDs, which the
    scripts' pools attach as ephemeral storage (shell_env.LOCAL_SSD_FLAG), else the pool's boot
    disk (GPU_BOOT_DISK_GB). The same figure bounds an Autopilot GPU pod: its ephemeral-storage
    ceiling "on hardware with Local SSDs" is "the Local SSD capacity minus GKE's system overhead"
    (GKE "Resource requests in Autopilot", #min-max-requests, as quoted in a stored copy; the
    page's per-GPU table for H200, B200 and GB200 could not be read: Autopilot's admission error
    names the exact figure)."""
    if gpu.local_ssds:
        return float(local_ssd_ephemeral(gpu.local_ssds)[1])
    return allocatable_ephemeral_bytes(GPU_BOOT_DISK_GB)
