"""The NCCL gate's arithmetic and diagnosis (pure), on measurements written out here."""

from __future__ import annotations

import pytest

from verl_grpo.pod.nccl_gate import (
    ALL_GATHER,
    ALL_REDUCE,
    IN_ALL_REDUCE,
    REDUCE_SCATTER,
    Group,
    Measurement,
    bus_bandwidth,
    expected,
    groups,
    judge,
    nccl_lines,
    parse_size,
    place_ranks,
    stall_lines,
    sweep,
)

MI = 2**20
SETTING = "preflight.ncclGate.minBusBandwidthGbps"


def node(i: int, gpus: int = 8, alive: bool = True, host: str | None = None) -> dict:
    return {
        "NodeID": f"{i:02d}" + "ab" * 27,
        "NodeManagerAddress": f"10.0.0.{i}",
        "NodeManagerHostname": host or f"verl-worker-{i}",
        "Alive": alive,
        "Resources": {"GPU": float(gpus), "CPU": 200.0} if gpus else {"CPU": 8.0},
    }


def test_bandwidth_is_nccl_tests_arithmetic():
    # 256 MiB in 2 ms: 134.2 GB/s algorithm bandwidth; a ring of 16 moves 2*15/16 of it per link.
    algbw, busbw = bus_bandwidth(256 * MI, 0.002, 16)
    assert algbw == pytest.approx(134.217728)
    assert busbw == pytest.approx(251.65824)
    assert bus_bandwidth(256 * MI, 0.002, 2)[1] == pytest.approx(134.217728)  # 2(n-1)/n = 1


def test_sizes():
    assert sweep(256 * MI) == [4 * MI, 16 * MI, 64 * MI, 256 * MI]
    assert sweep(8) == [4, 8]
    assert parse_size("256Mi") == 256 * MI and parse_size("1G") == 10**9 and parse_size("4096") == 4096
    with pytest.raises(ValueError, match="'256MB' is not a size"):
        parse_size("256MB")


def test_ranks_follow_the_gpu_nodes_and_skip_the_head_and_dead_nodes():
    ranks = place_ranks([node(3), node(1, gpus=0), node(2), node(4, alive=False)], 2)
    assert [(r.rank, r.node, r.local) for r in ranks] == [
        (0, "verl-worker-2 (10.0.0.2)", 0),
        (1, "verl-worker-2 (10.0.0.2)", 1),
        (2, "verl-worker-3 (10.0.0.3)", 0),
        (3, "verl-worker-3 (10.0.0.3)", 1),
    ]


def test_nodes_sharing_an_address_stay_apart():
    """A local Ray cluster: every node on one machine, one hostname and IP."""
    a, b = node(1, host="box"), node(2, host="box")
    b["NodeManagerAddress"] = a["NodeManagerAddress"]
    ranks = place_ranks([a, b], 1)
    assert len({r.node for r in ranks}) == 2 and all(r.node.startswith("box (10.0.0.1) [") for r in ranks)


def test_groups_per_node_count():
    one = groups(place_ranks([node(1)], 8))
    assert [g.name for g in one] == ["all"]
    two = groups(place_ranks([node(1), node(2)], 8))
    assert [g.name for g in two] == ["all", "node verl-worker-1 (10.0.0.1)", "node verl-worker-2 (10.0.0.2)"]
    three = groups(place_ranks([node(1), node(2), node(3)], 2))
    assert [g.ranks for g in three if g.name.startswith("pair ")] == [
        (0, 1, 2, 3),
        (0, 1, 4, 5),
        (2, 3, 4, 5),
    ]


def measured(busbw: dict[str, float], ranks: int = 16) -> list[Measurement]:
    """One measurement at 256 MiB per group, its time chosen to give `busbw` GB/s."""
    out = []
    for name, bw in busbw.items():
        nodes = tuple(name.split(" ", 1)[1].split(" + ")) if name != "all" else ("a", "b", "c")
        n = ranks if name == "all" else 8 * len(nodes)
        out.append(Measurement(Group(name, nodes, tuple(range(n))), 256 * MI, 256 * MI / GBPS(bw, n)))
    return out


def GBPS(busbw: float, n: int) -> float:  # noqa: N802 - bytes per second of algorithm bandwidth
    return busbw / (2 * (n - 1) / n) * 1e9


def test_a_healthy_fabric_passes_and_names_its_slowest_group():
    verdict = judge(measured({"all": 320.0, "node a": 480.0}), 100, SETTING)
    assert verdict.ok
    assert verdict.lines == [f"ok: lowest bus bandwidth 320.00 GB/s (all) >= 100 GB/s ({SETTING})"]


def test_a_slow_node_alone_is_named():
    verdict = judge(measured({"all": 40.0, "node a": 480.0, "node b": 35.0}), 100, SETTING)
    assert not verdict.ok
    assert "node b: bus bandwidth 35.00 GB/s at 256Mi is under 100 GB/s" in verdict.lines[1]
    assert verdict.lines[-1] == "cause: node b (its own GPUs, NVLink or the GPUs themselves)"


def test_the_node_in_every_slow_pair_is_named():
    bw = {"all": 50.0, "pair a + b": 300.0, "pair a + c": 20.0, "pair b + c": 22.0}
    verdict = judge(measured(bw), 100, SETTING)
    assert verdict.lines[-1].startswith("cause: node c (every pair with it is slow")


def test_two_nodes_slow_only_together_point_at_the_network_between_them():
    bw = {"all": 12.0, "node a": 470.0, "node b": 480.0}
    two = [m for m in measured(bw)]
    two[0] = Measurement(Group("all", ("a", "b"), tuple(range(16))), 256 * MI, two[0].seconds)
    verdict = judge(two, 100, SETTING)
    assert verdict.lines[-1] == "cause: the network between nodes a and b (each node alone is fast)"


def test_a_stalled_rank_is_named_and_a_stuck_group_blames_the_network():
    ranks = place_ranks([node(1), node(2)], 2)
    g = groups(ranks)[0]
    phases = {0: IN_ALL_REDUCE, 1: IN_ALL_REDUCE, 2: "stalled by the test hook", 3: IN_ALL_REDUCE}
    (line,) = stall_lines(g, ranks, phases, 30)
    assert line == (
        "rank 2 (node verl-worker-2 (10.0.0.2), GPU 0) did not reach the all-reduce within 30 s: "
        "stalled by the test hook; the other 3 waited"
    )
    (line,) = stall_lines(g, ranks, dict.fromkeys(range(4), IN_ALL_REDUCE), 30)
    assert "all 4 ranks entered the all-reduce and none finished within 30 s" in line
    gone = stall_lines(g, ranks, {0: IN_ALL_REDUCE, 1: IN_ALL_REDUCE, 3: IN_ALL_REDUCE}, 30)
    assert gone == [
        "rank 2 (node verl-worker-2 (10.0.0.2), GPU 0) did not reach the all-reduce within 30 s: "
        "no answer; the other 3 waited"
    ]


def test_the_nccl_every_rank_runs_is_said_and_a_mix_fails():
    """The modes' RDMA installers leave different NCCL builds (facts/pins.py): the gate says which
    one the ranks mapped, and refuses nodes that run different ones."""
    ranks = place_ranks([node(1, 2), node(2, 2)], 2)
    image = "NCCL 2.27.3 from /usr/local/lib/python3.12/dist-packages/nvidia/nccl/lib/libnccl.so.2"
    gib = "NCCL 2.28.9 from /usr/local/gib/lib64/libnccl.so.2"
    assert nccl_lines(ranks, [image] * 4) == (True, [f"{image} on every rank"])
    same, lines = nccl_lines(ranks, [image, image, gib, gib])
    assert not same
    assert lines == [
        f"{image} on verl-worker-1 (10.0.0.1)",
        f"{gib} on verl-worker-2 (10.0.0.2)",
        "the nodes run different NCCL builds: one GPU image and one RDMA installer for all",
    ]


def test_all_gather_and_reduce_scatter_count_the_bus_as_nccl_tests_does():
    """nccl-tests doc/PERFORMANCE.md: busbw = algbw x (n-1)/n for both, x 2(n-1)/n for all-reduce."""
    assert bus_bandwidth(8 * 10**9, 1.0, 8, ALL_GATHER) == (8.0, 7.0)
    assert bus_bandwidth(8 * 10**9, 1.0, 8, REDUCE_SCATTER) == (8.0, 7.0)
    assert bus_bandwidth(8 * 10**9, 1.0, 8) == (8.0, 14.0)


def test_every_result_is_checked_against_what_the_ranks_contributed():
    """Rank r contributes r + 1: a group of ranks 2 and 5 sums to 9; all-gather lays out 3 then 6."""
    assert expected(ALL_REDUCE, [2, 5]) == [9.0]
    assert expected(REDUCE_SCATTER, [2, 5]) == [9.0]
    assert expected(ALL_GATHER, [2, 5]) == [3.0, 6.0]


def test_a_slow_collective_is_named_with_its_group():
    """All-reduce fine, reduce-scatter slow on one node: the verdict names both."""
    ranks = place_ranks([node(1, 2), node(2, 2)], 2)
    found = groups(ranks)
    size = 64 * MI
    ok = [Measurement(g, size, 1e-4, ALL_REDUCE) for g in found]
    slow = [
        Measurement(g, size, 1e-1 if g.name.startswith("node verl-worker-2") else 1e-4, REDUCE_SCATTER)
        for g in found
    ]
    verdict = judge(ok + slow, 100.0, SETTING)
    assert not verdict.ok
    assert verdict.lines[0].startswith("node verl-worker-2 (10.0.0.2) (reduce-scatter): bus bandwidth ")
    assert verdict.lines[-1].startswith("cause: node verl-worker-2 (10.0.0.2)")
    assert judge(ok, 100.0, SETTING).ok
