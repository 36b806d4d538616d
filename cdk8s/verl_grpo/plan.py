"""`verl-grpo plan`: what a run will use and do, before anything is created."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from .preflight import model_billions
from .problems import PLAN, Problem
from .values.capacity import CAPACITIES
from .values.derive import DeploySpec
from .values.kueue import FLEX_START_MAX_SECONDS
from .values.machines import GIB, allocatable_cpu, allocatable_memory_gib
from .values.model import Values
from .values.node_fit import GPU_NODE_DAEMONSETS, Amounts, amounts, cpu_pool
from .values.quantity import parse_quantity
from .values.rules import cpu_pool_pods, pod_sidecars
from .values.verl_placement import ray_cpus_per_gpu
from .verl_check.steps import steps_per_epoch, total_steps

# Bytes per parameter of the FSDP actor: fp32 master weights, fp32 gradients, Adam's two moments.
ACTOR_BYTES_PER_PARAM = 16
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
    warnings: list[Problem] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def make_plan(
    spec: DeploySpec,
    problems: list[Problem],
    gpu_hour_price: float | None,
    verl_version: str,
    step_seconds: float | None = None,
) -> Plan:
    v, gpu, d, t = spec.values, spec.gpu, spec.derived, spec.values.training
    nodes, per_node = v.worker.replicas, gpu.gpus_per_node
    gpus = nodes * per_node
    pods = pod_rows(spec)
    per_gpu_cpus = ray_cpus_per_gpu(verl_version)
    ray = {
        "cpus_per_worker": float(parse_quantity(d.worker_cpu)),
        "verl_needs_per_node": per_gpu_cpus * per_node,
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
    run = {
        "model": v.storage.model_dir.rstrip("/").rsplit("/", 1)[-1],
        "total_steps": steps,
        "step_seconds": per_step,
        "step_seconds_assumed": step_seconds is None,
        "hours": round(hours, 1),
        "gpu_hours": round(hours * gpus, 1),
        "cost": None if gpu_hour_price is None else round(hours * gpus * gpu_hour_price, 2),
    }
    billions = model_billions(v.storage.model_dir)
    memory: dict[str, Any] = {"gpu_gb": gpu.gpu_memory_gb}
    if billions:
        params = billions * 1e9
        memory["actor_fsdp_gb"] = round(params * ACTOR_BYTES_PER_PARAM / gpus / 1e9, 1)
        memory["reference_gb"] = 0.0 if t.ref_param_offload else round(params * BF16 / gpus / 1e9, 1)
        memory["vllm_weights_gb"] = round(params * BF16 / t.tensor_parallel_size / 1e9, 1)
        memory["vllm_pool_gb"] = round(t.gpu_memory_utilization * gpu.gpu_memory_gb, 1)
        memory["kv_cache_gb"] = round(max(0.0, memory["vllm_pool_gb"] - memory["vllm_weights_gb"]), 1)
        memory["total_gb"] = round(
            memory["actor_fsdp_gb"] + memory["reference_gb"] + memory["vllm_pool_gb"], 1
        )
    storage: dict[str, Any] = {"checkpoints_kept": t.checkpoints_to_keep}
    if billions:
        per_checkpoint = billions * CHECKPOINT_BYTES_PER_PARAM
        storage["model_gb"] = round(billions * BF16, 1)
        storage["per_checkpoint_gb"] = round(per_checkpoint, 1)
        # verl deletes the oldest beyond the limit after a save: one more exists for a moment.
        storage["bucket_peak_gb"] = round(
            storage["model_gb"] + per_checkpoint * (t.checkpoints_to_keep + 1), 1
        )
    cost = {
        "gpu_hour_price": gpu_hour_price,
        "per_hour": None if gpu_hour_price is None else round(gpus * gpu_hour_price, 2),
        # A reservation bills its GPUs whether nodes run or not; the other capacities only while
        # nodes exist, and the GPU pool scales to 0 without a run.
        "idle_per_hour": None
        if gpu_hour_price is None
        else round((gpus if v.cluster.capacity == "reservation" else 0) * gpu_hour_price, 2),
        "idle": "GPU pool autoscales to 0 when no run holds it (Standard; Autopilot makes nodes per pod): "
        + CAPACITIES[v.cluster.capacity].idle_note,
    }
    warnings = list(problems)
    max_hours = FLEX_START_MAX_SECONDS / 3600 if v.cluster.capacity == "flex-start" else None
    if max_hours is not None and run["hours"] > max_hours:
        longer = f"the run's {run['hours']:g} h exceed the {max_hours:g} h a flex-start VM runs"
        warnings.append(Problem("warning", PLAN, "cluster.capacity", longer))
    if billions and memory["total_gb"] > gpu.gpu_memory_gb:
        too_much = (
            f"estimated {memory['total_gb']} GB per GPU exceeds the {gpu.gpu_memory_gb} GB of a {gpu.name}"
        )
        warnings.append(Problem("warning", PLAN, "training.gpuMemoryUtilization", too_much))
    return Plan(
        {
            "type": gpu.name,
            "machine": gpu.machine_type,
            "nodes": nodes,
            "gpus_per_node": per_node,
            "mode": v.cluster.mode,
            "capacity": v.cluster.capacity,
            "scheduling": scheduling(v),
            "max_run_hours": max_hours,
        },
        pods,
        ray,
        batches,
        run,
        memory,
        storage,
        cost,
        warnings,
    )


def scheduling(v: Values) -> str:
    """How the run gets its nodes: straight away, or queued in Kueue and placed by topology."""
    q = v.queue
    if not q.enabled:
        return "no queue: pods go to the scheduler as soon as they exist"
    how = f"Kueue LocalQueue {q.local_queue!r}: the run starts when Kueue admits it"
    if v.cluster.capacity == "flex-start":
        how += ", its GPU nodes requested all at once (ProvisioningRequest, queued provisioning)"
    if q.topology.mode != "none":
        how += f"; workers {q.topology.mode} within one {q.topology.level}"
    return how


def render_text(plan: Plan, width: int = 100) -> str:
    from rich.console import Console
    from rich.table import Table

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
    pods = Table(
        "pod", "node", "cpu", "memory", "ephemeral", "node allocatable", title="Requests, sidecars included"
    )
    for p in plan.pods:
        pods.add_row(p["pod"], p["node"], p["cpu"], p["memory"], p["ephemeral"], p["node_allocatable"])
    console.print(pods)
    r = plan.ray
    needs = r["verl_needs_per_node"]
    console.print(f"Ray CPUs per worker: {r['cpus_per_worker']:g} (verl's placement groups need {needs})")
    for title, rows in (
        ("Batches", plan.batches),
        ("GPU memory per GPU (GB, rough)", plan.memory_per_gpu_gb),
        ("Bucket space (GB, rough)", plan.storage_gb),
    ):
        table = Table("", "", title=title, show_header=False)
        for key, value in rows.items():
            table.add_row(key.replace("_", " "), str(value))
        console.print(table)
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
    idle = "" if c["idle_per_hour"] is None else f"{c['idle_per_hour']:.2f} per idle hour of GPUs; "
    console.print(f"Idle: {idle}{c['idle']}", soft_wrap=True)
    for w in plan.warnings:
        console.print(w.line(), soft_wrap=True, markup=False)
    return console.export_text()


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
    v, gpu, d = spec.values, spec.gpu, spec.derived
    rows = []
    if v.cluster.mode == "standard":
        c = v.cluster
        pool = cpu_pool(c.cpu_machine_type, c.cpu_node_count, c.cpu_disk_size_gb)
        node = f"{c.cpu_node_count} x {c.cpu_machine_type}"
        rows += [_row(p.name, node, p.needs, pool.allocatable) for p in cpu_pool_pods(spec)]
    gpu_node = Amounts(allocatable_cpu(gpu.vcpu), allocatable_memory_gib(gpu.memory_gb) * GIB, 0)
    worker = amounts(d.worker_cpu, d.worker_memory, v.worker.ephemeral_storage) + pod_sidecars(spec)
    rows.append(_row(f"worker x{v.worker.replicas}", gpu.machine_type, worker, gpu_node))
    rows.append(_row("GKE DaemonSets (bound)", gpu.machine_type, GPU_NODE_DAEMONSETS, gpu_node))
    return rows
