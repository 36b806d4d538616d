"""`verl-grpo plan`: what a run will use and do, before anything is created."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from ..facts.capacity import CAPACITIES
from ..facts.kueue import FLEX_START_MAX_SECONDS
from ..facts.machines import GIB, GpuProfile, gpu_profiles
from ..facts.node_fit import GPU_NODE_DAEMONSETS, Amounts, amounts, cpu_pool
from ..facts.quantity import parse_quantity
from ..facts.verl_releases import verl_pin, verl_release
from ..pod.preflight import model_billions
from ..problems import PLAN, Problem
from ..rules.check import cpu_pool_pods, pod_sidecars
from ..values.derive import DeploySpec, gpu_node, group_spec
from ..values.model import Values
from ..values.worker_groups import group_views, machines, total_workers
from ..verl_check.steps import steps_per_epoch, total_steps
from . import gpu_memory

BF16 = 2
# A verl checkpoint of the actor: fp32 weights and Adam's two fp32 moments (checkpoint
# save_contents defaults to [model, optimizer, extra]: verl/trainer/config/actor/actor.yaml; the
# FSDP checkpoint manager writes every rank's shard, verl/utils/checkpoint/fsdp_checkpoint_manager.py).
CHECKPOINT_BYTES_PER_PARAM = 12
# Seconds per training step when the user has not measured one (`plan --step-seconds`): an
# assumption, printed as one, for a 32B model at the defaults on 16 GPUs (rollout, reference,
# actor update). A first run's `verl-grpo metrics` shows verl's measured `timing_s/step`.
ASSUMED_STEP_SECONDS = 360.0


@dataclass
class Plan:
    gpu: dict[str, Any]
    pods: list[dict[str, Any]]
    ray: dict[str, Any]
    batches: dict[str, Any]
    run: dict[str, Any]
    memory_per_gpu_gb: dict[str, Any]
    storage_gb: dict[str, Any]
    cost: dict[str, Any]
    security: dict[str, Any]
    warnings: list[Problem] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def make_plan(
    spec: DeploySpec,
    problems: list[Problem],
    gpu_hour_price: float | None,
    step_seconds: float | None = None,
) -> Plan:
    v, gpu, d, t = spec.values, spec.gpu, spec.derived, spec.values.training
    nodes, per_node = total_workers(v), gpu.gpus_per_node
    groups = group_views(v)
    capacities = list(dict.fromkeys(g.values.cluster.capacity for g in groups))
    gpus = nodes * per_node
    pods = pod_rows(spec)
    release = verl_release(t.verl_version)
    per_gpu_cpus = release.ray_cpus_per_gpu
    ray = {
        "cpus_per_worker": float(parse_quantity(d.worker_cpu)),
        "verl_needs_per_node": per_gpu_cpus * per_node,
        # the trainer's actor and its loop workers: placed on nodes with CPUs, holding none while they
        # run (data/verl/0.9.1.yaml loopWorkers)
        "verl_cpu_actors": 1 + release.loop_workers,
        "gpus": gpus,
    }
    rollouts = t.train_batch_size * t.rollout_n
    steps = total_steps(t)
    mini_per_gpu = t.ppo_mini_batch_size * t.rollout_n // gpus
    saves = 0 if t.save_freq <= 0 else steps // t.save_freq + (1 if steps % t.save_freq else 0)
    batches = {
        "prompts_per_step": t.train_batch_size,
        "rollouts_per_step": rollouts,
        "mini_batches_per_step": t.train_batch_size // t.ppo_mini_batch_size,
        "responses_per_gpu_per_mini_batch": mini_per_gpu,
        "grad_accumulation_steps": mini_per_gpu // t.ppo_micro_batch_size_per_gpu,
        "steps_per_epoch": steps_per_epoch(t),
        "total_steps": steps,
        "checkpoints": saves,
    }
    per_step = step_seconds or ASSUMED_STEP_SECONDS
    hours = steps * per_step / 3600
    run: dict[str, Any] = {
        "model": v.storage.model_dir.rstrip("/").rsplit("/", 1)[-1],
        "total_steps": steps,
        "step_seconds": per_step,
        "step_seconds_assumed": step_seconds is None,
        "hours": round(hours, 1),
        "gpu_hours": round(hours * gpus, 1),
        "cost": None if gpu_hour_price is None else round(hours * gpus * gpu_hour_price, 2),
        "retries": retries(v),
    }
    billions = model_billions(v.storage.model_dir)
    est = memory_estimate(spec)
    memory = memory_table(est, smallest_gpu(v).gpu_memory_gb)
    storage: dict[str, Any] = {"checkpoints_kept": t.checkpoints_to_keep}
    if billions:
        per_checkpoint = billions * CHECKPOINT_BYTES_PER_PARAM
        storage["model_gb"] = round(billions * BF16, 1)
        storage["per_checkpoint_gb"] = round(per_checkpoint, 1)
        # verl deletes the oldest beyond the limit after a save: one more exists for a moment.
        storage["bucket_peak_gb"] = round(
            storage["model_gb"] + per_checkpoint * (t.checkpoints_to_keep + 1), 1
        )
    reserved = sum(g.replicas for g in groups if g.values.cluster.capacity == "reservation")
    cost = {
        "gpu_hour_price": gpu_hour_price,
        "per_hour": None if gpu_hour_price is None else round(gpus * gpu_hour_price, 2),
        # A reservation bills its GPUs whether nodes run or not; the other capacities only while
        # nodes exist, and the GPU pool scales to 0 without a run.
        "idle_per_hour": None if gpu_hour_price is None else round(reserved * per_node * gpu_hour_price, 2),
        "idle": "GPU pool autoscales to 0 when no run holds it (Standard; Autopilot makes nodes per pod): "
        + "; ".join(CAPACITIES[c].idle_note for c in capacities),
    }
    warnings = list(problems)
    max_hours = FLEX_START_MAX_SECONDS / 3600 if "flex-start" in capacities else None
    if max_hours is not None and run["hours"] > max_hours:
        longer = f"the run's {run['hours']:g} h exceed the {max_hours:g} h a flex-start VM runs"
        warnings.append(Problem("warning", PLAN, "cluster.capacity", longer))
    if "flex-start" in capacities and not v.queue.enabled and v.run.kind == "RayJob":
        # Without Kueue's ProvisioningRequest the workers' nodes come when flex-start finds the
        # capacity, a wait GKE does not bound (its flex-start page, facts/capacity.py), while
        # KubeRay fails a RayJob whose cluster is not running within preRunningDeadlineSeconds
        # (facts/kuberay.py RAYJOB_FIELD_SINCE).
        waits = (
            f"flex-start may find the capacity later than job.preRunningDeadlineSeconds "
            f"({v.job.pre_running_deadline_seconds} s), after which KubeRay fails the run: raise it, "
            "or queue the run (queue.enabled, queue.createObjects) so Kueue asks for the nodes first"
        )
        warnings.append(Problem("warning", PLAN, "job.preRunningDeadlineSeconds", waits))
    warnings += memory_problems(spec, est)
    guarded = security(spec)
    return Plan(
        {
            "type": gpu.name,
            "machine": gpu.machine_type,
            "nodes": nodes,
            "gpus_per_node": per_node,
            "mode": v.cluster.mode,
            "capacity": " + ".join(capacities),
            "groups": [
                {
                    "name": g.name,
                    "replicas": g.replicas,
                    "capacity": g.values.cluster.capacity,
                    "machine": g.values.gpu.type,
                    "pool": g.pool,
                }
                for g in groups
            ],
            "scheduling": scheduling(v, capacities),
            "rdma": rdma(spec),
            "max_run_hours": max_hours,
        },
        pods,
        ray,
        batches,
        run,
        memory,
        storage,
        cost,
        guarded,
        warnings,
    )


def security(spec: DeploySpec) -> dict[str, Any]:
    """Who can drive the cluster and touch the bucket, and every outside thing the run pulls, pinned."""
    from ..constructs.base import image
    from ..constructs.verl_ray_cluster import ray_auth_secret
    from ..facts.kuberay import AUTH_SECRET_SINCE, RAY_TOKEN_AUTH_SINCE
    from ..facts.pins import COMMIT, rdma_installer, rdma_installer_nccl
    from ..facts.versions import version_at_least

    v = spec.values
    missing = [
        f"{what} {since}+ ({key} is {version})"
        for what, since, key, version in (
            ("Ray", RAY_TOKEN_AUTH_SINCE, "ray.version", v.ray.version),
            ("KubeRay", AUTH_SECRET_SINCE, "kuberay.version", v.kuberay.version),
        )
        if not version_at_least(version, since)
    ]
    if v.ray.auth == "token":
        auth = f"token from Secret {ray_auth_secret(spec)} (dashboard, Jobs API, Ray's RPCs)"
    elif not missing:
        auth = "none: set ray.auth: token (the image's Ray and the operator support it)"
    else:
        auth = (
            f"none: token auth needs {' and '.join(missing)}; the NetworkPolicy keeps the dashboard "
            "to the release's pods, the operator and port-forward"
        )
    ns, ksa = spec.release.namespace, v.service_account.name
    return {
        # The one namespace every path names: the bucket grants the scripts make (scripts/lib.sh
        # wi_member: ns/<NAMESPACE>/sa/<name>) and where Helm installs the service accounts.
        "namespace": f"{ns}: Workload Identity ns/{ns}/sa/{ksa} and ns/{ns}/sa/{ksa}-data-prep; install "
        f"with helm -n {ns} (or synth -n {ns}) and run the scripts with -n {ns}, whose grants name these",
        "ray_auth": auth,
        "network_policy": "in: the release's pods, the operator on 8265; out: the release's pods, DNS, "
        "the metadata server, HTTPS outside " + ", ".join(v.network_policy.cluster_cidrs),
        "bucket": f"read: gs://{v.storage.bucket or '<storage.bucket>'}; write: {v.storage.checkpoint_dir}/ "
        f"(Ray pods), {v.storage.model_dir}/, {v.storage.data_dir}/, {v.storage.verl_dir}/ (data-prep Job)",
        "pins": {
            "image": image(spec)
            + (
                ""
                if v.image.digest
                else f" (the tag alone: set image.digest from `crane digest {image(spec)}`)"
            ),
            "model": f"{v.data_prep.model_id}@{v.data_prep.model_revision}"
            + (
                ""
                if COMMIT.match(v.data_prep.model_revision)
                else " (a branch or tag: the weights can change)"
            ),
            "verl": verl_pin(verl_release(v.training.verl_version)),
            "verl_image": verl_image_note(spec),
            "rdma_installer": rdma_installer(v.cluster.mode, spec.gpu.arch)
            + f" ({rdma_installer_nccl(v.cluster.mode, spec.gpu.arch)})",
        },
    }


def verl_image_note(spec: DeploySpec) -> str:
    """What is known of the image for the run's verl (data/verl/<version>.yaml, image)."""
    v = spec.values
    release = verl_release(v.training.verl_version)
    if (v.image.repository, v.image.tag) != (release.image.repository, release.image.tag):
        return (
            f"your build: before verl {release.version} starts, the pre-flight finds "
            f"{', '.join(release.image.imports)} in it and checks its Ray is {v.ray.version}"
        )
    known = (
        "verl's own for this release"
        if release.image.documented
        else (
            f"not verl's (it documents none for {release.version}): the nearest, which the pre-flight "
            f"checks at start for {', '.join(release.image.imports)}"
        )
    )
    if release.image.ray:
        return f"{known}; Ray {release.image.ray}"
    return (
        f"{known}; its Ray is not documented: ray.version {v.ray.version} is asserted at start; read it "
        f"with `docker run --rm {release.image_reference} python3 -c 'import ray; print(ray.__version__)'`"
    )


def retries(v: Values) -> str:
    """How many preemptions (or failures) a run survives: the RayJob's retries, each on a new cluster
    resuming from the newest checkpoint (values/worker_groups.py backoff_limit)."""
    from ..values.worker_groups import backoff_limit

    if v.run.kind != "RayJob":
        return (
            "none: a RayCluster run that fails stays failed; `verl-grpo submit` starts it again (it resumes)"
        )
    n = backoff_limit(v)
    how = "job.backoffLimit" if v.job.backoff_limit >= 0 else "job.backoffLimit -1: by capacity"
    plural = "s" * (n != 1)
    return (
        f"{n} ({how}): the run survives {n} preemption{plural} or failure{plural}, each resuming "
        f"from its newest checkpoint (up to training.saveFreq = {v.training.save_freq} steps lost each)"
    )


def rdma(spec: DeploySpec) -> str:
    """How each worker gets its node's RDMA NICs (network.rdma), and A4X's IMEX channel."""
    nics = spec.gpu.rdma_nics
    if spec.values.network.rdma == "dranet":
        how = f"GKE managed DRANET: each worker claims all {nics} RDMA NICs of its node (ResourceClaim)"
    else:
        how = f"multi-networking: {nics} RDMA NICs and the gVNIC as pod interfaces (Network objects)"
    if spec.gpu.imex:
        how += "; an IMEX channel of the run's ComputeDomain (NVIDIA DRA driver) for multi-node NVLink"
    return how


def scheduling(v: Values, capacities: Sequence[str]) -> str:
    """How the run gets its nodes: straight away, or queued in Kueue and placed by topology."""
    q = v.queue
    if not q.enabled:
        return "no queue: pods go to the scheduler as soon as they exist"
    how = f"Kueue LocalQueue {q.local_queue!r}: the run starts when Kueue admits it"
    if "flex-start" in capacities:
        how += ", its GPU nodes requested all at once (ProvisioningRequest, queued provisioning)"
    if q.topology.mode != "none":
        how += ", its GPU nodes made all at once first (ProvisioningRequest, atomic scale-up)"
        how += f"; workers {q.topology.mode} within one {q.topology.level}"
    return how


# The values keys that move each memory term (a lever without a values key of its own goes
# through training.extraArgs, naming verl's key).
OFFLOAD_ARGS = (
    "actor_rollout_ref.actor.fsdp_config.param_offload=true",
    "actor_rollout_ref.actor.fsdp_config.optimizer_offload=true",
)
MEMORY_KEYS = {
    "micro_batch": "training.ppoMicroBatchSizePerGpu",
    "log_prob_micro_batch": "training.logProbMicroBatchSizePerGpu",
    "checkpointing": "training.gradientCheckpointing",
    "offload": "training.extraArgs",
    "vllm": "training.gpuMemoryUtilization",
    "gpus": "workerGroups",
}
ACTOR, ROLLOUT, MODEL = "actor_rollout_ref.actor", "actor_rollout_ref.rollout", "actor_rollout_ref.model"


def memory_estimate(spec: DeploySpec) -> gpu_memory.Estimate | None:
    """The per-GPU memory model (gpu_memory.py) fed from verl's config as the run composes it
    (values and training.extraArgs), or None when the model folder's name has no size."""
    from ..constructs.runtime_env import all_overrides
    from ..verl_check.config import compose

    billions = model_billions(spec.values.storage.model_dir)
    if not billions:
        return None
    cfg = compose(spec.values.training.verl_version, all_overrides(spec))
    seq = int(cfg.get("data.max_prompt_length")) + int(cfg.get("data.max_response_length"))
    keys = dict(MEMORY_KEYS)

    def tokens(micro: Any, dynamic: Any, max_tokens: Any, key: str, verl_key: str) -> int:
        if dynamic:  # use_dynamic_bsz packs micro-batches up to a token budget per GPU
            keys[key] = f"training.extraArgs ({verl_key})"
            return int(max_tokens)
        return int(micro or 1) * seq  # every sequence at full length: the worst case

    train = tokens(
        cfg.get(f"{ACTOR}.ppo_micro_batch_size_per_gpu"),
        cfg.get(f"{ACTOR}.use_dynamic_bsz"),
        cfg.get(f"{ACTOR}.ppo_max_token_len_per_gpu"),
        "micro_batch",
        f"{ACTOR}.ppo_max_token_len_per_gpu",
    )
    log_prob = max(
        tokens(
            cfg.get(f"{role}.log_prob_micro_batch_size_per_gpu"),
            cfg.get(f"{role}.log_prob_use_dynamic_bsz"),
            cfg.get(f"{role}.log_prob_max_token_len_per_gpu"),
            "log_prob_micro_batch",
            f"{role}.log_prob_max_token_len_per_gpu",
        )
        for role in (ROLLOUT, "actor_rollout_ref.ref")
    )
    gpus = total_workers(spec.values) * spec.gpu.gpus_per_node
    return gpu_memory.estimate(
        gpu_memory.Run(
            billions=billions,
            gpus=gpus,
            gpu_memory_gb=smallest_gpu(spec.values).gpu_memory_gb,
            train_tokens=train,
            log_prob_tokens=log_prob,
            gradient_checkpointing=bool(cfg.get(f"{MODEL}.enable_gradient_checkpointing")),
            param_offload=bool(cfg.get(f"{ACTOR}.fsdp_config.param_offload")),
            optimizer_offload=bool(cfg.get(f"{ACTOR}.fsdp_config.optimizer_offload")),
            gpu_memory_utilization=float(cfg.get(f"{ROLLOUT}.gpu_memory_utilization")),
            tensor_parallel=int(cfg.get(f"{ROLLOUT}.tensor_model_parallel_size")),
            vllm_sleeps=bool(cfg.get(f"{ROLLOUT}.free_cache_engine")),
            keys=keys,
        )
    )


def smallest_gpu(v: Values) -> GpuProfile:
    """The groups' machine with the least GPU memory: verl shards the model alike over every GPU
    and vLLM takes the same share of each, so the smallest GPU is where a run runs out."""
    return min((gpu_profiles()[m] for m in machines(v)), key=lambda p: p.gpu_memory_gb)


def memory_table(est: gpu_memory.Estimate | None, gpu_gb: float) -> dict[str, Any]:
    """Every term of every phase in GB, the phases' totals and the peak."""
    memory: dict[str, Any] = {"gpu_gb": gpu_gb}
    if est is None:
        return memory
    memory["model"] = f"{est.params / 1e9:.2f}B parameters, {est.shape_source}"
    memory["phases"] = {
        phase: {**{term.name: round(term.gb, 1) for term in terms}, "total": round(est.total(phase), 1)}
        for phase, terms in est.phases.items()
    }
    pool = est.run.gpu_memory_utilization * gpu_gb
    memory["vllm_weights_gb"] = round(est.vllm_weights_gb, 1)
    memory["kv_cache_gb"] = round(max(0.0, pool - est.vllm_weights_gb), 1)
    memory["peak_phase"] = est.peak_phase
    memory["total_gb"] = round(est.peak_gb, 1)
    memory["margin_gb"] = round(gpu_memory.MARGIN * gpu_gb, 1)
    return memory


def memory_problems(spec: DeploySpec, est: gpu_memory.Estimate | None) -> list[Problem]:
    """A warning when the estimated peak leaves less than gpu_memory.MARGIN of the GPU free,
    naming the setting whose term is the largest in the peak phase. `check` shows the same."""
    gpu, t = smallest_gpu(spec.values), spec.values.training
    if est is None:
        return []
    peak, phase = est.peak_gb, est.peak_phase
    free = gpu.gpu_memory_gb - peak
    if free >= gpu_memory.MARGIN * gpu.gpu_memory_gb:
        return []
    where = f"estimated peak {peak:.1f} GB per GPU ({phase} phase)"
    if free < 0:
        text = f"{where} exceeds the {gpu.gpu_memory_gb:g} GB of a {gpu.name}"
    else:
        text = (
            f"{where} leaves {free:.1f} GB of the {gpu.gpu_memory_gb:g} GB of a {gpu.name}, "
            f"less than the {gpu_memory.MARGIN:.0%} margin"
        )
    lever = gpu_memory.lever(est)
    if lever is None:
        return [Problem("warning", PLAN, "workerGroups", text)]
    what = {
        "training.ppoMicroBatchSizePerGpu": f"lower it (now {t.ppo_micro_batch_size_per_gpu})",
        "training.logProbMicroBatchSizePerGpu": f"lower it (now {t.log_prob_micro_batch_size_per_gpu})",
        "training.gradientCheckpointing": "set it to true",
        "training.gpuMemoryUtilization": f"lower it (now {t.gpu_memory_utilization:g})",
        "training.extraArgs": "offload the actor outside its phases: add " + " and ".join(OFFLOAD_ARGS),
        "workerGroups": f"shard the actor over more GPUs (now {total_workers(spec.values)} nodes)",
    }
    # A dynamic-batch token budget has no values key of its own: training.extraArgs (verl's key).
    key, _, verl_key = lever.key.partition(" ")
    advice = what.get(lever.key, f"lower {verl_key.strip('()')}")
    terms = " + ".join(f"'{name}'" for name in lever.terms)
    text += f"; {terms} ({lever.gb:.1f} GB) is the most one setting moves: {advice}"
    return [Problem("warning", PLAN, key, text)]


def render_text(plan: Plan, width: int = 100) -> str:
    from rich.console import Console
    from rich.table import Column, Table

    console = Console(
        width=width, record=True, color_system=None, force_terminal=False, file=open("/dev/null", "w")
    )
    g = plan.gpu
    console.print(
        f"{g['type']} on {g['machine']}: {g['nodes']} nodes x {g['gpus_per_node']} GPUs "
        f"({g['mode']}, {g['capacity']})"
    )
    limit = "" if g["max_run_hours"] is None else f" A flex-start VM runs at most {g['max_run_hours']:g} h."
    console.print(f"Scheduling: {g['scheduling']}.{limit}", soft_wrap=True)
    if len(g["groups"]) > 1:
        mixed = len({w["machine"] for w in g["groups"]}) > 1
        groups = ", ".join(
            f"{w['name']} {w['replicas']} x {w['capacity']}"
            + (f" on {w['machine']}" if mixed else "")
            + f" (pool {w['pool']})"
            for w in g["groups"]
        )
        console.print(f"Worker groups: {groups}.", soft_wrap=True)
    console.print(f"RDMA: {g['rdma']}.", soft_wrap=True)
    pods = Table(
        "pod", "node", "cpu", "memory", "ephemeral", "node allocatable", title="Requests, sidecars included"
    )
    for p in plan.pods:
        pods.add_row(p["pod"], p["node"], p["cpu"], p["memory"], p["ephemeral"], p["node_allocatable"])
    console.print(pods)
    r = plan.ray
    needs = r["verl_needs_per_node"]
    console.print(f"Ray CPUs per worker: {r['cpus_per_worker']:g} (verl's placement groups need {needs})")
    security_rows = {k: v for k, v in plan.security.items() if k != "pins"} | {
        f"pin: {k}": v for k, v in plan.security["pins"].items()
    }
    for title, rows in (
        ("Batches", plan.batches),
        ("Bucket space (GB, rough)", plan.storage_gb),
        ("Access and pins", security_rows),
    ):
        table = Table(Column(""), Column("", overflow="fold"), title=title, show_header=False)
        for key, value in rows.items():
            table.add_row(key.replace("_", " "), str(value))
        console.print(table)
        if title == "Batches":
            render_memory(console, plan.memory_per_gpu_gb)
    c, run = plan.cost, plan.run
    seconds = f"{run['step_seconds']:g} s per step" + (
        " (assumed: measure with --step-seconds)" if run["step_seconds_assumed"] else ""
    )
    console.print(
        f"Run: {run['model']}, {run['total_steps']} steps x {seconds} = {run['hours']:g} h, "
        f"{run['gpu_hours']:g} GPU-hours" + ("" if run["cost"] is None else f", {run['cost']:.2f} in all"),
        soft_wrap=True,
    )
    console.print(
        "Cost: set --gpu-hour-price"
        if c["per_hour"] is None
        else f"Cost: {c['per_hour']:.2f} per hour at {c['gpu_hour_price']:g} per GPU-hour"
    )
    console.print(f"Retries: {run['retries']}", soft_wrap=True)
    idle = "" if c["idle_per_hour"] is None else f"{c['idle_per_hour']:.2f} per idle hour of GPUs; "
    console.print(f"Idle: {idle}{c['idle']}", soft_wrap=True)
    for w in plan.warnings:
        console.print(w.line(), soft_wrap=True, markup=False)
    return console.export_text()


# Rows of the memory table: the actor's state, what the batch makes, vLLM, then the fixed costs.
TERM_ORDER = (
    "actor weights",
    "actor gradients",
    "Adam",
    "FSDP",
    "activations",
    "logits",
    "vLLM pool",
    "allocator",
    "CUDA",
    "NCCL",
    "",
)


def render_memory(console: Any, memory: dict[str, Any]) -> None:
    from rich.table import Table

    if "phases" not in memory:
        console.print(
            f"GPU memory per GPU: no estimate (the model folder's name has no size); {memory['gpu_gb']} GB"
        )
        return
    phases = memory["phases"]
    table = Table("term", *phases, title="GPU memory per GPU (GB, estimate; the phases run one at a time)")
    names = sorted(
        dict.fromkeys(name for terms in phases.values() for name in terms if name != "total"),
        key=lambda name: next(i for i, p in enumerate(TERM_ORDER) if name.startswith(p)),
    )
    for name in names:
        table.add_row(name, *(_gb(terms.get(name)) for terms in phases.values()))
    table.add_row("total", *(_gb(terms["total"]) for terms in phases.values()), end_section=True)
    console.print(table)
    console.print(
        f"Peak {memory['total_gb']} GB in the {memory['peak_phase']} phase, of {memory['gpu_gb']} GB "
        f"(warns with less than {memory['margin_gb']} GB free); vLLM's pool holds "
        f"{memory['vllm_weights_gb']} GB of weights and {memory['kv_cache_gb']} GB for the KV cache. "
        f"Model: {memory['model']}; terms and sources: docs/gpu-memory.md.",
        soft_wrap=True,
    )


def _gb(value: float | None) -> str:
    return "" if value is None else f"{value:.1f}"


def _row(pod: str, node: str, needs: Amounts, allocatable: Amounts) -> dict[str, Any]:
    return {
        "pod": pod,
        "node": node,
        "cpu": f"{needs.cpu:g}",
        "memory": f"{needs.memory / GIB:.1f}Gi",
        "ephemeral": f"{needs.ephemeral / GIB:.0f}Gi",
        "node_allocatable": f"{allocatable.cpu:.2f} CPU, {allocatable.memory / GIB:.0f}Gi"
        + (f", {allocatable.ephemeral / GIB:.0f}Gi eph." if allocatable.ephemeral else ""),
    }


def pod_rows(spec: DeploySpec) -> list[dict[str, Any]]:
    """Every pod with what it really asks for: its containers plus the FUSE sidecars the webhook adds."""
    v = spec.values
    rows = []
    if v.cluster.mode == "standard":
        c = v.cluster
        pool = cpu_pool(c.cpu_machine_type, c.cpu_node_count, c.cpu_disk_size_gb)
        node = f"{c.cpu_node_count} x {c.cpu_machine_type}"
        rows += [_row(p.name, node, p.needs, pool.allocatable) for p in cpu_pool_pods(spec)]
    # The workers of each machine the groups run on, sized for it (derive.group_spec).
    views = group_views(v)
    for machine in machines(v):
        on = [g for g in views if g.values.gpu.type == machine]
        group = group_spec(spec, on[0].values)
        gpu, d = group.gpu, group.derived
        allocatable = gpu_node(gpu)
        worker = amounts(d.worker_cpu, d.worker_memory, d.worker_ephemeral_storage)
        worker += pod_sidecars(group, gpu=True)
        rows.append(_row(f"worker x{sum(g.replicas for g in on)}", gpu.machine_type, worker, allocatable))
        rows.append(_row("GKE DaemonSets (bound)", gpu.machine_type, GPU_NODE_DAEMONSETS, allocatable))
    return rows
