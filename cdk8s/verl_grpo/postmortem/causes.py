"""The failures `verl-grpo postmortem` knows: what each looks like in a log and what to change.

Each pattern is written from log lines quoted in public issue threads (tests/postmortem_corpus/,
one file per excerpt with its URL); the classifier's test runs over all of them. A cause's `fix`
names the values key of this kit; where a setting's effect is verl's or Ray's, the source says so.
Causes are listed in the order they win when several match: a rank that dies (node loss, an
OOM) makes the others time out in NCCL, so NCCL timeouts come last.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Cause:
    id: str
    title: str
    patterns: tuple[str, ...]
    fix: str
    # More precise fixes, by a pattern found anywhere in the logs (first match wins).
    refinements: tuple[tuple[str, str], ...] = field(default=())
    # (line pattern, pattern the rest of the text must also show): lines that mean this cause
    # only in that company, e.g. an OOM-killed container that is the FUSE sidecar.
    paired: tuple[tuple[str, str], ...] = field(default=())

    def matcher(self) -> re.Pattern[str]:
        return re.compile("|".join(f"(?:{p})" for p in self.patterns))


CAUSES: tuple[Cause, ...] = (
    Cause(
        "preflight",
        "the pre-flight stopped the run before verl started",
        (r"^preflight: (nccl-gate: )?FAILED: ",),
        "the line names the key and the problem; fix it and submit again (nothing ran on the GPUs)",
        (
            (
                r"nccl-gate: FAILED",
                "the NCCL gate measured the fabric: the named node or pair is slow "
                "or unreachable; cordon it (kubectl cordon) so the retry lands elsewhere, or check its "
                "RDMA NICs (network.*); preflight.ncclGate.minBusBandwidthGbps sets the bar",
            ),
        ),
    ),
    Cause(
        "verl-config",
        "verl refused its configuration",
        (
            r"Could not override '",
            r"Key '[^']+' is not in struct",
            r"ConfigAttributeError|ConfigKeyError|MissingMandatoryValue",
            r"AssertionError: .*(divisible|should be larger than|must be|only support)",
        ),
        "a key of training.extraArgs is unknown to this verl or misspelt (verl's config is a Hydra "
        "struct: a new key needs +key=value); `verl-grpo check` runs verl's own rules before a run",
    ),
    Cause(
        "image-pull",
        "a pod could not pull its image",
        (r"ErrImagePull", r"ImagePullBackOff", r"Failed to pull image", r"manifest unknown"),
        "image.repository and image.tag must name an image that exists and that the nodes may pull",
        (
            (
                r"no space left on device",
                "the image does not fit the node's boot disk: a larger "
                "disk for the pool (verl images are ~15 GB unpacked)",
            ),
            (
                r"403 Forbidden|denied|unauthorized",
                "the nodes' service account may not read the "
                "registry: grant it roles/artifactregistry.reader, or use a public image",
            ),
            (r"not found|manifest unknown", "the tag does not exist: check image.tag"),
        ),
    ),
    Cause(
        "unschedulable",
        "pods could not be scheduled",
        (
            r"FailedScheduling",
            r"NotTriggerScaleUp",
            r"didn't trigger scale-up",
            r"\d+/\d+ nodes are available",
        ),
        "no node can take the pod: `verl-grpo plan` shows what each pod asks and each pool holds",
        (
            (
                r"Insufficient nvidia\.com/gpu",
                "not enough GPUs: the GPU pool's size, quota or "
                "capacity (cluster.capacity; a reservation must hold the worker groups' nodes)",
            ),
            (
                r"Insufficient (cpu|memory|ephemeral-storage)",
                "a pod asks more CPU, memory or disk "
                "than a node has: worker.cpu / worker.memory / head.* (plan's requests table)",
            ),
            (
                r"didn't match Pod's node affinity|node selector|didn't match node selector",
                "no node has the pod's labels: gpu.type and the node pool's accelerator must agree",
            ),
        ),
    ),
    Cause(
        "fuse-stall",
        "the Cloud Storage FUSE mount failed",
        (
            r"Transport endpoint is not connected",
            r"gcsfuse exited with error",
            r"gke-gcsfuse-sidecar.*OOM|OOM-killed.*gcsfuse|gcsfuse.*OOM",
            r"ephemeral local storage usage exceeds",
        ),
        "the GCS FUSE sidecar died or stalled (the mount answers 'Transport endpoint is not "
        "connected'); its own log says why",
        (
            (
                r"ephemeral local storage",
                "the pod's scratch space filled: "
                "storage.sidecar.ephemeralStorageLimit (the sidecar's limit applies to the whole pod: "
                "gcs-fuse-csi-driver issue 57)",
            ),
            (r"OOM", "the sidecar ran out of memory: storage.sidecar.memoryLimit"),
        ),
        paired=((r"OOM-killed|OOMKilled", r"gke-gcsfuse-sidecar"),),
    ),
    Cause(
        "node-loss",
        "a node went away (spot preemption, maintenance or a crash)",
        (
            r"its node has died",
            r"Owner's node has crashed",
            r"marked dead because the detector has missed too many heartbeats",
            r"NodeShutdown|imminent node shutdown",
            r"node .* (was|has been) (preempted|terminated)",
        ),
        "job.backoffLimit retries on a new cluster and verl resumes from the newest complete "
        "checkpoint; lose less with a smaller training.saveFreq, or avoid preemption with "
        "cluster.capacity reservation or flex-start",
    ),
    Cause(
        "ray-oom",
        "Ray's memory monitor killed a worker (host RAM, not GPU memory)",
        (
            r"Task was killed due to the node running low on memory",
            r"Workers \(tasks / actors\) killed due to memory pressure \(OOM\)",
            r"RayOutOfMemoryError",
            r"Ray killed this worker .* because it was the most recently scheduled task",
        ),
        "the node's RAM is exhausted (Ray kills at 95%: RAY_memory_usage_threshold): give the "
        "workers more memory (worker.memory), offload less to the CPU "
        "(training.refParamOffload), or lower training.logProbMicroBatchSizePerGpu",
    ),
    Cause(
        "cuda-oom",
        "a GPU ran out of memory",
        (
            r"CUDA out of memory",
            r"CUDA Error: out of memory",
            r"No available memory for the cache blocks",
            r"KV cache is needed",
            r"less than desired GPU memory utilization",
        ),
        "lower training.ppoMicroBatchSizePerGpu and turn on training.gradientCheckpointing "
        "(`verl-grpo plan` estimates the memory per GPU)",
        (
            # vLLM's own messages (vllm/v1/core/kv_cache_utils.py, vllm/v1/worker/gpu_worker.py)
            (
                r"No available memory for the cache blocks|KV cache is needed",
                "vLLM's share leaves "
                "no room for its KV cache: raise training.gpuMemoryUtilization or lower "
                "training.maxResponseLength",
            ),
            (
                r"cumem_allocator|wake_up|less than desired GPU memory utilization",
                "vLLM could not "
                "take back its share after training: lower training.gpuMemoryUtilization (verl issue "
                "302: 0.45 fixed it)",
            ),
            # verl runs compute_log_prob in micro-batches of log_prob_micro_batch_size_per_gpu and
            # update_policy in ppo_micro_batch_size_per_gpu (verl/workers/actor/dp_actor.py)
            (
                r"compute_log_prob|compute_ref_log_prob|entropy_from_logits",
                "the log-prob pass: lower training.logProbMicroBatchSizePerGpu",
            ),
            (
                r"update_actor|update_policy",
                "the actor update: lower "
                "training.ppoMicroBatchSizePerGpu or set training.gradientCheckpointing=true",
            ),
        ),
    ),
    Cause(
        "nccl-timeout",
        "a collective timed out or NCCL failed (the fabric, or another rank that stopped)",
        (
            r"Watchdog caught collective operation timeout",
            r"failure detected by watchdog",
            r"detected by watchdog at work",
            r"NCCL communicator was aborted",
            r"NCCL WARN NET/IB",
            r"NCCL WARN Error: network gIB not found",
            r"DistBackendError",
        ),
        "a rank stopped answering: if no other cause shows, the network between nodes; "
        "preflight.ncclGate (on by default) measures it and names the node before verl starts",
        (
            (
                r"network gIB not found",
                "NCCL could not load the gIB plugin: the node's GKE version "
                "and its RDMA binaries (/usr/local/gib) must match; see gpu-recipes issue 5",
            ),
            (
                r"NET/IB",
                "an RDMA transport error between nodes: check the node's NICs, run the "
                "NCCL gate again (preflight.ncclGate)",
            ),
        ),
    ),
)

# What a failure says when no cause matches: an exception raised (Python's last traceback line,
# Ray's RayTaskError(...)), or a line that says it failed; not Ray's own WARNING/INFO chatter.
ERROR_LINE = re.compile(
    r"^\s*[\w.]*(Error|Exception)\b[:(]|\bFAILED\b|\bfatal\b|^error:|Error from server", re.IGNORECASE
)
