"""`verl-grpo env`: the shell variables the gcloud scripts need, from the same values as the manifests."""

from __future__ import annotations

import ipaddress
import shlex

from .constructs.data_prep_job import data_prep_account, release_downloads
from .constructs.verl_ray_cluster import ray_auth_secret
from .facts.capacity import AUTOSCALE_FLAGS, CAPACITIES
from .facts.kueue import QUEUED_PROVISIONING_FLAG
from .facts.machines import GPU_BOOT_DISK_GB, GpuProfile, gpu_profiles
from .facts.networks import DRANET_POOL_FLAGS, nic_networks
from .facts.pins import rdma_installer
from .pod.preflight import MARKER
from .profiles import Profile
from .rules.cluster_pools import RECORDS, pool_records, records_access
from .values.derive import DeploySpec
from .values.gke_versions import floor
from .values.model import SUB_BLOCK_LEVEL, Values
from .values.worker_groups import GroupView, group_views

# A /16 holds the gVNIC subnet and the RDMA subnets (8 at most) as /24s, in NIC order.
DEFAULT_NETWORK_BASE = "10.100.0.0/16"


def subnet_ranges(base: str, count: int) -> list[str]:
    network = ipaddress.ip_network(base, strict=True)
    if network.prefixlen > 24 - (count - 1).bit_length():
        raise ValueError(f"--network-base {base}: too small for {count} /24 subnets")
    return [str(s) for _, s in zip(range(count), network.subnets(new_prefix=24), strict=False)]


def sub_block_sizes(v: Values, gpu: GpuProfile, views: list[GroupView]) -> list[int]:
    """For each worker group's pool, the workers a reservation keeps in one sub-block, or 0: by
    A4X's placement policy (one per pool), or by Kueue (one per pod set)."""
    q = v.queue
    required = q.enabled and q.topology.mode == "required" and q.topology.level == SUB_BLOCK_LEVEL
    if not (gpu.accelerator_topology or required):
        return [0 for _ in views]
    return [g.replicas if g.values.cluster.capacity == "reservation" else 0 for g in views]


LOCAL_SSD_FLAG = "--ephemeral-storage-local-ssd=count=0"


def group_pool_flags(view: GroupView, dranet: bool) -> str:
    """A worker group's pool: its machine's type and GPUs (GKE's driver), its capacity and size
    (facts/capacity.py), DRANET's flags, its machine's boot disk where GKE's default is refused."""
    gpu = gpu_profiles()[view.values.gpu.type]
    # gpu-driver-version=latest: "Install the latest available driver version for your GKE
    # version. Available only for nodes that use Container-Optimized OS"
    # (https://cloud.google.com/kubernetes-engine/docs/how-to/gpus).
    accelerator = f"type={gpu.accelerator},count={gpu.gpus_per_node},gpu-driver-version=latest"
    return " ".join(
        [
            f"--machine-type={gpu.machine_type}",
            f"--accelerator={accelerator}",
            # The machine's bundled Local SSDs as the node's ephemeral storage (the workers' model,
            # image and file cache live there), as Google's blueprints attach them (cluster-toolkit
            # modules/compute/gke-node-pool/disk_definitions.tf, data/gpus localSsds). Without it a
            # node offers its 100 GB boot disk's share; a machine without them gets a larger boot
            # disk (machines.GPU_BOOT_DISK_GB). count=0: "for Gen3 machines which dictate a
            # specific number of local ssds, zero ... means to use the default number of local ssds
            # that goes with that machine type" (GKE API EphemeralStorageLocalSsdConfig.local_ssd_count).
            *([LOCAL_SSD_FLAG] if gpu.local_ssds else [f"--disk-size={GPU_BOOT_DISK_GB}"]),
            *pool_flags(view.values, view.replicas),
            *(DRANET_POOL_FLAGS if dranet else ()),
            *([f"--disk-type={gpu.boot_disk_type}"] if gpu.boot_disk_type else []),
        ]
    )


def shell_env(spec: DeploySpec, profile: Profile, network_base: str = DEFAULT_NETWORK_BASE) -> dict[str, str]:
    v, gpu = spec.values, spec.gpu
    nets = nic_networks(v.network.prefix, gpu.rdma_nics)
    dranet = v.network.rdma == "dranet"
    ranges = subnet_ranges(network_base, len(nets))
    views = group_views(v)
    gke_floor = floor(v)
    return {
        "PROFILE": profile.name,
        "DIST_DIR": f"dist/{profile.name}",
        "GPU_TYPE": gpu.name,
        "MACHINE_TYPE": gpu.machine_type,
        "ACCELERATOR": gpu.accelerator,
        "GPUS_PER_NODE": str(gpu.gpus_per_node),
        "QUOTA_FAMILY": gpu.quota_family,  # doctor.sh: the GPU quota to look up
        "KUBERAY_VERSION": v.kuberay.version,
        "MIN_GKE_VERSION": gke_floor.min,
        "MIN_GKE_FEATURE": f"{gke_floor.name} ({gke_floor.source})",
        "CLUSTER_MODE": v.cluster.mode,
        "CAPACITY": v.cluster.capacity,
        "RESERVATION": v.cluster.reservation,
        # For each pool (GPU_POOLS), the workers that must share one sub-block of the reservation,
        # or 0: 30-gpu-pool.sh finds each such pool a healthy sub-block with that many hosts left
        # before it creates any, and creates the pool in it.
        "POOL_SUB_BLOCK_NODES": " ".join(str(n) for n in sub_block_sizes(v, gpu, views)),
        "VALUES_ZONE": v.cluster.zone,
        # A pool per worker group, each of its group's machine, with its capacity and autoscaling
        # from 0 to its replicas (facts/capacity.py, values/worker_groups.py): names, and flags
        # one line each.
        "GPU_POOLS": " ".join(view.pool for view in views),
        "POOL_NODES": " ".join(str(view.replicas) for view in views),
        "POOL_CAPACITIES": " ".join(view.values.cluster.capacity for view in views),
        "GPU_POOL_FLAGS": "\n".join(group_pool_flags(view, dranet) for view in views),
        # 40-rdma.sh records each pool in the cluster, for the chart's guard (rules/cluster_pools.py).
        "POOL_RECORDS": pool_records(spec, profile.name),
        "POOL_RECORDS_ACCESS": records_access(),
        "POOL_RECORDS_CONFIGMAP": RECORDS,
        # multi-network: VPCs, pool networks and Network objects; dranet: none (facts/networks.py).
        "RDMA_MODE": v.network.rdma,
        "CPU_MACHINE_TYPE": v.cluster.cpu_machine_type,
        "CPU_NODE_POOL": v.cluster.cpu_node_pool,
        "CPU_NODE_COUNT": str(v.cluster.cpu_node_count),
        "CPU_DISK_SIZE_GB": str(v.cluster.cpu_disk_size_gb),
        # A4X: the pool sits in one NVLink domain through a workload policy (data/gpus/a4x.yaml).
        "ACCELERATOR_TOPOLOGY": gpu.accelerator_topology,
        "WORKLOAD_POLICY": f"{v.network.prefix}-{gpu.name}-{gpu.accelerator_topology}"
        if gpu.accelerator_topology
        else "",
        "NETWORK_BASE": network_base,
        "GVNIC_VPC": nets[0].vpc,
        "GVNIC_SUBNET": nets[0].subnet,
        "GVNIC_RANGE": ranges[0],
        "RDMA_VPC": nets[1].vpc,
        "RDMA_SUBNETS": " ".join(n.subnet for n in nets[1:]),
        "RDMA_RANGES": " ".join(ranges[1:]),
        "NETWORK_OBJECTS": str(2 * len(nets)),  # a GKENetworkParamSet and a Network per NIC
        "BUCKET": v.storage.bucket,
        "MODEL_DIR": v.storage.model_dir,
        "DATA_DIR": v.storage.data_dir,
        "VERL_DIR": v.storage.verl_dir,
        "CHECKPOINT_DIR": v.storage.checkpoint_dir,
        "KSA_NAME": v.service_account.name,
        "DATA_PREP_KSA": data_prep_account(spec),
        "NAMESPACE": spec.release.namespace,
        "HF_TOKEN_SECRET": v.data_prep.hf_token_secret,
        # ray.auth token: the Secret KubeRay hands the Ray containers (empty: no Ray token)
        "RAY_TOKEN_SECRET": ray_auth_secret(spec) if v.ray.auth == "token" else "",
        # the verl release's files and their sha256 (data/verl/<version>.yaml), as the data-prep Job's
        "VERL_VERSION": v.training.verl_version,
        **{e["name"]: e["value"] for e in release_downloads(spec.decide, v.training.verl_version)},
        "RDMA_INSTALLER": rdma_installer(v.cluster.mode, gpu.arch),
        "MARKER": MARKER,
    }


def render_env(env: dict[str, str]) -> str:
    return "".join(f"{key}={shlex.quote(value)}\n" for key, value in env.items())


def pool_flags(v: Values, max_nodes: int) -> list[str]:
    """gcloud node-pools create flags for the GPU pool's capacity and autoscaling (Standard)."""
    c = CAPACITIES[v.cluster.capacity]
    flags = [f.replace("{reservation}", v.cluster.reservation) for f in c.pool_flags]
    if v.cluster.capacity == "flex-start" and v.queue.enabled:
        flags.append(QUEUED_PROVISIONING_FLAG)  # Kueue's ProvisioningRequest asks for the gang
    # --total-max-nodes: the pool's cap across all zones (GKE 1.24+,
    # https://cloud.google.com/kubernetes-engine/docs/concepts/cluster-autoscaler "Autoscaling limits").
    return [*flags, *AUTOSCALE_FLAGS, f"--total-max-nodes={max_nodes}"]
