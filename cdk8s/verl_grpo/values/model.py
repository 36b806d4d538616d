"""The values model: one typed tree whose YAML shape is the Helm values shape.

Every field carries a one-line description; the JSON schema (values.schema.json), the chart's
values.yaml comments and its README table are all generated from these classes.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, get_args

from pydantic import BaseModel, ConfigDict, Field
from pydantic.alias_generators import to_camel
from typing_extensions import TypedDict

from ..facts.kuberay import DEFAULT_VERSION as KUBERAY_DEFAULT_VERSION
from ..facts.kuberay import VERSION_PATTERN as KUBERAY_VERSION_PATTERN
from ..facts.machines import cpu_machines, gpu_profiles
from ..facts.node_fit import FILE_CACHE_CAPACITY, GPU_SIDECAR_EPHEMERAL_HEADROOM, SIDECAR_LIMITS
from ..facts.pins import DEFAULT_MODEL_REVISION, DIGEST
from ..facts.verl_releases import DEFAULT_VERL_VERSION, verl_release, verl_releases

DNS1035 = r"^[a-z]([-a-z0-9]*[a-z0-9])?$"
# Kubernetes quantity (decimal or binary suffix); CPU may use millicores.
QUANTITY = r"^([0-9]+(\.[0-9]+)?)(m|k|M|G|T|Ki|Mi|Gi|Ti)?$"
QUANTITY_OR_DERIVED = r"^(([0-9]+(\.[0-9]+)?)(m|k|M|G|T|Ki|Mi|Gi|Ti)?)?$"
# A GCS bucket name, not a gs:// URL.
BUCKET = r"^[a-z0-9][a-z0-9._-]{1,61}[a-z0-9]$"
BUCKET_OR_UNSET = BUCKET.replace("^", "^$|^", 1)
# A path inside the bucket: relative, no segment starting with '.', no leading or trailing slash.
# (Go's regexp, used by Helm, has no look-ahead.)
BUCKET_PATH = r"^[A-Za-z0-9_-][A-Za-z0-9._-]*(/[A-Za-z0-9_-][A-Za-z0-9._-]*)*$"
ABS_PATH = r"^(/[A-Za-z0-9_-][A-Za-z0-9._-]*)+$"
HYDRA_WORD = r"^[A-Za-z0-9._-]+$"
# Docker reference grammar: lowercase path components, optional registry host:port.
IMAGE_REPOSITORY = r"^[a-z0-9]+([._-][a-z0-9]+)*(:[0-9]+)?(/[a-z0-9]+([._-]+[a-z0-9]+)*)*$"
IMAGE_TAG = r"^[A-Za-z0-9_][A-Za-z0-9._-]{0,127}$"
# A GCE zone (<region>-<letter>, https://cloud.google.com/compute/docs/regions-zones), or unset; or
# the shipped dist/'s marked placeholder (output/dist.py), which `verl-grpo validate` refuses.
ZONE_OR_UNSET = r"^([a-z]+-[a-z]+[0-9]+-[a-z]|replace-me-with-your-zone)?$"
DNS1123_SUBDOMAIN = r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$"
DNS_SUBDOMAIN = r"[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*"
LABEL_NAME = r"[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?"
LABEL_KEY_OR_EMPTY = rf"^(({DNS_SUBDOMAIN}/)?{LABEL_NAME})?$"
LABEL_VALUE = r"^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$"
# One line of text without control characters (YAML and the shell would mangle them).
PRINTABLE_LINE = r"^[^\x00-\x1f\x7f-\x9f]*$"

# Each pattern's rule in words, for the one line a value that misses it gets (values/loader.py);
# Helm's own schema check names the pattern itself.
PATTERN_RULES = {
    BUCKET_OR_UNSET: "a bucket name is 3 to 63 lowercase letters, digits, '-', '_' and '.', starting and "
    "ending with a letter or digit, without gs:// (https://cloud.google.com/storage/docs/buckets#naming)",
    DNS1035: "lowercase letters, digits and '-', starting with a letter and ending with a letter or digit",
    QUANTITY: "a Kubernetes quantity such as 768Gi, 500m or 8",
    QUANTITY_OR_DERIVED: "a Kubernetes quantity such as 768Gi, 500m or 8, or empty (derived)",
    BUCKET_PATH: "a path in the bucket: relative, no segment starting with '.', no slash at either end",
    ABS_PATH: "an absolute path of letters, digits, '_', '-' and '.'",
    IMAGE_REPOSITORY: "an image repository in lowercase, such as us-docker.pkg.dev/my-project/verl/verl",
    ZONE_OR_UNSET: "a zone such as us-central1-b (https://cloud.google.com/compute/docs/regions-zones)",
    IMAGE_TAG: "an image tag: letters, digits, '_', '.' and '-', at most 128, not starting with '.' or '-'",
}

GpuType = Literal[tuple(gpu_profiles())]  # type: ignore[valid-type]
VerlVersion = Literal[tuple(verl_releases())]  # type: ignore[valid-type]
DEFAULT_RELEASE = verl_release(DEFAULT_VERL_VERSION)
CpuMachineType = Literal[tuple(cpu_machines())]  # type: ignore[valid-type]


class Model(BaseModel):
    model_config = ConfigDict(
        alias_generator=to_camel, populate_by_name=True, extra="forbid", frozen=True, strict=True
    )


def field(default: Any, description: str, **kw: Any) -> Any:
    return Field(default, description=description, **kw)


INT32_MAX = 2**31 - 1  # Kubernetes' integer fields (deadlines, TTLs) are int32


def seconds(default: int, description: str, least: int) -> Any:
    """A duration in seconds for a Kubernetes int32 field."""
    return field(default, description, ge=least, le=INT32_MAX)


def section(model: type[Model], description: str) -> Any:
    """A group of settings: a mapping in the values, with its own defaults."""
    return Field(default_factory=model, description=description)


def dns_name(default: str, description: str, most: int) -> Any:
    """A name Kubernetes or GCE takes as a DNS-1035 label, at most `most` characters."""
    return field(default, description, pattern=DNS1035, max_length=most)


class Gpu(Model):
    type: GpuType = field("b200", "GPU node type; selects machine type, accelerator label and NCCL tuner.")


Capacity = Literal["spot", "reservation", "flex-start", "on-demand"]


class Cluster(Model):
    mode: Literal["standard", "autopilot"] = field("standard", "GKE cluster mode.")
    capacity: Capacity = field(
        "spot",
        "Where the GPU nodes come from: spot, reservation (cluster.reservation), flex-start (Dynamic "
        "Workload Scheduler) or on-demand. Sets the GPU pool's flags and the workers' selectors.",
    )
    reservation: str = field(
        "",
        "capacity reservation: name of the specific GCE reservation the GPU nodes consume.",
        pattern=r"^([a-z]([-a-z0-9]{0,61}[a-z0-9])?)?$",
    )
    zone: str = field(
        "",
        "Zone of the GPU nodes and the RDMA network profile (<zone>-vpc-roce); required on Autopilot, "
        "where it pins the workers, and read by the scripts.",
        pattern=ZONE_OR_UNSET,
    )
    compute_class: str = field(
        "Performance", "Autopilot mode: compute class of the Ray head.", pattern=r"^[A-Za-z][-A-Za-z0-9]*$"
    )
    head_machine_family: str = field(
        "c2", "Autopilot mode: machine family of the Ray head's node.", pattern=r"^[a-z][a-z0-9]*$"
    )
    cpu_node_pool: str = dns_name(
        "default-pool",
        "Standard mode: node pool the Ray head, the data-prep Job and the submitter run on.",
        40,
    )
    cpu_machine_type: CpuMachineType = field(
        "c2-standard-16", "Standard mode: machine type of the CPU node pool."
    )
    cpu_node_count: int = field(
        2, "Standard mode: nodes in the CPU node pool; its pods must pack onto them.", ge=1, le=100
    )
    cpu_disk_size_gb: int = field(
        250,
        "Standard mode: boot disk (GB) of each CPU node; holds the pods' ephemeral storage.",
        ge=10,
        le=65536,
    )


class Image(Model):
    repository: str = field(
        "verlai/verl", "Container image repository for head and workers.", pattern=IMAGE_REPOSITORY
    )
    # A fixed tag, not vllm011.latest (the tutorial's, which moves): the image of the default verl
    # release (data/verl/<version>.yaml, image; the rule verl-image-for-version holds the two together).
    tag: str = field(
        DEFAULT_RELEASE.image.tag,
        "Container image tag (a fixed one: 'latest' tags are refused). verlai/verl's must be the one of "
        "training.verlVersion (`verl-grpo init --verl-version` writes it).",
        pattern=IMAGE_TAG,
    )
    # The default release's image's platforms (data/verl/<version>.yaml cites them: verl publishes
    # no aarch64 build).
    platforms: list[Annotated[str, Field(pattern=r"^linux/(amd64|arm64)$")]] = field(
        list(DEFAULT_RELEASE.image.platforms),
        "Platforms the image carries (a multi-arch image lists each): every GPU machine's must be "
        "among them (A4X nodes are linux/arm64; the Ray head runs on amd64 CPU nodes).",
        min_length=1,
    )
    pull_policy: Literal["Always", "IfNotPresent", "Never"] = field("IfNotPresent", "Image pull policy.")
    digest: str = field(
        "",
        "The image's digest (sha256:...), resolved once with `crane digest REPOSITORY:TAG`: pods then "
        "run exactly that image (REPOSITORY:TAG@DIGEST) even if the tag moves. Empty: the tag "
        "alone (`plan` says it is not pinned).",
        pattern=DIGEST,
    )


# The default image's Ray (data/verl/<version>.yaml says how it is known). The pre-flight asserts it
# inside the image at run time (preflight.py --ray-version), so a rebuilt tag fails in seconds, not at
# `ray job submit`.
assert DEFAULT_RELEASE.image.ray, "the default verl release's image has a known Ray"
DEFAULT_RAY_VERSION = DEFAULT_RELEASE.image.ray


class Ray(Model):
    version: str = field(
        DEFAULT_RAY_VERSION,
        "Ray version inside the image (RayCluster rayVersion; the pre-flight checks it).",
        pattern=r"^[0-9]+\.[0-9]+\.[0-9]+$",
    )
    auth: Literal["disabled", "token"] = field(
        "disabled",
        "Ray token authentication of the dashboard, the Jobs API and Ray's own RPCs (Ray 2.52+, "
        "KubeRay 1.6+): KubeRay gives every Ray container and the submitter the token of the Secret "
        "<release>-ray-token (key auth_token; scripts/50-storage.sh makes it), and verl-grpo's job "
        "verbs read it there. Off by default: the default image's Ray 2.49 predates it; the "
        "NetworkPolicy then keeps the dashboard to the release's pods and the operator.",
    )


class KubeRay(Model):
    version: str = field(
        KUBERAY_DEFAULT_VERSION,
        "KubeRay operator version in the cluster (GKE's Ray add-on or the kuberay-operator chart), "
        "1.4.0 to 1.7.x; fields and submission modes follow it.",
        pattern=KUBERAY_VERSION_PATTERN,
    )


class ServiceAccount(Model):
    # 53: the data-prep Job's account is this name plus "-data-prep" (at most 63).
    name: str = dns_name(
        "verl-ksa",
        "Kubernetes service account the Ray pods run as (the data-prep Job runs as <name>-data-prep); "
        "the bucket's IAM bindings name both (scripts/lib.sh bucket_grants).",
        53,
    )


class Network(Model):
    prefix: str = dns_name(
        "verl",
        "Prefix of the VPC, subnet and Network object names (gVNIC and one per RDMA NIC).",
        30,
    )
    rdma: Literal["multi-network", "dranet"] = field(
        "multi-network",
        "How the workers get their RDMA NICs: 'multi-network' (GKE multi-networking: VPCs from "
        "scripts/10-networks.sh, Network objects, the pod's interfaces annotation) or 'dranet' (GKE "
        "managed DRANET, GKE 1.34.1-gke.1829001+, Standard: the pool makes its RDMA networks and "
        "each worker claims its node's NICs through a ResourceClaim).",
    )
    create_objects: bool = field(
        False,
        "Render the cluster-scoped Network and GKENetworkParamSet objects in this release. Off: "
        "scripts/40-rdma.sh owns them (one set per cluster, shared by every release).",
    )


def sidecar_limit(what: str, index: int, gpu_pods: str = "") -> Any:
    """One of the sidecar's limits; the defaults it takes when empty come from SIDECAR_LIMITS."""
    standard, autopilot = SIDECAR_LIMITS["standard"][index], SIDECAR_LIMITS["autopilot"][index]
    unlimited = " (unlimited)" if standard == "0" else ""
    return field(
        "",
        f"GCS FUSE sidecar {what} limit; empty: '{standard}'{unlimited} on standard, "
        f"{autopilot} on autopilot{gpu_pods}.",
        pattern=QUANTITY_OR_DERIVED,
    )


class Sidecar(Model):
    cpu_limit: str = sidecar_limit("CPU", 0)
    memory_limit: str = sidecar_limit("memory", 1)
    ephemeral_storage_limit: str = sidecar_limit(
        "ephemeral storage",
        2,
        f" (CPU pods); GPU pods: storage.fileCacheCapacity plus {GPU_SIDECAR_EPHEMERAL_HEADROOM}",
    )


class Storage(Model):
    # No default: bucket names are global, and a shared default would point every user at one
    # bucket (rule bucket-named asks for it; the shipped dist/ carries a marked placeholder).
    bucket: str = field(
        "",
        "GCS bucket name (not a gs:// URL); required: names are global, choose yours.",
        pattern=BUCKET_OR_UNSET,
    )
    capacity: str = field("768Gi", "Nominal capacity of the bucket PersistentVolumes.", pattern=QUANTITY)
    mount_path: str = field(
        "/data",
        "Where the model, data and verl folders are mounted in the pods, each at <mountPath>/<its dir>.",
        pattern=ABS_PATH,
    )
    checkpoint_mount_path: str = field(
        "/checkpoints",
        "Where the checkpoint prefix of the bucket is mounted (write-friendly options).",
        pattern=ABS_PATH,
    )
    model_dir: str = field(
        "models/Qwen2.5-32B-Instruct", "Bucket path of the model (config and weights).", pattern=BUCKET_PATH
    )
    data_dir: str = field("data/gsm8k", "Bucket path of train.parquet and test.parquet.", pattern=BUCKET_PATH)
    verl_dir: str = field(
        "verl", "Bucket path of the verl source tree (put on PYTHONPATH).", pattern=BUCKET_PATH
    )
    checkpoint_dir: str = field("checkpoints", "Bucket prefix for checkpoints.", pattern=BUCKET_PATH)
    file_cache_capacity: str = field(
        FILE_CACHE_CAPACITY,
        "GCS FUSE file cache of the model volume (the model is read through it), on the "
        "node's ephemeral storage; the GPU pods' sidecar limit is derived above it.",
        pattern=QUANTITY,
    )
    sidecar: Sidecar = section(Sidecar, "GCS FUSE sidecar resource limits.")


class Head(Model):
    cpu: str = field("12", "Ray head CPU request and limit.", pattern=QUANTITY)
    memory: str = field("40Gi", "Ray head memory request and limit.", pattern=QUANTITY)
    ephemeral_storage: str = field("50Gi", "Ray head ephemeral storage request and limit.", pattern=QUANTITY)


class Toleration(TypedDict, total=False):
    """A Kubernetes toleration, passed through to the pod as given."""

    __pydantic_config__ = ConfigDict(extra="forbid", strict=True)  # type: ignore[misc]
    key: Annotated[str, Field(description="Taint key.", pattern=LABEL_KEY_OR_EMPTY)]
    operator: Annotated[Literal["Exists", "Equal"], Field(description="Toleration operator.")]
    value: Annotated[str, Field(description="Taint value (operator Equal).", pattern=LABEL_VALUE)]
    effect: Annotated[
        Literal["", "NoSchedule", "PreferNoSchedule", "NoExecute"], Field(description="Taint effect.")
    ]
    tolerationSeconds: Annotated[
        int, Field(description="Seconds a NoExecute taint is tolerated.", ge=0, le=INT32_MAX)
    ]


class LabelSelector(TypedDict, total=False):
    """A Kubernetes label selector (matchLabels only)."""

    __pydantic_config__ = ConfigDict(extra="forbid", strict=True)  # type: ignore[misc]
    matchLabels: Annotated[dict[str, str], Field(description="Labels the selected objects carry.")]


CIDR = r"^[0-9a-fA-F.:]+/[0-9]+$"


class IpBlock(TypedDict, total=False):
    __pydantic_config__ = ConfigDict(extra="forbid", strict=True)  # type: ignore[misc]
    cidr: Annotated[
        str, Field(description="CIDR the traffic comes from.", pattern=r"^[0-9a-fA-F.:]+/[0-9]+$")
    ]


class Peer(TypedDict, total=False):
    """A NetworkPolicy peer, passed through to the policy as given."""

    __pydantic_config__ = ConfigDict(extra="forbid", strict=True)  # type: ignore[misc]
    namespaceSelector: Annotated[LabelSelector, Field(description="Namespaces ({} = all).")]
    podSelector: Annotated[LabelSelector, Field(description="Pods in those namespaces.")]
    ipBlock: Annotated[IpBlock, Field(description="Addresses outside the cluster's pods.")]


# Who polls the head's dashboard (8265) from outside the release namespace: the KubeRay operator
# reads job status from http://<head-svc>.<ns>.svc.cluster.local:8265 (ray-operator utils
# FetchHeadServiceURL, v1.4-v1.7). KubeRay's Helm chart labels its pod
# app.kubernetes.io/name=kuberay-operator in whatever namespace it is installed in
# (helm-chart/kuberay-operator/templates/deployment.yaml). GKE's Ray add-on: GKE "installs and
# hosts the KubeRay operator" (docs/add-on/ray-on-gke/concepts/overview) without saying where its
# traffic comes from; GKE's managed components run in kube-system, which is admitted too.
DEFAULT_DASHBOARD_SOURCES = [
    Peer(namespaceSelector={}, podSelector={"matchLabels": {"app.kubernetes.io/name": "kuberay-operator"}}),
    Peer(namespaceSelector={"matchLabels": {"kubernetes.io/metadata.name": "kube-system"}}),
]


class NetworkPolicy(Model):
    dashboard_sources: list[Peer] = field(
        DEFAULT_DASHBOARD_SOURCES,
        "NetworkPolicy peers admitted to the Ray dashboard port (8265) from outside the release "
        "namespace: the KubeRay operator (replaces the list).",
        min_length=1,
    )
    cluster_cidrs: list[Annotated[str, Field(pattern=CIDR)]] = field(
        ["10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16"],
        "The cluster's pod, Service and node ranges: the Ray pods' HTTPS egress (Cloud Storage, "
        "Google APIs, the Hugging Face Hub) goes to any address but these (GKE's defaults are "
        "private ranges; add a non-RFC 1918 range your cluster uses). A Private Service Connect "
        "endpoint for Google APIs has an internal address inside these: leave its /32 out of them "
        "or admit it with a NetworkPolicy of your own.",
        min_length=1,
    )


class Worker(Model):
    cpu: str = field(
        "",
        "Worker CPU request; empty: derived from the machine (allocatable minus headroom).",
        pattern=QUANTITY_OR_DERIVED,
    )
    memory: str = field(
        "",
        "Worker memory request; empty: derived from the machine (allocatable minus headroom).",
        pattern=QUANTITY_OR_DERIVED,
    )
    ephemeral_storage: str = field(
        "",
        "Worker ephemeral storage request and limit; empty: derived from what the GPU node offers "
        "(its Local SSDs, less GKE's DaemonSets and the sidecars, whose FUSE file cache lives there).",
        pattern=QUANTITY_OR_DERIVED,
    )
    tolerations: list[Toleration] = field(
        [Toleration(key="nvidia.com/gpu", operator="Exists", effect="NoSchedule")],
        "Worker pod tolerations (replaces the list).",
    )


# KubeRay labels a group's pods ray.io/group=<groupName> (ray-operator/controllers/ray/common/pod.go
# labelPod, utils/constant.go RayNodeGroupLabelKey @v1.7.0).
# A group's node pool is gpu-pool-<name> (GKE: at most 40 characters), its pods' ray.io/group
# label the name (at most 63).
GROUP_NAME_MAX = 31
# A worker group's name: the key it has in workerGroups (a map, as KubeRay's chart keys its
# additionalWorkerGroups: helm-chart/ray-cluster/values.yaml @v1.6.1), so it is unique by shape.
GroupName = Annotated[str, Field(pattern=DNS1035, max_length=GROUP_NAME_MAX)]


class WorkerGroup(Model):
    replicas: int = Field(description="GPU worker pods (nodes) of the group.", ge=1, le=512)
    min_replicas: int = field(
        0, "KubeRay minReplicas of the group; 0: replicas (verl needs every node).", ge=0, le=512
    )
    max_replicas: int = field(0, "KubeRay maxReplicas of the group; 0: replicas.", ge=0, le=512)
    capacity: Literal[("", *get_args(Capacity))] = field(  # type: ignore[valid-type]
        "",
        "Where this group's nodes come from (as cluster.capacity); empty: cluster.capacity. Groups "
        "of several capacities each get a node pool and select it (Standard).",
    )
    machine: Literal[("", *get_args(GpuType))] = field(  # type: ignore[valid-type]
        "",
        "GPU type of this group's nodes (as gpu.type); empty: gpu.type. It may differ from gpu.type "
        "only where the run stays one verl and NCCL world: the same GPUs per node, CPU architecture, "
        "RDMA NICs and NVLink domain (b200 and h200). The run's NCCL settings are gpu.type's.",
    )


# The chart's one group. Helm merges maps: a values file that adds a group keeps this one unless
# it sets `gpu-group: null` (Helm's coalescing deletes a key set to null).
DEFAULT_GROUP = "gpu-group"
DEFAULT_WORKER_GROUPS = {DEFAULT_GROUP: WorkerGroup(replicas=2)}


class Run(Model):
    kind: Literal["RayJob", "RayCluster"] = field(
        "RayJob", "What to render: a RayJob (cluster per run) or a long-lived RayCluster for ray job submit."
    )
    name: str = dns_name(
        "grpo-001",
        "Run name: the RayJob is <release>-<name>-<digest of its spec>, checkpoints go under it; "
        "a new name starts from scratch.",
        # KubeRay's 47 characters less '-', 8 hex digits and '-' and a 1-character release name.
        36,
    )
    replace_running: bool = field(
        False,
        "Let an upgrade that changes the run replace a RayJob that has not finished (it stops; "
        "the new run resumes from the newest checkpoint). Without it such an upgrade fails.",
    )


class Job(Model):
    submission_mode: Literal["K8sJobMode", "HTTPMode", "SidecarMode"] = field(
        "K8sJobMode", "RayJob submissionMode."
    )
    shutdown_after_job_finishes: bool = field(True, "Delete the Ray cluster when the job ends.")
    ttl_seconds_after_finished: int = seconds(
        300,
        "Seconds to keep the cluster after the job ends (needs shutdownAfterJobFinishes when > 0).",
        0,
    )
    active_deadline_seconds: int = seconds(259200, "Fail the job after this many seconds from start.", 1)
    pre_running_deadline_seconds: int = seconds(
        7200,
        "Fail a run still waiting for its cluster (GPUs, images) after this many seconds.",
        1,
    )
    backoff_limit: int = field(
        -1,
        "Retries of a failed or preempted run, each on a new cluster (resumes from the last checkpoint); "
        "-1: by capacity, 10 when a worker group runs on Spot (each retry survives a preemption), else 1.",
        ge=-1,
        le=100,
    )


class Training(Model):
    verl_version: VerlVersion = field(
        DEFAULT_VERL_VERSION,
        "verl release the run uses (data/verl/<version>.yaml): the source the data-prep Job fetches, "
        "the config rules, the CPUs per GPU; image.tag and ray.version must be its image's.",
    )
    module: str = field(
        DEFAULT_RELEASE.module, "Python module the entrypoint runs.", pattern=r"^[A-Za-z_][A-Za-z0-9_.]*$"
    )
    project_name: str = field("verl-grpo", "verl trainer.project_name.", pattern=HYDRA_WORD)
    experiment_name: str = field(
        "",
        "verl trainer.experiment_name and checkpoint sub-path; empty: the run name.",
        pattern=r"^([A-Za-z0-9._-]+)?$",
    )
    train_batch_size: int = field(256, "data.train_batch_size (prompts per step).", ge=1, le=65536)
    max_prompt_length: int = field(512, "data.max_prompt_length (tokens).", ge=1, le=1048576)
    max_response_length: int = field(512, "data.max_response_length (tokens).", ge=1, le=1048576)
    # verl's actor default and its GRPO recipes' value (verl_check/rules.py RECIPE_LR cites them).
    learning_rate: float = field(1e-6, "actor optim.lr (verl's GRPO recipes: 1e-6).", gt=0, lt=1)
    ppo_mini_batch_size: int = field(256, "actor ppo_mini_batch_size (prompts).", ge=1, le=65536)
    ppo_micro_batch_size_per_gpu: int = field(2, "actor ppo_micro_batch_size_per_gpu.", ge=1, le=4096)
    log_prob_micro_batch_size_per_gpu: int = field(
        2, "rollout and ref log_prob_micro_batch_size_per_gpu.", ge=1, le=4096
    )
    rollout_name: Literal["vllm", "sglang"] = field("vllm", "actor_rollout_ref.rollout.name.")
    rollout_n: int = field(8, "Responses sampled per prompt (GRPO group size).", ge=1, le=1024)
    tensor_parallel_size: int = field(8, "rollout.tensor_model_parallel_size.", ge=1, le=64)
    gpu_memory_utilization: float = field(0.4, "rollout.gpu_memory_utilization.", gt=0, le=1)
    strategy: Literal["fsdp", "fsdp2"] = field("fsdp2", "actor.strategy.")
    use_kl_loss: bool = field(True, "actor.use_kl_loss (GRPO: KL in the loss, creates the reference model).")
    kl_loss_coef: float = field(0.001, "actor.kl_loss_coef.", ge=0, le=100)
    entropy_coeff: float = field(0.0, "actor.entropy_coeff.", ge=0, le=100)
    gradient_checkpointing: bool = field(True, "model.enable_gradient_checkpointing.")
    ref_param_offload: bool = field(True, "ref.fsdp_config.param_offload.")
    total_epochs: int = field(2, "trainer.total_epochs.", ge=1, le=10000)
    save_freq: int = field(10, "trainer.save_freq (steps); -1 saves only at the end.", ge=-1, le=1000000)
    # 1 is refused: verl then deletes the only complete checkpoint before the next is committed
    # (0.6.1: before saving, utils/checkpoint/fsdp_checkpoint_manager.py; 0.8+: after the shards
    # but before the driver's tracker, checkpoint_manager.py register_checkpoint), and a
    # preemption in between leaves nothing to resume (docs/research/issue-24-checkpoints-and-logs.md).
    checkpoints_to_keep: int = field(
        2,
        "trainer.max_actor_ckpt_to_keep: older checkpoints are deleted by verl (and by the pre-flight "
        "after a restart). At least 2: with 1 a preemption during a save can leave none complete.",
        ge=2,
        le=1000,
    )
    test_freq: int = field(10, "trainer.test_freq (steps); -1 never tests.", ge=-1, le=1000000)
    logger: list[Literal["console", "wandb", "tensorboard", "mlflow"]] = field(
        ["console"], "trainer.logger backends.", min_length=1
    )
    extra_args: list[Annotated[str, Field(pattern=PRINTABLE_LINE)]] = field(
        [], "Extra Hydra overrides appended verbatim to the command line (e.g. '+key=value')."
    )


class DataPrep(Model):
    enabled: bool = field(
        True, "Render the data-preparation Job (model, verl source, GSM8K into the bucket)."
    )
    model_id: str = field(
        "Qwen/Qwen2.5-32B-Instruct",
        "Hugging Face repository the Job downloads into storage.modelDir.",
        pattern=r"^[A-Za-z0-9][A-Za-z0-9_.-]*/[A-Za-z0-9][A-Za-z0-9_.-]*$",
    )
    model_revision: str = field(
        DEFAULT_MODEL_REVISION,
        "The model's commit on the Hub (40 hex digits) the Job downloads: the run's weights never "
        "change under it. The default is Qwen/Qwen2.5-32B-Instruct's; another modelId needs its "
        "own (or a branch such as main, which `plan` reports as unpinned).",
        pattern=r"^[A-Za-z0-9][A-Za-z0-9._/-]{0,127}$",
    )
    hf_token_secret: str = field(
        "hf-token",
        "Secret (key 'token') with a Hugging Face token; used only if it exists.",
        pattern=DNS1123_SUBDOMAIN,
        max_length=253,
    )
    cpu: str = field("8", "Data-prep Job CPU request and limit.", pattern=QUANTITY)
    memory: str = field("32Gi", "Data-prep Job memory request and limit.", pattern=QUANTITY)
    ephemeral_storage: str = field(
        "100Gi", "Data-prep Job scratch space (Hugging Face cache).", pattern=QUANTITY
    )
    backoff_limit: int = field(
        3, "Retries of the data-prep Job; each resumes where the last stopped.", ge=0, le=20
    )


class NcclGate(Model):
    enabled: bool = field(
        True,
        "Before verl starts, run a short all-reduce over every GPU with verl's NCCL environment and "
        "fail the run, naming the node, when bus bandwidth is under minBusBandwidthGbps or a "
        "collective outlasts timeoutSeconds (about a minute of the cluster's time).",
    )
    size: str = field(
        "256Mi",
        "Largest all-reduce message (the gate sweeps four sizes up to it; the threshold applies to it).",
        pattern=r"^[1-9][0-9]*(Ki|Mi|Gi|K|M|G)?$",
    )
    min_bus_bandwidth_gbps: int = field(
        0,
        "Least all-reduce bus bandwidth in GB/s (nccl-tests' busbw) of the whole ring, each node and "
        "each node pair; 0: a quarter of the node's GPU network (100 GB/s on A4 and A3 Ultra).",
        ge=0,
        le=100000,
    )
    timeout_seconds: int = field(
        300,
        "How long one collective may take before the gate names the stalled rank or node.",
        ge=10,
        le=3600,
    )


class Logs(Model):
    enabled: bool = field(
        True,
        "Copy every Ray pod's logs (the job's driver log, raylet and workers) into the run's folder in "
        "the bucket (<checkpoint folder>/logs/<pod>) while it runs, from a sidecar: `verl-grpo logs`, "
        "`metrics` and `postmortem` read them after the cluster is gone.",
    )
    interval_seconds: int = field(
        30, "Seconds between copies; a pod that stops (deletion, preemption) copies once more.", ge=5, le=3600
    )


class Preflight(Model):
    mount_path: str = field(
        "/opt/verl-grpo",
        "Where the head pod mounts the pre-flight ConfigMap; the entrypoint runs preflight.py from here.",
        pattern=ABS_PATH,
    )
    wait_seconds: int = field(
        0,
        "How long the pre-flight waits for model and data (a data-prep Job still running); 0: "
        "sized from the model (900 s + its bf16 weights at 50 MB/s; 3600 s when its name has no size).",
        ge=0,
        le=86400,
    )
    nccl_gate: NcclGate = section(NcclGate, "The NCCL/RDMA gate before verl starts.")


# The node labels GKE puts on A4 and A3 Ultra nodes, coarsest first, and the hostname: the levels
# of a Kueue Topology on GKE (https://docs.cloud.google.com/ai-hypercomputer/docs/workloads/
# schedule-gke-workloads-tas). Kueue reads a level from the pod template's
# kueue.x-k8s.io/podset-required-topology or -preferred-topology annotation
# (sigs.k8s.io/kueue apis/kueue/v1beta2/topology_types.go@v0.19.2).
SUB_BLOCK_LEVEL = "cloud.google.com/gce-topology-subblock"
TOPOLOGY_LEVELS = (
    "cloud.google.com/gce-topology-block",
    SUB_BLOCK_LEVEL,
    "cloud.google.com/gce-topology-host",
    "kubernetes.io/hostname",
)


class QueueTopology(Model):
    mode: Literal["none", "preferred", "required"] = field(
        "none",
        "Kueue topology-aware placement of the GPU workers: 'required' admits the run only where "
        "all workers fit under one value of `level`, 'preferred' tries to.",
    )
    level: Literal[TOPOLOGY_LEVELS] = field(  # type: ignore[valid-type]
        "cloud.google.com/gce-topology-subblock",
        "The node label all workers share: a GCE block, sub-block or host (GKE's topology labels).",
    )


class Queue(Model):
    enabled: bool = field(
        False,
        "Queue the run with Kueue: the RayJob (or RayCluster) carries kueue.x-k8s.io/queue-name "
        "and starts when Kueue admits it. Kueue v0.19 with its RayJob integration must run in "
        "the cluster.",
    )
    local_queue: str = dns_name("verl", "The LocalQueue, in the release namespace, the run goes to.", 63)
    topology: QueueTopology = section(QueueTopology, "Topology-aware placement (Kueue TAS).")
    create_objects: bool = field(
        False,
        "Also render Kueue's objects: the LocalQueue, the ClusterQueue, a ResourceFlavor for the "
        "GPU and one for the CPU nodes, the GKE Topology, and for flex-start the ProvisioningRequest "
        "admission check. Off: the platform owns them (the ClusterQueue and flavors are "
        "cluster-scoped, one set for every release).",
    )
    cluster_queue: str = dns_name(
        "verl-gpu", "The ClusterQueue the LocalQueue points at (its name prefixes the flavors).", 50
    )
    gpu_quota: int = field(
        16,
        "GPUs the ClusterQueue admits at once (with createObjects); CPU, memory and disk quotas only "
        "need to cover the pods and are set high.",
        ge=1,
        le=100000,
    )


class Values(Model):
    gpu: Gpu = section(Gpu, "GPU node type.")
    cluster: Cluster = section(Cluster, "GKE cluster settings.")
    image: Image = section(Image, "verl container image.")
    ray: Ray = section(Ray, "Ray settings.")
    kuberay: KubeRay = section(KubeRay, "The KubeRay operator in the cluster.")
    service_account: ServiceAccount = section(ServiceAccount, "Pod identity.")
    network: Network = section(Network, "GPUDirect RDMA network mapping.")
    network_policy: NetworkPolicy = section(NetworkPolicy, "Who may reach the Ray pods.")
    storage: Storage = section(Storage, "Cloud Storage FUSE bucket.")
    head: Head = section(Head, "Ray head pod (CPU only).")
    worker: Worker = section(Worker, "Ray GPU worker pods (every group).")
    worker_groups: dict[GroupName, WorkerGroup] = field(
        DEFAULT_WORKER_GROUPS,
        "Ray GPU worker groups keyed by name (each its pods' ray.io/group label); verl's "
        "trainer.nnodes is their replicas' sum. Maps merge: set a group to null to drop it.",
        min_length=1,
        max_length=64,
    )
    run: Run = section(Run, "What this release runs.")
    job: Job = section(Job, "RayJob lifecycle.")
    training: Training = section(Training, "verl GRPO training settings.")
    data_prep: DataPrep = section(DataPrep, "In-cluster data preparation Job.")
    preflight: Preflight = section(Preflight, "Checks before verl starts.")
    logs: Logs = section(Logs, "Run logs in the bucket.")
    queue: Queue = section(Queue, "Kueue scheduling (optional).")
