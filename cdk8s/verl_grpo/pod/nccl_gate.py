"""The NCCL gate: a short all-reduce across every GPU of the Ray cluster before verl starts.

A bad fabric (RDMA not in use, a NIC down, a node that cannot reach another) shows up in verl as a
hang that NCCL's watchdog ends after its timeout (10 minutes by default, then the run dies with
nothing that names the node). The gate measures the same collective verl's FSDP training runs,
with the same NCCL environment: its actors belong to the job whose runtime_env carries verl's
NCCL variables (NCCL_NET=gIB, the tuner config, ...), on the same pods, one process per GPU.

It reports what NCCL's own tests report for all-reduce (github.com/NVIDIA/nccl-tests
doc/PERFORMANCE.md): algorithm bandwidth = bytes / time, bus bandwidth = algbw * 2(n-1)/n, in
GB/s (1e9 bytes), for the whole ring, each node alone (NVLink) and each pair of nodes (the
network), and fails when the bus bandwidth at the largest size is under the threshold or a
collective does not finish within the timeout, naming the node (or the rank that never joined).

Standalone like preflight.py (stdlib here; ray and torch are imported where they run): the chart
ships it beside preflight.py in the pre-flight ConfigMap.
"""

from __future__ import annotations

import socket
import sys
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from statistics import median
from typing import Any

GB = 1e9
# Sizes swept up to the gate's size: each a quarter of the next (nccl-tests -f 4).
SWEEP_STEPS = 4
WARMUP, ITERATIONS = 2, 5
STATUS_SECONDS = 5.0  # how long the driver asks a rank what it is doing after a timeout
STALLED = "stalled by the test hook"
IN_ALL_REDUCE = "in all-reduce"


def parse_size(text: str) -> int:
    """Bytes from 256Mi, 1Gi, 64M or a plain number."""
    units = {"Ki": 2**10, "Mi": 2**20, "Gi": 2**30, "K": 10**3, "M": 10**6, "G": 10**9, "": 1}
    for suffix in sorted(units, key=len, reverse=True):
        if text.endswith(suffix) and text[: len(text) - len(suffix)].isdigit():
            return int(text[: len(text) - len(suffix)]) * units[suffix]
    raise ValueError(f"{text!r} is not a size (a number with Ki, Mi, Gi, K, M or G)")


def sweep(size: int) -> list[int]:
    """The message sizes measured, smallest first; each a multiple of 4 bytes (float32)."""
    sizes = {max(4, (size >> (2 * k)) // 4 * 4) for k in range(SWEEP_STEPS)}
    return sorted(sizes)


def human(size: int) -> str:
    for unit, scale in (("Gi", 2**30), ("Mi", 2**20), ("Ki", 2**10)):
        if size >= scale and size % scale == 0:
            return f"{size // scale}{unit}"
    return f"{size}B"


# The collectives FSDP moves its bytes with: all-gather (parameters, forward and backward) and
# reduce-scatter (gradients), and all-reduce (what verl's other steps use). nccl-tests
# doc/PERFORMANCE.md: busbw = algbw x 2(n-1)/n for all-reduce, x (n-1)/n for all-gather and
# reduce-scatter, with `size` the whole buffer (all-gather's output, reduce-scatter's input).
ALL_REDUCE, ALL_GATHER, REDUCE_SCATTER = "all-reduce", "all-gather", "reduce-scatter"
COLLECTIVES = (ALL_REDUCE, ALL_GATHER, REDUCE_SCATTER)
BUS_FACTOR = {ALL_REDUCE: 2.0, ALL_GATHER: 1.0, REDUCE_SCATTER: 1.0}


def bus_bandwidth(size: int, seconds: float, ranks: int, collective: str = ALL_REDUCE) -> tuple[float, float]:
    """(algbw, busbw) in GB/s for a collective of `size` bytes over `ranks` ranks (nccl-tests)."""
    algbw = size / seconds / GB
    return algbw, algbw * BUS_FACTOR[collective] * (ranks - 1) / ranks


@dataclass(frozen=True)
class Rank:
    rank: int
    node: str  # node_labels()
    node_id: str
    local: int  # the GPU's index on its node


@dataclass(frozen=True)
class Group:
    name: str
    nodes: tuple[str, ...]
    ranks: tuple[int, ...]


def node_labels(nodes: list[dict]) -> dict[str, str]:
    """NodeID -> how a report names the node: the pod (KubeRay makes the Ray node's hostname the
    pod's name) and its IP, plus the Ray node id where that is not unique (one machine, many nodes)."""
    plain = {n["NodeID"]: f"{n.get('NodeManagerHostname', '?')} ({n['NodeManagerAddress']})" for n in nodes}
    counts = Counter(plain.values())
    return {i: label if counts[label] == 1 else f"{label} [{i[:8]}]" for i, label in plain.items()}


def place_ranks(nodes: list[dict], per_node: int) -> list[Rank]:
    """One rank per GPU of every live GPU node (ray.nodes() entries), nodes in label order."""
    gpu_nodes = [n for n in nodes if n.get("Alive") and n.get("Resources", {}).get("GPU", 0) > 0]
    labels = node_labels(gpu_nodes)
    ordered = sorted(gpu_nodes, key=lambda n: labels[n["NodeID"]])
    return [
        Rank(i * per_node + g, labels[n["NodeID"]], n["NodeID"], g)
        for i, n in enumerate(ordered)
        for g in range(per_node)
    ]


def groups(ranks: list[Rank]) -> list[Group]:
    """The whole ring; each node alone when there are several; each pair when there are more than two."""
    by_node: dict[str, list[int]] = {}
    for r in ranks:
        by_node.setdefault(r.node, []).append(r.rank)
    nodes = list(by_node)
    found = [Group("all", tuple(nodes), tuple(r.rank for r in ranks))]
    if len(nodes) > 1:
        found += [Group(f"node {n}", (n,), tuple(by_node[n])) for n in nodes if len(by_node[n]) > 1]
    if len(nodes) > 2:
        found += [
            Group(f"pair {a} + {b}", (a, b), tuple(by_node[a] + by_node[b]))
            for i, a in enumerate(nodes)
            for b in nodes[i + 1 :]
        ]
    return found


@dataclass
class Measurement:
    group: Group
    size: int
    seconds: float  # per collective, the slowest rank's median
    collective: str = ALL_REDUCE

    @property
    def bandwidth(self) -> tuple[float, float]:
        return bus_bandwidth(self.size, self.seconds, len(self.group.ranks), self.collective)


@dataclass
class Verdict:
    ok: bool
    lines: list[str] = field(default_factory=list)


def table(measurements: list[Measurement]) -> list[str]:
    """nccl-tests' columns: size, time (us), algbw and busbw (GB/s), per group and collective."""
    lines = [
        f"{'group':<36} {'collective':<14} {'ranks':>5} {'size':>8} {'time(us)':>10} "
        f"{'algbw(GB/s)':>12} {'busbw(GB/s)':>12}"
    ]
    for m in measurements:
        algbw, busbw = m.bandwidth
        lines.append(
            f"{m.group.name:<36} {m.collective:<14} {len(m.group.ranks):>5} {human(m.size):>8} "
            f"{m.seconds * 1e6:>10.1f} {algbw:>12.2f} {busbw:>12.2f}"
        )
    return lines


def judge(measurements: list[Measurement], threshold: float, setting: str) -> Verdict:
    """Compare each group's bus bandwidth at its largest size with the threshold, per collective;
    name the culprit.

    A node whose own group is slow is named; so is a node that is in every slow pair while the
    pairs without it are fast; two nodes whose only group together is slow are named together.
    """
    limit = f"{threshold:g} GB/s ({setting})"
    lows, lines = [], []
    for collective in dict.fromkeys(m.collective for m in measurements):
        largest: dict[str, Measurement] = {}
        for m in (m for m in measurements if m.collective == collective):
            if m.group.name not in largest or m.size > largest[m.group.name].size:
                largest[m.group.name] = m
        slow = [m for m in largest.values() if m.bandwidth[1] < threshold]
        lows.append(min(largest.values(), key=lambda m: m.bandwidth[1]))
        if slow:
            named = "" if collective == ALL_REDUCE else f" ({collective})"
            lines += [
                f"{m.group.name}{named}: bus bandwidth {m.bandwidth[1]:.2f} GB/s at {human(m.size)} "
                f"is under {limit}"
                for m in slow
            ]
            lines.append(f"cause: {culprit(slow, list(largest.values()))}")
    if lines:
        return Verdict(False, lines)
    low = min(lows, key=lambda m: m.bandwidth[1])
    named = "" if low.collective == ALL_REDUCE else f", {low.collective}"
    lowest = f"{low.bandwidth[1]:.2f} GB/s ({low.group.name}{named})"
    return Verdict(True, [f"ok: lowest bus bandwidth {lowest} >= {limit}"])


def expected(collective: str, members: list[int]) -> list[float]:
    """What a rank's output holds, chunk by equal chunk, when rank r contributed r + 1 everywhere
    (small integers: float32 sums them exactly): all-gather one chunk per member, all-reduce and
    reduce-scatter the sum. A wrong answer is not slow but silently wrong (NVIDIA/nccl#1906, under
    a permuted CUDA_VISIBLE_DEVICES), so every result is checked."""
    if collective == ALL_GATHER:
        return [float(m + 1) for m in members]
    return [float(sum(m + 1 for m in members))]


def culprit(slow: list[Measurement], every: list[Measurement]) -> str:
    nodes_alone = [m.group.nodes[0] for m in slow if m.group.name.startswith("node ")]
    if nodes_alone:
        return "node " + ", ".join(nodes_alone) + " (its own GPUs, NVLink or the GPUs themselves)"
    pairs = [m for m in every if m.group.name.startswith("pair ")]
    slow_pairs = [m for m in slow if m.group.name.startswith("pair ")]
    if slow_pairs:
        nodes = {n for m in pairs for n in m.group.nodes}
        suspects = [
            n
            for n in sorted(nodes)
            if all(n in m.group.nodes for m in slow_pairs)
            and all(n not in m.group.nodes for m in pairs if m not in slow_pairs)
        ]
        if len(suspects) == 1:
            return (
                f"node {suspects[0]} (every pair with it is slow, every pair without it is fast): its network"
            )
        return "the network between " + "; ".join(" and ".join(m.group.nodes) for m in slow_pairs)
    all_nodes = next(m.group.nodes for m in every if m.group.name == "all")
    if len(all_nodes) == 2:
        return f"the network between nodes {all_nodes[0]} and {all_nodes[1]} (each node alone is fast)"
    if len(all_nodes) == 1:
        return f"node {all_nodes[0]} (its own GPUs, NVLink or the GPUs themselves)"
    return "the whole ring (every pair and every node alone is fast): an NCCL setting or the fabric's load"


def stall_lines(group: Group, ranks: list[Rank], phases: dict[int, str], seconds: float) -> list[str]:
    """After a timeout: the ranks that never entered the collective, or the group if all did."""
    by_rank = {r.rank: r for r in ranks}
    late = [r for r in group.ranks if phases.get(r) != IN_ALL_REDUCE]
    if late and len(late) < len(group.ranks):
        return [
            f"rank {r} (node {by_rank[r].node}, GPU {by_rank[r].local}) did not reach the all-reduce "
            f"within {seconds:g} s: {phases.get(r, 'no answer')}; "
            f"the other {len(group.ranks) - len(late)} waited"
            for r in late
        ]
    return [
        f"{group.name}: all {len(group.ranks)} ranks entered the all-reduce and none finished within "
        f"{seconds:g} s: the network between nodes {', '.join(group.nodes)} (NCCL cannot connect or is stuck)"
    ]


def nccl_lines(ranks: list[Rank], libraries: list[str]) -> tuple[bool, list[str]]:
    """Which NCCL the ranks run (GateRank.nccl_library): one build everywhere, or the nodes of each.
    The cluster modes' RDMA installers leave different builds on the node (facts/pins.py), and
    which one a process maps depends on the image's linking, so the gate says what it found."""
    by_library: dict[str, set[str]] = {}
    for r, library in zip(ranks, libraries, strict=True):
        by_library.setdefault(library, set()).add(r.node)
    if len(by_library) == 1:
        return True, [f"{libraries[0]} on every rank"]
    lines = [f"{library} on {', '.join(sorted(nodes))}" for library, nodes in sorted(by_library.items())]
    return False, [
        *lines,
        "the nodes run different NCCL builds: one GPU image and one RDMA installer for all",
    ]


def run_collective(collective: str, out: Any, full: Any, chunk: Any, group: Any) -> None:
    """One collective into `out`: all-gather of `chunk`, reduce-scatter or all-reduce of `full`."""
    import torch.distributed as dist

    if collective == ALL_GATHER:
        dist.all_gather_into_tensor(out, chunk, group=group)
    elif collective == REDUCE_SCATTER:
        dist.reduce_scatter_tensor(out, full, group=group)
    else:
        out.copy_(full)
        dist.all_reduce(out, group=group)


class GateRank:
    """One process per GPU; Ray runs it as a threaded actor so `phase` answers during a collective."""

    def __init__(self) -> None:
        self.phase = "started"
        self.handles: dict[str, Any] = {}

    def address(self) -> tuple[str, int]:
        import ray

        with socket.socket() as s:
            s.bind(("", 0))
            port = s.getsockname()[1]
        return ray.util.get_node_ip_address(), port

    def setup(
        self,
        rank: int,
        world: int,
        master: tuple[str, int],
        backend: str,
        timeout: float,
        groups: list[list[int]],
    ) -> None:
        from datetime import timedelta

        import torch.distributed as dist

        self.phase = "joining the process group"
        self.backend = backend
        dist.init_process_group(
            backend,
            init_method=f"tcp://{master[0]}:{master[1]}",
            rank=rank,
            world_size=world,
            timeout=timedelta(seconds=timeout),
        )
        self.handles[",".join(map(str, range(world)))] = None  # the default group: every rank
        for members in groups:  # every rank creates every group, in the same order (torch's rule)
            self.handles[",".join(map(str, members))] = dist.new_group(members)
        self.phase = "ready"

    def nccl_library(self) -> str:
        """The NCCL this process runs: the version the loaded library reports (ncclGetVersion) and
        the file the loader mapped."""
        import torch

        try:
            version = ".".join(map(str, torch.cuda.nccl.version()))
        except (AttributeError, RuntimeError) as e:  # a torch built without NCCL
            version = f"unknown ({type(e).__name__})"
        with open("/proc/self/maps") as maps:
            files = sorted({line.split()[-1] for line in maps if "/libnccl.so" in line})
        return f"NCCL {version} from {', '.join(files) or 'no libnccl.so mapped'}"

    def measure(
        self, members: list[int], sizes: list[int], stall: float, collective: str = ALL_REDUCE
    ) -> list[float | str]:
        """Seconds per collective at each size, the median of ITERATIONS after WARMUP, then one more
        run whose result is checked (expected()): a wrong result is its description instead."""
        import torch
        import torch.distributed as dist

        if stall:
            self.phase = STALLED
            time.sleep(stall)
        device = "cuda" if self.backend == "nccl" else "cpu"
        sync = torch.cuda.synchronize if device == "cuda" else (lambda: None)
        group = self.handles[",".join(map(str, members))]
        me, n = dist.get_rank(), len(members)
        found: list[float | str] = []
        for size in sizes:
            numel = size // 4 // n * n  # whole chunks for all-gather and reduce-scatter
            full = torch.full((numel,), float(me + 1), dtype=torch.float32, device=device)
            chunk = torch.full((numel // n,), float(me + 1), dtype=torch.float32, device=device)
            out = torch.empty(
                numel // n if collective == REDUCE_SCATTER else numel, dtype=torch.float32, device=device
            )
            self.phase = IN_ALL_REDUCE
            times = []
            for i in range(WARMUP + ITERATIONS):
                sync()
                start = time.perf_counter()
                run_collective(collective, out, full, chunk, group)
                sync()
                if i >= WARMUP:
                    times.append(time.perf_counter() - start)
            run_collective(collective, out, full, chunk, group)
            result = out.view(len(want := expected(collective, members)), -1)
            wrong = result != torch.tensor(want, dtype=torch.float32, device=device)[:, None]
            if bool(wrong.any()):
                where = int(wrong.flatten().nonzero()[0])
                found.append(
                    f"{collective} of {human(size)}: element {where} is {float(result.flatten()[where]):g}, "
                    f"not {want[where // result.shape[1]]:g}"
                )
            else:
                found.append(median(times))
        self.phase = "ready"
        return found

    def status(self) -> str:
        return self.phase


@dataclass
class GateSettings:
    per_node: int
    size: int
    threshold: float  # GB/s of bus bandwidth at `size`
    timeout: float
    backend: str = "nccl"
    setting: str = "preflight.ncclGate.minBusBandwidthGbps"
    stall_rank: int | None = None  # the test hook: this rank sleeps instead of joining the first all-reduce


def verl_worker_env() -> tuple[dict[str, str], str]:
    """The environment verl's trainer gives every worker (verl/trainer/constants_ppo.py
    get_ppo_ray_runtime_env; it differs by release: 0.6.1 sets NCCL_CUMEM_ENABLE=0, 0.9.1 does not,
    data/verl/<version>.yaml workerEnv), taken from the verl the job runs, so the gate's collectives
    run as verl's will; and how it was found."""
    try:
        from verl.trainer.constants_ppo import get_ppo_ray_runtime_env
    except Exception as e:  # noqa: BLE001 - no verl (or a broken one): measure without its settings
        return {}, f"without verl's worker environment ({type(e).__name__}: {e})"
    env = {k: str(v) for k, v in get_ppo_ray_runtime_env().get("env_vars", {}).items()}
    return env, "with verl's worker environment (" + ", ".join(
        f"{k}={v}" for k, v in sorted(env.items())
    ) + ")"


def wait_for_gpus(total: float, timeout: float) -> bool:
    """verl starts only when the cluster's *available* GPUs cover its resource pools
    (trainer/ppo/ray_trainer.py ResourcePoolManager._check_resource_available@v0.6.1,
    single_controller/ray/base.py:226 in the 0.9.1 wheel, read
    ray._private.state.available_resources_per_node()): after killing its actors the gate waits
    until Ray has their GPUs back."""
    import ray

    deadline = time.monotonic() + timeout
    while ray.available_resources().get("GPU", 0.0) < total:
        if time.monotonic() > deadline:
            return False
        time.sleep(0.5)
    return True


def run_gate(nodes: list[dict], settings: GateSettings, say: Callable[[str], None]) -> bool:
    """Measure, print the table and the verdict; True when the fabric is good enough for verl."""
    import ray
    from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

    ranks = place_ranks(nodes, settings.per_node)
    if len(ranks) < 2:
        say(f"one GPU ({len(ranks)} ranks): nothing to measure")
        return True
    env, how = verl_worker_env()
    # The actor class travels by value: on the workers this file is not importable.
    ray.cloudpickle.register_pickle_by_value(sys.modules[__name__])
    remote = ray.remote(GateRank)
    actors = [
        remote.options(
            num_gpus=1,
            num_cpus=0,
            max_concurrency=2,
            scheduling_strategy=NodeAffinitySchedulingStrategy(r.node_id, soft=False),
            runtime_env={"env_vars": env},
        ).remote()
        for r in ranks
    ]
    found = groups(ranks)
    sizes = sweep(settings.size)
    n_nodes = len({r.node for r in ranks})
    say(
        f"{', '.join(COLLECTIVES)} over {len(ranks)} GPUs on {n_nodes} nodes ({settings.backend}), "
        f"sizes {', '.join(human(s) for s in sizes)}, timeout {settings.timeout:g} s, {how}"
    )

    def phases(members: tuple[int, ...]) -> dict[int, str]:
        refs = {r: actors[r].status.remote() for r in members}
        ready, _ = ray.wait(list(refs.values()), num_returns=len(refs), timeout=STATUS_SECONDS)
        return {r: ray.get(ref) for r, ref in refs.items() if ref in ready}

    def within(refs: list, group: Group) -> list | None:
        ready, _ = ray.wait(refs, num_returns=len(refs), timeout=settings.timeout)
        if len(ready) == len(refs):
            try:
                return ray.get(refs)
            except ray.exceptions.RayError as e:  # a rank raised: NCCL's own error says why
                lines = [line for line in str(e).splitlines() if line.strip()]
                say(f"FAILED: {group.name}: {lines[-1] if lines else type(e).__name__}")
                return None
        for line in stall_lines(group, ranks, phases(group.ranks), settings.timeout):
            say("FAILED: " + line)
        return None

    gpus = ray.cluster_resources().get("GPU", 0.0)
    try:
        try:
            master = ray.get(actors[0].address.remote(), timeout=settings.timeout)
        except (ray.exceptions.GetTimeoutError, ray.exceptions.RayError) as e:
            say(
                f"FAILED: the gate's {len(ranks)} actors (one GPU each) were not placed within "
                f"{settings.timeout:g} s ({type(e).__name__}): another job holds GPUs, or a node left"
            )
            return False
        members = [list(g.ranks) for g in found[1:]]
        setup = [
            a.setup.remote(r.rank, len(ranks), master, settings.backend, settings.timeout, members)
            for a, r in zip(actors, ranks, strict=True)
        ]
        if within(setup, found[0]) is None:
            return False
        same, lines = nccl_lines(ranks, ray.get([a.nccl_library.remote() for a in actors]))
        for line in lines:
            say(line if same else "FAILED: " + line)
        if not same:
            return False
        measurements = []
        for collective in COLLECTIVES:
            for g in found:
                refs = [
                    actors[r].measure.remote(
                        list(g.ranks),
                        sizes,
                        3 * settings.timeout if r == settings.stall_rank and collective == ALL_REDUCE else 0,
                        collective,
                    )
                    for r in g.ranks
                ]
                result = within(refs, g)
                if result is None:
                    return False
                wrong = [
                    (g.ranks[i], x)
                    for i, per_rank in enumerate(result)
                    for x in per_rank
                    if isinstance(x, str)
                ]
                if wrong:
                    by_rank = {r.rank: r for r in ranks}
                    for rank, what in wrong:
                        say(
                            f"FAILED: {g.name}: rank {rank} (node {by_rank[rank].node}) "
                            f"got a wrong result: {what}"
                        )
                    return False
                measurements += [
                    Measurement(g, s, max(float(per_rank[i]) for per_rank in result), collective)
                    for i, s in enumerate(sizes)
                ]
        for line in table(measurements):
            say(line)
        verdict = judge(measurements, settings.threshold, settings.setting)
        for line in verdict.lines:
            say(line if verdict.ok else "FAILED: " + line)
        return verdict.ok
    finally:
        for a in actors:
            ray.kill(a)
        if not wait_for_gpus(gpus, settings.timeout):
            say(f"the gate's GPUs were not available again within {settings.timeout:g} s")
