"""Cross-field rules written once, as data that both the CLI evaluates and the chart compiles
into `fail` calls (templates/_rules.tpl), so `helm install` refuses what `verl-grpo check` refuses,
with the same rule id, key and message.

A rule is an expression over the values (and the release name) that holds when the values are
wrong, in the language of expressions.py: comparisons, and/or/not, string length, integer and
Sprig-exact float arithmetic, quantities, semver order, table lookups. Rules that need more (node
packing, shell parsing, verl's defaults) stay in rules.py and verl_check/ and are listed in the
README as CLI-only.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..facts.kuberay import AUTH_SECRET_SINCE, NAME_MAX, RAY_TOKEN_AUTH_SINCE, SUBMISSION_MODE_SINCE
from ..facts.kueue import FLEX_START_MAX_SECONDS
from ..facts.machines import (
    GIB,
    GpuProfile,
    allocatable_cpu,
    allocatable_memory_gib,
    gpu_node_ephemeral_bytes,
    gpu_profiles,
)
from ..facts.node_fit import (
    AUTOPILOT_GPU_SIDECAR_CPU_MAX,
    AUTOPILOT_GPU_SIDECAR_MEMORY_MAX,
    FUSE_SIDECAR_DEFAULT_REQUEST,
    GPU_NODE_DAEMONSETS,
    GPU_SIDECAR_EPHEMERAL_HEADROOM,
    LOG_SHIPPER,
    PREFETCH_SIDECAR,
    SIDECAR_LIMITS,
)
from ..facts.quantity import parse_quantity
from ..values.derive import machine_defaults
from ..values.model import DNS1035, SUB_BLOCK_LEVEL
from ..values.worker_groups import AS_MAP, LIST_TEMPLATE
from ..verl_check.steps import GSM8K_TRAIN_ROWS
from .expressions import (
    GROUP_TEMPLATES,
    QUANTITY_TEMPLATE,
    VERL_VERSION,
    WORKER_COUNT_TEMPLATE,
    Expr,
    Field,
    GroupField,
    GroupName,
    Literal,
    Lookup,
    MachineFact,
    MachineModeFact,
    OneCapacity,
    ReleaseFact,
    Scope,
    UsesCapacity,
    Workers,
    call,
    from_root,
)


@dataclass(frozen=True)
class CrossRule:
    id: str
    key: str
    when: Expr  # holds when the values are wrong
    message: tuple[str | Expr, ...]  # text and values, put together
    # Only where something is deployed (helm, synth, the scripts), not for `check`/`plan`, which
    # judge the run and may be asked before the user has chosen, say, a bucket.
    deploy_only: bool = False
    # Tested for each worker group, which GroupField() reads (`$group` in the template).
    each_group: bool = False
    # Not tested where training.extraArgs overrides a verl key it reads (VERL_KEYS_READ): the chart
    # cannot compose Hydra overrides; the CLI's verl check does (verl_check).
    skipped_by_extra_args: bool = False

    def text(self, scope: Scope) -> str:
        return "".join(p if isinstance(p, str) else str(p.py(scope)) for p in self.message)

    def go_message(self) -> str:
        parts = [" ".join(_literals(p)) if isinstance(p, str) else p.go() for p in self.message]
        return f"(print {json.dumps(self.key + ': ')} {' '.join(parts)} {json.dumps(f' [{self.id}]')})"


def _literals(text: str, width: int = 72) -> list[str]:
    """A long message text as several string literals (`print` joins them), for short lines."""
    pieces = re.findall(rf".{{1,{width}}}(?: |$)|.+?(?: |$)", text)
    return [json.dumps(p) for p in pieces if p] or [json.dumps(text)]


# KubeRay's name limits (kuberay.NAME_MAX); the kit appends '-' and 8 hex digits of the spec's
# digest to a RayJob's name (constructs/grpo_ray_job.py).
RAYJOB_NAME_MAX = NAME_MAX["RayJob"]
# The release name starts every object's name: DNS-1035 for the Services KubeRay derives from it,
# and at most 30 characters so that '<release>-<gpu type>' stays within KubeRay's RayCluster limit
# and '<release>-<run.name>-<8 hex digits>' leaves run.name room within the RayJob's.
RELEASE_NAME_MAX = 30
assert RELEASE_NAME_MAX + max(len(f"-{name}") for name in gpu_profiles()) <= NAME_MAX["RayCluster"]
DIGEST_SUFFIX = len("-xxxxxxxx")

RELEASE = Field("Release.Name")
WORKERS = Workers()
RUN_KIND, MODE, CAPACITY = (
    Field("Values.run.kind"),
    Field("Values.cluster.mode"),
    Field("Values.cluster.capacity"),
)
SIDECAR_MODE_SINCE = SUBMISSION_MODE_SINCE["SidecarMode"]
GPUS_PER_NODE = MachineFact(
    "gpusPerNode",
    Field("Values.gpu.type"),
    tuple((t, p.gpus_per_node) for t, p in sorted(gpu_profiles().items())),
)
RAYJOB_NAME_LENGTH = call("plus", call("length", RELEASE, "-", Field("Values.run.name")), DIGEST_SUFFIX)

# Paths the pods already mount (the GPU stack, Ray's scratch space): a values mount path must not
# be one of them, nor hold one, nor sit inside one; nor may the kit's own mounts overlap.
MOUNTS = {
    "storage.mountPath": Field("Values.storage.mountPath"),
    "storage.checkpointMountPath": Field("Values.storage.checkpointMountPath"),
    "preflight.mountPath": Field("Values.preflight.mountPath"),
}
RESERVED_MOUNTS = {
    "the NVIDIA driver": Literal("/usr/local/nvidia"),
    "the gIB plugin": Literal("/usr/local/gib"),
    "/tmp": Literal("/tmp"),
}


GPU = Field("Values.gpu.type")
GPUS = tuple(sorted(gpu_profiles().items()))
MODES = tuple(SIDECAR_LIMITS)
# The machine of the worker group a per-group rule looks at (values/worker_groups.py machine_of).
GROUP_MACHINE = call("default", GroupField("machine"), GPU)
GROUP_CAPACITY = call("default", GroupField("capacity"), CAPACITY)


def _by_gpu(name: str, fact: Callable[[GpuProfile], Any], machine: Expr = GPU) -> MachineFact:
    """A fact of each machine (data/gpus/), named as the chart's `_facts.tpl` holds it."""
    return MachineFact(name, machine, tuple((gpu, fact(profile)) for gpu, profile in GPUS))


GROUP_ARCH = _by_gpu("arch", lambda p: p.arch, GROUP_MACHINE)


def _sidecar_limit(key: str, i: int) -> Expr:
    """storage.sidecar.<key>, or the mode's default limit (derive.py), as a quantity."""
    default = Lookup(MODE, tuple((mode, SIDECAR_LIMITS[mode][i]) for mode in MODES))
    return call("quantity", call("default", Field(f"Values.storage.sidecar.{key}"), default))


@dataclass(frozen=True)
class WorkerResource:
    """One resource of the worker pod on a GPU node, as facts/node_fit.py counts it: the worker
    container (its value or the derived default), the FUSE sidecar (its limit, which the webhook
    makes its request, or the default request when the limit is 0) and the metadata-prefetch
    sidecar, next to GKE's DaemonSets, against the machine's allocatable."""

    key: str
    unit: str
    scale: float
    request: Expr  # the worker's request, as text
    others: Expr
    room: Expr

    def shown(self, x: Expr) -> Expr:
        return call("fixed2", call("mulf", x, 1 / self.scale) if self.scale != 1 else x)


def _worker_resource(
    key: str,
    sidecar_limit: Expr,
    unit: str,
    scale: float,
    field: str,
    allocatable: Callable[[GpuProfile], float],
) -> WorkerResource:
    name = key.split(".")[-1]  # cpu, memory, ephemeralStorage
    title = name[0].upper() + name[1:]
    attr = "worker_" + re.sub(r"([A-Z])", r"_\1", name).lower()
    defaults = tuple(((g, m), getattr(machine_defaults(g, m), attr)) for g, _ in GPUS for m in MODES)
    # Each group's pods get their machine's default and must fit its nodes (derive.group_spec).
    sidecar = call("default", sidecar_limit, getattr(FUSE_SIDECAR_DEFAULT_REQUEST, field))
    return WorkerResource(
        key,
        unit,
        scale,
        request=call(
            "default",
            Field(f"Values.{key}"),
            MachineModeFact(f"worker{title}", GROUP_MACHINE, MODE, defaults),
        ),
        others=call(
            "addf",
            getattr(GPU_NODE_DAEMONSETS, field),
            sidecar,
            getattr(PREFETCH_SIDECAR, field),
            getattr(LOG_SHIPPER, field),
        ),
        room=_by_gpu(f"allocatable{title}", allocatable, GROUP_MACHINE),
    )


CPU = _worker_resource(
    "worker.cpu",
    _sidecar_limit("cpuLimit", 0),
    " CPUs",
    1,
    "cpu",
    lambda p: allocatable_cpu(p.vcpu),
)
MEMORY = _worker_resource(
    "worker.memory",
    _sidecar_limit("memoryLimit", 1),
    "Gi",
    GIB,
    "memory",
    lambda p: allocatable_memory_gib(p.memory_gb) * GIB,
)
FILE_CACHE = call("quantity", Field("Values.storage.fileCacheCapacity"))
# storage.sidecar.ephemeralStorageLimit as a quantity; 0 when empty (or "0": no limit).
SIDECAR_EPHEMERAL_SET = call(
    "quantity", call("default", Field("Values.storage.sidecar.ephemeralStorageLimit"), "0")
)
# A GPU pod's sidecar ephemeral limit (derive.py): the values', else the file cache plus headroom.
GPU_SIDECAR_EPHEMERAL = call(
    "default",
    SIDECAR_EPHEMERAL_SET,
    call("addf", FILE_CACHE, float(parse_quantity(GPU_SIDECAR_EPHEMERAL_HEADROOM))),
)
# On a GPU node the Local SSDs, and on Autopilot the GPU pod's ceiling (machines.py cites both).
EPHEMERAL = _worker_resource(
    "worker.ephemeralStorage",
    GPU_SIDECAR_EPHEMERAL,
    "Gi",
    GIB,
    "ephemeral",
    gpu_node_ephemeral_bytes,
)


def _fit_rule(r: WorkerResource) -> CrossRule:
    return CrossRule(
        "worker-fits-node",
        r.key,
        call("gtf", call("addf", call("quantity", r.request), r.others), r.room),
        (
            "'",
            r.request,
            "' plus the sidecars (GCS FUSE, log shipper) and GKE's DaemonSets (",
            r.shown(r.others),
            f"{r.unit}) exceeds what ",
            _by_gpu("machineType", lambda p: p.machine_type, GROUP_MACHINE),
            " can allocate (",
            r.shown(r.room),
            f"{r.unit}); at most ",
            r.shown(call("subf", r.room, r.others)),
            r.unit,
        ),
        each_group=True,
    )


# Autopilot gives a GCS FUSE sidecar on a GPU node at most this (node_fit.py cites the docs);
# "0" (unlimited) is refused there.
AUTOPILOT_SIDECAR_MAX = {
    "cpuLimit": (0, AUTOPILOT_GPU_SIDECAR_CPU_MAX),
    "memoryLimit": (1, AUTOPILOT_GPU_SIDECAR_MEMORY_MAX),
    "ephemeralStorageLimit": (2, None),
}


def _autopilot_sidecar_rules() -> tuple[CrossRule, ...]:
    out = []
    for key, (i, most) in AUTOPILOT_SIDECAR_MAX.items():
        limit, shown = _sidecar_limit(key, i), call("default", Field(f"Values.storage.sidecar.{key}"), "")
        on_autopilot = call("eq", MODE, "autopilot")
        out.append(
            CrossRule(
                "autopilot-sidecar-limited",
                f"storage.sidecar.{key}",
                call("and", on_autopilot, call("eqf", limit, 0)),
                ("'", shown, "' (unlimited) is not allowed on Autopilot; give a real limit"),
            )
        )
        if most is not None:
            out.append(
                CrossRule(
                    "autopilot-sidecar-limited",
                    f"storage.sidecar.{key}",
                    call("and", on_autopilot, call("gtf", limit, call("quantity", most))),
                    (
                        "'",
                        shown,
                        f"' exceeds what Autopilot gives a GCS FUSE sidecar on GPU nodes ({most}; "
                        "gcs-fuse-csi-driver docs/troubleshooting.md); the pod would never schedule",
                    ),
                )
            )
    return tuple(out)


# A tag that moves: `latest` alone or as the last part (verl publishes vllm011.latest beside fixed
# ones such as vllm011.dev7: docs/start/install.rst and the Megatron-FSDP example of verl).
FLOATING_TAG = r"(^|[._-])latest$"
# verl's images: "Start from v0.6.0, we use vllm and sglang release image as our base image"
# (verl docker/README.md@b178a3c, Dockerfile.stable.vllm / Dockerfile.stable.sglang): a vllm* tag of
# verlai/verl is built on vLLM's image and has no SGLang.
VERL_IMAGES = "verlai/verl"
ROLLOUT_IMAGE_PREFIX = "vllm"

# The release's facts (data/verl/<version>.yaml), by training.verlVersion.
RAY_CPUS_PER_GPU = ReleaseFact("rayCpusPerGpu")
RELEASE_IMAGE_TAG, RELEASE_RAY = ReleaseFact("imageTag"), ReleaseFact("imageRay")
IMAGE_REPOSITORY, IMAGE_TAG = Field("Values.image.repository"), Field("Values.image.tag")


def _verl_image_rules() -> tuple[CrossRule, ...]:
    """verl's images carry one release's dependencies (docker/Dockerfile.stable.*: verl's deps, then verl
    uninstalled): the run's verl comes from the bucket and needs its own release's image, for its
    rollout (vLLM or SGLang). Another repository is the user's build, which the pre-flight checks."""
    verl_image = call("eq", IMAGE_REPOSITORY, VERL_IMAGES)
    release_image = call("and", verl_image, call("eq", IMAGE_TAG, RELEASE_IMAGE_TAG))
    return (
        *(
            CrossRule(
                "verl-image-for-version",
                "image.tag",
                call(
                    "and",
                    verl_image,
                    call("eq", Field("Values.training.rolloutName"), rollout),
                    call("ne", IMAGE_TAG, tag),
                ),
                (
                    "'",
                    IMAGE_TAG,
                    f"' is not the {rollout} image of training.verlVersion ",
                    VERL_VERSION,
                    ", which runs in verlai/verl:",
                    tag,
                    " (verl-grpo init --verl-version writes both)",
                ),
            )
            for rollout, tag in (("vllm", RELEASE_IMAGE_TAG), ("sglang", ReleaseFact("sglangImageTag")))
        ),
        CrossRule(
            "verl-image-for-version",
            "ray.version",
            call(
                "and",
                release_image,
                call("ne", RELEASE_RAY, ""),
                call("ne", Field("Values.ray.version"), RELEASE_RAY),
            ),
            (
                "'",
                Field("Values.ray.version"),
                "' is not the Ray of verlai/verl:",
                IMAGE_TAG,
                ", which carries ",
                RELEASE_RAY,
                " (the pre-flight would stop the run on it)",
            ),
        ),
    )


# verl's own batch rules, on the values the kit passes as verl's settings (the CLI also runs
# them on the composed config: verl_check/rules.py, which cites verl). Extra overrides of any
# setting they read (or dynamic batch sizes, sequence parallelism) leave them to the CLI.
VERL_KEYS_READ = (
    r"(?m)^[+~]*(data\.train_batch_size|actor_rollout_ref\.rollout\.n|trainer\.(n_gpus_per_node|nnodes)"
    r"|actor_rollout_ref\.actor\.(use_dynamic_bsz|ppo_mini_batch_size|ppo_micro_batch_size(_per_gpu)?"
    r"|ulysses_sequence_parallel_size))="
)
TRAIN, N = Field("Values.training.trainBatchSize"), Field("Values.training.rolloutN")
MINI, MICRO = Field("Values.training.ppoMiniBatchSize"), Field("Values.training.ppoMicroBatchSizePerGpu")


def _verl_rule(rule_id: str, key: str, when: Expr, *message: str | Expr) -> CrossRule:
    plain = call("not", call("matches", Field("Values.training.extraArgs"), VERL_KEYS_READ))
    return CrossRule(rule_id, key, call("and", plain, when), message, skipped_by_extra_args=True)


def _verl_rules() -> tuple[CrossRule, ...]:
    gpus = call("times", WORKERS, GPUS_PER_NODE)
    per_gpu = call("over", call("times", MINI, N), gpus)  # verl's mini-batch per GPU (sp = 1)
    return (
        _verl_rule(
            "verl-batch-divisible",
            "training.trainBatchSize",
            call("ne", call("mod", call("times", TRAIN, N), gpus), 0),
            "trainBatchSize x rolloutN = ",
            call("times", TRAIN, N),
            " is not divisible by the ",
            gpus,
            " GPUs (verl refuses it at start-up)",
        ),
        _verl_rule(
            "batch-within-dataset",
            "training.trainBatchSize",
            call("and", Field("Values.dataPrep.enabled"), call("gt", TRAIN, GSM8K_TRAIN_ROWS)),
            TRAIN,
            f" exceeds the {GSM8K_TRAIN_ROWS} GSM8K training rows the data-prep Job writes: verl's "
            "dataloader drops the partial batch, so the run would train 0 steps",
        ),
        _verl_rule(
            "verl-mini-within-train",
            "training.ppoMiniBatchSize",
            call("gt", MINI, TRAIN),
            MINI,
            " exceeds trainBatchSize ",
            TRAIN,
            " (verl refuses it at start-up)",
        ),
        _verl_rule(
            "verl-mini-batch-per-gpu",
            "training.ppoMiniBatchSize",
            call("and", call("not", call("gt", MINI, TRAIN)), call("eq", per_gpu, 0)),
            "ppoMiniBatchSize x rolloutN / GPUs is 0: too few prompts per GPU (verl fails at worker init)",
        ),
        _verl_rule(
            "verl-micro-divides-mini",
            "training.ppoMicroBatchSizePerGpu",
            call(
                "and",
                call("not", call("gt", MINI, TRAIN)),
                call("gt", per_gpu, 0),
                call("ne", call("mod", per_gpu, MICRO), 0),
            ),
            "the mini-batch per GPU (",
            per_gpu,
            ") is not divisible by ",
            MICRO,
            " (verl fails at worker init, after the GPUs are allocated)",
        ),
    )


def _mount_rules() -> tuple[CrossRule, ...]:
    out = []
    for key, path in MOUNTS.items():
        for other_key, other in {**MOUNTS, **RESERVED_MOUNTS}.items():
            if other_key == key:
                continue
            out.append(
                CrossRule(
                    "mounts-disjoint",
                    key,
                    call("nested", path, other),
                    ("'", path, f"' overlaps {other_key} ('", other, "'); mount paths must be disjoint"),
                )
            )
    return tuple(out)


# The bucket's folders: each is its own volume (constructs/gcs_fuse_storage.py, mounted at
# mountPath/<dir> or checkpointMountPath) and its own grant (scripts/lib.sh bucket_grants).
BUCKET_FOLDERS = {
    f"storage.{key}": Field(f"Values.storage.{key}")
    for key in ("modelDir", "dataDir", "verlDir", "checkpointDir")
}


def _bucket_folder_rules() -> tuple[CrossRule, ...]:
    """A folder inside another would be mounted inside that one's read-only FUSE mount (the
    runtime cannot create the mount point there) and granted twice."""
    keys = list(BUCKET_FOLDERS)
    return tuple(
        CrossRule(
            "bucket-folders-disjoint",
            key,
            call("nested", BUCKET_FOLDERS[key], BUCKET_FOLDERS[other]),
            (
                "'",
                BUCKET_FOLDERS[key],
                f"' overlaps {other} ('",
                BUCKET_FOLDERS[other],
                "'); bucket folders must be disjoint",
            ),
        )
        for i, key in enumerate(keys)
        for other in keys[:i]
    )


def _queue_rules() -> tuple[CrossRule, ...]:
    """What Kueue and flex-start refuse (facts/kueue.py has the sources)."""
    queued = Field("Values.queue.enabled")
    return (
        CrossRule(
            "queue-needs-shutdown",
            "job.shutdownAfterJobFinishes",
            call(
                "and",
                queued,
                call("eq", RUN_KIND, "RayJob"),
                call("not", Field("Values.job.shutdownAfterJobFinishes")),
            ),
            (
                "must be true with queue.enabled: Kueue's webhook refuses a queued RayJob that keeps "
                "its cluster",
            ),
        ),
        CrossRule(
            "topology-needs-queue",
            "queue.topology.mode",
            call("and", call("not", queued), call("ne", Field("Values.queue.topology.mode"), "none")),
            ("'", Field("Values.queue.topology.mode"), "' needs queue.enabled: Kueue places the workers"),
        ),
        CrossRule(
            "objects-need-queue",
            "queue.createObjects",
            call("and", call("not", queued), Field("Values.queue.createObjects")),
            ("needs queue.enabled: Kueue's objects are rendered for a queued run",),
        ),
        CrossRule(
            "queue-quota-fits",
            "queue.gpuQuota",
            call(
                "and",
                queued,
                Field("Values.queue.createObjects"),
                call("gt", call("times", WORKERS, GPUS_PER_NODE), Field("Values.queue.gpuQuota")),
            ),
            (
                "",
                Field("Values.queue.gpuQuota"),
                " GPUs, but the run needs ",
                call("times", WORKERS, GPUS_PER_NODE),
                " at once (the groups' replicas x GPUs per node): Kueue would never admit it",
            ),
        ),
        # kubernetes.io/hostname is unique to each node (Kubernetes' well-known labels,
        # https://kubernetes.io/docs/reference/labels-annotations-taints/#kubernetesiohostname): a
        # required placement of several workers under one value can never be admitted.
        # Kueue makes a pod set of each worker group and places it by that group's own template
        # annotation (pkg/controller/jobs/raycluster/common.go BuildPodSets, jobframework/tas.go
        # NewPodSetTopologyRequest @v0.19.2).
        CrossRule(
            "topology-level-holds-workers",
            "queue.topology.level",
            call(
                "and",
                queued,
                call("eq", Field("Values.queue.topology.mode"), "required"),
                call("eq", Field("Values.queue.topology.level"), "kubernetes.io/hostname"),
                call("gt", GroupField("replicas"), 1),
            ),
            (
                "'kubernetes.io/hostname' names one node, but queue.topology.mode 'required' puts all ",
                GroupField("replicas"),
                " workers of group '",
                GroupName(),
                "' under one value of it: Kueue would never admit the run (choose a GCE block or sub-block)",
            ),
            each_group=True,
        ),
        # Kueue v0.19.2 admits a workload whose pods claim devices only for claims it can count:
        # "AllocationMode 'All' is not supported" (DRANET's claim of every RDMA NIC), and a
        # DeviceClass must be mapped to a quota resource in Kueue's own Configuration
        # (resources.deviceClassMappings; "DeviceClass %s is not mapped in DRA configuration") -
        # pkg/dra/claims.go@v0.19.2 - which a chart cannot set; its TAS does not count DRA devices
        # at all (site/content/en/docs/concepts/dynamic_resource_allocation.md@v0.19.2,
        # "No DRA + Topology Aware Scheduling"). Refused until a Kueue that counts them.
        CrossRule(
            "queue-without-device-claims",
            "queue.enabled",
            call(
                "and",
                queued,
                call(
                    "or",
                    call("eq", Field("Values.network.rdma"), "dranet"),
                    call(
                        "eq", _by_gpu("imexWord", lambda p: "imex" if p.imex else "", GROUP_MACHINE), "imex"
                    ),
                ),
            ),
            (
                "Kueue v0.19 cannot admit group '",
                GroupName(),
                "': its pods claim devices through DRA (network.rdma 'dranet': every RDMA NIC, "
                "allocationMode All; A4X: an IMEX channel), which Kueue refuses unless its own "
                "Configuration maps their DeviceClasses; run it without queue.enabled, or use "
                "network.rdma 'multi-network' on A4 and A3 Ultra",
            ),
            each_group=True,
        ),
        # Kueue places a pod set only on nodes that carry every level's label: a node without them
        # is in no domain of the Topology (pkg/cache/tas_flavor_snapshot.go addNode@v0.19.2). GCE
        # labels a node's physical topology (gce-topology-block/-subblock/-host) only on densely
        # deployed capacity, "obtained through reservations"; Spot and flex-start VMs are "less
        # likely to be allocated close together" and on-demand ones need COMPACT placement, which
        # the kit does not create ("Topology of GKE nodes on A4 and A3 Ultra VMs",
        # https://cloud.google.com/ai-hypercomputer/docs/workloads/schedule-gke-workloads-tas;
        # xpk src/xpk/commands/common.py@367c838). The twin labels nodes the same way.
        CrossRule(
            "topology-needs-reservation",
            "queue.topology.mode",
            call(
                "and",
                queued,
                call("ne", Field("Values.queue.topology.mode"), "none"),
                call("ne", GROUP_CAPACITY, "reservation"),
            ),
            (
                "'",
                Field("Values.queue.topology.mode"),
                "' places workers by GCE's topology labels, which only reservation nodes carry, but group '",
                GroupName(),
                "' uses capacity '",
                GROUP_CAPACITY,
                "': Kueue would find no domain; use a reservation or queue.topology.mode 'none'",
            ),
            each_group=True,
        ),
        # queue.createObjects renders one GPU flavor, shared by every group, and the flex-start
        # admission check only for cluster.capacity flex-start, on that flavor: a ProvisioningRequest
        # holds every pod set of the flavor (constructs/kueue_queue.py), so other groups' nodes would
        # be asked of GKE's queued provisioning, and a flex-start group under another
        # cluster.capacity would get no request at all.
        CrossRule(
            "queue-objects-flex-start-alone",
            "queue.createObjects",
            call(
                "and",
                queued,
                Field("Values.queue.createObjects"),
                UsesCapacity("flex-start"),
                call("not", OneCapacity()),
            ),
            (
                "renders one GPU flavor for every group, and GKE's queued provisioning for all of them "
                "when cluster.capacity is flex-start: flex-start groups cannot be mixed with others "
                "(cluster.capacity '",
                CAPACITY,
                "'); set cluster.capacity flex-start for every group, or give the platform's "
                "ClusterQueue a flavor and admission check of its own for them (createObjects: false)",
            ),
        ),
        CrossRule(
            "flex-start-run-length",
            "job.activeDeadlineSeconds",
            call(
                "and",
                UsesCapacity("flex-start"),
                call("eq", RUN_KIND, "RayJob"),
                call("gt", Field("Values.job.activeDeadlineSeconds"), FLEX_START_MAX_SECONDS),
            ),
            (
                "",
                Field("Values.job.activeDeadlineSeconds"),
                f" is longer than a flex-start VM runs ({FLEX_START_MAX_SECONDS} s, 7 days): the nodes "
                "go before the run ends",
            ),
        ),
    )


def _refused(value: Expr, offered: str, machine: Expr) -> Expr:
    pattern = _by_gpu(f"{offered}Pattern", lambda p: "^(" + "|".join(getattr(p, offered)) + ")$", machine)
    return call("not", call("matches", value, pattern))


def _listed(offered: str, machine: Expr = GPU) -> Expr:
    return _by_gpu(f"{offered}Listed", lambda p: ", ".join(getattr(p, offered)), machine)


def _offered(key: str, value: Expr, offered: str) -> CrossRule:
    """A machine GKE does not offer with this value (data/gpus/ modes, capacities)."""
    return CrossRule(
        f"gpu-{key.rsplit('.', 1)[-1]}-offered",
        key,
        _refused(value, offered, GPU),
        (
            "'",
            value,
            "': gpu.type '",
            GPU,
            "' (",
            _by_gpu("machineType", lambda p: p.machine_type),
            ") comes only with ",
            _listed(offered),
        ),
    )


def _group_offered(rule_id: str, key: str, value: Expr, offered: str) -> CrossRule:
    """A group's machine GKE does not offer with the group's capacity or in cluster.mode, where
    the group names a capacity or machine of its own (else the gpu-*-offered rules speak)."""
    own = call("or", call("ne", GroupField("capacity"), ""), call("ne", GroupField("machine"), ""))
    return CrossRule(
        rule_id,
        key,
        call("and", own, _refused(value, offered, GROUP_MACHINE)),
        (
            "'",
            value,
            "': group '",
            GroupName(),
            "' runs on ",
            GROUP_MACHINE,
            " (",
            _by_gpu("machineType", lambda p: p.machine_type, GROUP_MACHINE),
            "), which comes only with ",
            _listed(offered, GROUP_MACHINE),
        ),
        each_group=True,
    )


def run_traits(p: GpuProfile) -> str:
    """What every node of one run must share: verl's one trainer.n_gpus_per_node (its resource pool
    is `[n_gpus_per_node] * nnodes`: verl/trainer/main_ppo.py TaskRunner.init_resource_pool_mgr)
    and the pre-flight's --gpus-per-node (constructs/runtime_env.py); the run's NCCL settings and
    RDMA networks, made for gpu.type's NICs and architecture (one ZONE-vpc-roce network takes A3
    Ultra, A4 and A4X NICs alike: https://cloud.google.com/vpc/docs/rdma-network-profiles); IMEX's
    one ComputeDomain (constructs/device_claims.py)."""
    nvlink = "multi-node NVLink" if p.imex else "no multi-node NVLink"
    return f"{p.gpus_per_node} GPUs per node, {p.arch}, {p.rdma_nics} RDMA NICs, {nvlink}"


def _group_machine_rules() -> tuple[CrossRule, ...]:
    """A group's machine of its own (workerGroups.machine), where it cannot join the run."""
    other = call("ne", GROUP_MACHINE, GPU)
    return (
        CrossRule(
            "group-machine-joins-run",
            "workerGroups.machine",
            call("ne", _by_gpu("runTraits", run_traits, GROUP_MACHINE), _by_gpu("runTraits", run_traits)),
            (
                "group '",
                GroupName(),
                "' runs on ",
                GROUP_MACHINE,
                " (",
                _by_gpu("runTraits", run_traits, GROUP_MACHINE),
                "), but every worker joins one verl and NCCL world made for gpu.type '",
                GPU,
                "' (",
                _by_gpu("runTraits", run_traits),
                "); use a machine that matches it, or gpu.type",
            ),
            each_group=True,
        ),
        # A reservation holds VMs of one machine type (specificReservation.instanceProperties
        # .machineType: https://cloud.google.com/compute/docs/reference/rest/v1/reservations), and a
        # VM consumes it only when its properties match the reservation's
        # (https://cloud.google.com/compute/docs/instances/reservations-consume).
        # The kit consumes cluster.reservation as gpu.type's (30-gpu-pool.sh, Autopilot's selectors).
        CrossRule(
            "group-machine-reserved",
            "workerGroups.machine",
            call("and", other, call("eq", GROUP_CAPACITY, "reservation")),
            (
                "group '",
                GroupName(),
                "' runs on ",
                GroupField("machine"),
                ", but its capacity is reservation '",
                Field("Values.cluster.reservation"),
                "', which holds gpu.type's machine (",
                _by_gpu("machineType", lambda p: p.machine_type),
                "); give the group capacity of its own (spot, flex-start, on-demand)",
            ),
            each_group=True,
        ),
        # queue.createObjects' one GPU flavor names gpu.type's accelerator (constructs/kueue_queue.py);
        # a pod set whose node selector another flavor's labels contradict gets no flavor and is
        # never admitted (https://kueue.sigs.k8s.io/docs/concepts/resource_flavor/#resourceflavor-labels).
        CrossRule(
            "queue-objects-one-machine",
            "queue.createObjects",
            call("and", Field("Values.queue.enabled"), Field("Values.queue.createObjects"), other),
            (
                "renders one GPU flavor, for gpu.type '",
                GPU,
                "', but group '",
                GroupName(),
                "' runs on ",
                GroupField("machine"),
                ": Kueue would never admit it; give the platform's ClusterQueue a flavor per group "
                "(createObjects: false)",
            ),
            each_group=True,
        ),
    )


def _machine_rules() -> tuple[CrossRule, ...]:
    """What a machine (data/gpus/) or GKE's DRANET does not offer."""
    queued = Field("Values.queue.enabled")
    sub_block = _by_gpu("subBlockNodesOrZero", lambda p: p.sub_block_nodes or 0, GROUP_MACHINE)
    return (
        _offered("cluster.mode", MODE, "modes"),
        _offered("cluster.capacity", CAPACITY, "capacities"),
        _group_offered("group-capacity-offered", "workerGroups.capacity", GROUP_CAPACITY, "capacities"),
        _group_offered("group-mode-offered", "workerGroups.machine", MODE, "modes"),
        *_group_machine_rules(),
        # Autopilot turns DRANET on through a custom ComputeClass (nodePoolConfig.dra.networking,
        # GKE 1.35.2-gke.1842000; facts/networks.py cites the page), which the kit does not render.
        CrossRule(
            "dranet-on-standard",
            "network.rdma",
            call("and", call("eq", Field("Values.network.rdma"), "dranet"), call("eq", MODE, "autopilot")),
            ("'dranet' is rendered for Standard clusters (Autopilot needs a custom ComputeClass)",),
        ),
        # A sub-block holds a published number of nodes on some machines (A4X: 18, one NVLink
        # domain; data/gpus/a4x.yaml): a required placement of more workers in one is never
        # admitted, and a pool under an accelerator-topology workload policy holds no more.
        CrossRule(
            "sub-block-holds-workers",
            "workerGroups.replicas",
            call(
                "and",
                call("gt", sub_block, 0),
                call("gt", GroupField("replicas"), sub_block),
                call(
                    "or",
                    call(
                        "ne",
                        _by_gpu("acceleratorTopology", lambda p: p.accelerator_topology, GROUP_MACHINE),
                        "",
                    ),
                    call(
                        "and",
                        queued,
                        call("eq", Field("Values.queue.topology.mode"), "required"),
                        call("eq", Field("Values.queue.topology.level"), SUB_BLOCK_LEVEL),
                    ),
                ),
            ),
            (
                "group '",
                GroupName(),
                "' has ",
                GroupField("replicas"),
                " workers, but a sub-block of ",
                _by_gpu("machineType", lambda p: p.machine_type, GROUP_MACHINE),
                " holds ",
                sub_block,
                " nodes, and its node pool's placement policy or queue.topology keeps a group in one",
            ),
            each_group=True,
        ),
    )


def needs_version(
    id: str, chosen: tuple[str, str], needs: tuple[str, str, str], hint: str, *also: Expr
) -> CrossRule:
    """A value (key, value) that only a newer component knows: (what, its version key, since)."""
    key, value = chosen
    what, version_key, since = needs
    version = Field(f"Values.{version_key}")
    return CrossRule(
        id,
        key,
        call("and", *also, call("eq", Field(f"Values.{key}"), value), call("older", version, since)),
        (f"'{value}' needs {what} {since} or newer; {version_key} is '", version, f"'{hint}"),
    )


RULES = (
    CrossRule(
        "zone-on-autopilot",
        "cluster.zone",
        call("and", call("eq", MODE, "autopilot"), call("eq", Field("Values.cluster.zone"), "")),
        (
            "required on Autopilot: the RDMA network profile is zonal and the workers must be pinned "
            "to its zone (e.g. us-central1-b)",
        ),
        deploy_only=True,  # where the run is placed, not what it is: `check` and `plan` go without
    ),
    CrossRule(
        "reservation-named",
        "cluster.reservation",
        call("and", UsesCapacity("reservation"), call("eq", Field("Values.cluster.reservation"), "")),
        ("required with capacity 'reservation' (the reservation's name)",),
        deploy_only=True,
    ),
    CrossRule(
        "reservation-only-reserved",
        "cluster.reservation",
        call(
            "and",
            call("not", UsesCapacity("reservation")),
            call("ne", Field("Values.cluster.reservation"), ""),
        ),
        (
            "'",
            Field("Values.cluster.reservation"),
            "' is only used with capacity 'reservation' (cluster.capacity is '",
            CAPACITY,
            "' and no worker group names 'reservation')",
        ),
    ),
    # KubeRay refuses replicas outside [minReplicas, maxReplicas] (DESIGN.md, KubeRay facts).
    CrossRule(
        "group-replicas-in-bounds",
        "workerGroups.replicas",
        call(
            "or",
            call("gt", GroupField("minReplicas", 0), GroupField("replicas")),
            call(
                "and",
                call("gt", GroupField("maxReplicas", 0), 0),
                call("gt", GroupField("replicas"), GroupField("maxReplicas", 0)),
            ),
        ),
        (
            "group '",
            GroupName(),
            "': replicas ",
            GroupField("replicas"),
            " must lie within minReplicas ",
            GroupField("minReplicas", 0),
            " and maxReplicas ",
            GroupField("maxReplicas", 0),
            " (0: replicas)",
        ),
        each_group=True,
    ),
    CrossRule(
        "ttl-needs-shutdown",
        "job.ttlSecondsAfterFinished",
        call(
            "and",
            call("gt", Field("Values.job.ttlSecondsAfterFinished"), 0),
            call("not", Field("Values.job.shutdownAfterJobFinishes")),
        ),
        ("> 0 needs job.shutdownAfterJobFinishes: true (or set it to 0)",),
    ),
    needs_version(
        "ray-auth-needs-ray",
        ("ray.auth", "token"),
        ("Ray", "ray.version", RAY_TOKEN_AUTH_SINCE),
        " (an image with a newer Ray, or ray.auth: disabled)",
    ),
    needs_version(
        "ray-auth-needs-kuberay",
        ("ray.auth", "token"),
        ("KubeRay", "kuberay.version", AUTH_SECRET_SINCE),
        " (authOptions.secretName)",
    ),
    needs_version(
        "sidecar-mode-needs-kuberay",
        ("job.submissionMode", "SidecarMode"),
        ("KubeRay", "kuberay.version", SIDECAR_MODE_SINCE),
        " (use K8sJobMode or HTTPMode)",
        call("eq", RUN_KIND, "RayJob"),
    ),
    CrossRule(
        "rayjob-name-length",
        "run.name",
        call(
            "and",
            call("eq", RUN_KIND, "RayJob"),
            call("gt", RAYJOB_NAME_LENGTH, RAYJOB_NAME_MAX),
        ),
        (
            "RayJob name '",
            RELEASE,
            "-",
            Field("Values.run.name"),
            "-<8 hex digits>' is ",
            RAYJOB_NAME_LENGTH,
            f" characters; KubeRay allows {RAYJOB_NAME_MAX}",
        ),
    ),
    CrossRule(
        "tp-divides-node",
        "training.tensorParallelSize",
        call("ne", call("mod", GPUS_PER_NODE, Field("Values.training.tensorParallelSize")), 0),
        (Field("Values.training.tensorParallelSize"), " must divide the ", GPUS_PER_NODE, " GPUs of a node"),
    ),
    CrossRule(
        "bucket-named",
        "storage.bucket",
        call("eq", Field("Values.storage.bucket"), ""),
        (
            "not set: bucket names are global, so there is no default; choose yours "
            "(-f my.yaml with storage: {bucket: NAME}, or --set storage.bucket=NAME)",
        ),
        deploy_only=True,
    ),
    # An image without the node's platform fails on it with "exec format error" (GKE "Ray on A4X",
    # https://cloud.google.com/kubernetes-engine/docs/add-on/ray-on-gke/how-to/ray-a4x,
    # Troubleshoot); verl publishes none for arm64 (data/verl/<version>.yaml image.platforms cites it).
    CrossRule(
        "image-carries-arch",
        "image.platforms",
        call(
            "not",
            call("matches", Field("Values.image.platforms"), call("concat", "(?m)^linux/", GROUP_ARCH, "$")),
        ),
        (
            "lacks linux/",
            GROUP_ARCH,
            ", the platform of the ",
            GROUP_MACHINE,
            " nodes group '",
            GroupName(),
            "' runs on (verl publishes x86 images only): build verl's image for it "
            "(docker/Dockerfile.stable.vllm on such a machine), push it as a multi-arch image and set "
            "image.repository, image.tag and image.platforms",
        ),
        each_group=True,
    ),
    CrossRule(
        "image-has-rollout",
        "training.rolloutName",
        call(
            "and",
            call("eq", Field("Values.image.repository"), VERL_IMAGES),
            call("matches", Field("Values.image.tag"), f"^{ROLLOUT_IMAGE_PREFIX}"),
            call("eq", Field("Values.training.rolloutName"), "sglang"),
        ),
        (
            "'sglang' but ",
            Field("Values.image.repository"),
            ":",
            Field("Values.image.tag"),
            " is verl's vLLM image, built on vLLM's release image with no SGLang (verl docker/README.md); "
            "use verl's sglang image (an sgl* tag) or rolloutName vllm",
        ),
    ),
    CrossRule(
        "image-tag-pinned",
        "image.tag",
        call("matches", Field("Values.image.tag"), FLOATING_TAG),
        (
            "'",
            Field("Values.image.tag"),
            "' is a floating tag: nodes pulling at different times can run different images; "
            "use a fixed tag (such as vllm011.dev7)",
        ),
    ),
    CrossRule(
        "release-name",
        "release name",
        call(
            "or",
            call("not", call("matches", RELEASE, DNS1035)),
            call("gt", call("length", RELEASE), RELEASE_NAME_MAX),
        ),
        ("'", RELEASE, f"' must be DNS-1035 (a-z, 0-9, '-'), at most {RELEASE_NAME_MAX} characters"),
    ),
    *_mount_rules(),
    *_bucket_folder_rules(),
    _fit_rule(CPU),
    _fit_rule(MEMORY),
    _fit_rule(EPHEMERAL),
    # The file cache lives in the sidecar's emptyDir: "the value of Pod annotation
    # gke-gcsfuse/ephemeral-storage-limit must be larger than the fileCacheCapacity volume
    # attribute" (node_fit.FILE_CACHE_CAPACITY cites it); "0" (no limit) is larger.
    CrossRule(
        "sidecar-holds-file-cache",
        "storage.sidecar.ephemeralStorageLimit",
        call(
            "and",
            call("gtf", SIDECAR_EPHEMERAL_SET, 0),
            call("not", call("gtf", SIDECAR_EPHEMERAL_SET, FILE_CACHE)),
        ),
        (
            "'",
            Field("Values.storage.sidecar.ephemeralStorageLimit"),
            "' must be larger than storage.fileCacheCapacity '",
            Field("Values.storage.fileCacheCapacity"),
            "': the file cache lives in the sidecar's volume (gcs-fuse-csi-driver docs/troubleshooting.md)",
        ),
    ),
    CrossRule(
        "worker-cpus-for-verl",
        "worker.cpu",
        call("gtf", call("mulf", RAY_CPUS_PER_GPU, GPUS_PER_NODE), call("quantity", CPU.request)),
        (
            "'",
            CPU.request,
            "' is below ",
            call("times", RAY_CPUS_PER_GPU, GPUS_PER_NODE),
            ": verl ",
            VERL_VERSION,
            " places ",
            RAY_CPUS_PER_GPU,
            " CPUs per GPU bundle and waits forever without them",
        ),
        each_group=True,
    ),
    *_verl_image_rules(),
    *_autopilot_sidecar_rules(),
    *_verl_rules(),
    *_queue_rules(),
    *_machine_rules(),
)


def violations(
    values: dict[str, Any], release_name: str, deploying: bool = True
) -> list[tuple[CrossRule, str]]:
    """Each rule the values break, with its message (`deploying` False: not the deploy-only ones)."""
    scope: Scope = {"Values": values, "Release": {"Name": release_name}}
    scopes = [{**scope, "group": g, "group_name": n} for n, g in sorted(values["workerGroups"].items())]
    out: list[tuple[CrossRule, str]] = []
    for r in RULES:
        if deploying or not r.deploy_only:
            found = [(r, r.text(s)) for s in (scopes if r.each_group else [scope]) if r.when.py(s)]
            out += dict.fromkeys(found)  # groups alike say it once
    return out


VALIDATE_VALUES = "verl-grpo.validateValues"


def rule_templates() -> list[str]:
    """Each rule's named template: verl-grpo.rule.<id>, numbered where one id has several rules."""
    seen: dict[str, int] = {}
    names = []
    for r in RULES:
        seen[r.id] = seen.get(r.id, 0) + 1
        names.append(f"verl-grpo.rule.{r.id}" + (f".{seen[r.id]}" if seen[r.id] > 1 else ""))
    return names


def rules_template() -> str:
    """templates/_rules.tpl: each rule a named template that prints its message when the values
    break it (each group's, for a per-group rule), and `verl-grpo.validateValues`, which every
    object's template includes: it fails once with every message, as Bitnami's charts do (each
    chart's `<chart>.validateValues` in templates/_helpers.tpl gathers `$messages` and fails with
    their join, e.g. bitnami/charts bitnami/postgresql; bitnami/common/templates/_validations.tpl)."""
    lines = [
        "{{- /* The kit's cross-field rules (rules/cross_rules.py), as `verl-grpo check` runs them. */}}",
        # One action a line (`{{-` trims the line break before it).
        *(
            t.replace("}}{{-", "}}\n{{-")
            for t in (QUANTITY_TEMPLATE, WORKER_COUNT_TEMPLATE, *GROUP_TEMPLATES)
        ),
        LIST_TEMPLATE,
        "",
    ]
    names = rule_templates()
    for r, name in zip(RULES, names, strict=True):
        test = [f"{{{{- if {r.when.go()} }}}}", f"{{{{ {r.go_message()} }}}}", "{{- end }}"]
        if r.each_group:
            test = [
                "{{- range $name, $group := .Values.workerGroups }}",
                *(from_root(t) for t in test),
                "{{- end }}",
            ]
        lines += [f'{{{{- define "{name}" }}}}', *test, "{{- end }}"]
    lines += [
        "",
        "{{- /* Every rule's messages, each once; fail with all of them. */}}",
        f'{{{{- define "{VALIDATE_VALUES}" }}}}',
        # A list of worker groups: the one message, before rules that range over the map.
        '{{- if kindIs "slice" .Values.workerGroups }}',
        f'{{{{- fail (include "{AS_MAP}" .) }}}}',
        "{{- end }}",
        "{{- $messages := list }}",
    ]
    for name in names:
        rule = f'include "{name}" .'
        lines.append(f'{{{{- $messages = concat $messages (splitList "\\n" ({rule})) }}}}')
    lines += [
        '{{- $messages = without ($messages | uniq) "" }}',
        '{{- if $messages }}{{ fail (join "\\n" $messages) }}{{ end }}',
        "{{- end }}",
    ]
    return "\n".join(lines) + "\n"
