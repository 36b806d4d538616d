"""facts/verl_placement.py: the CPUs verl's Ray placement groups ask per GPU, by verl version."""

from __future__ import annotations

import pytest

from verl_grpo.facts.verl_placement import MOST_RAY_CPUS_PER_GPU, ray_cpus_per_gpu
from verl_grpo.pipeline import load_spec
from verl_grpo.problems import Problems


@pytest.mark.parametrize(("version", "cpus"), [("0.4.0", 1), ("0.6.1", 1), ("0.6.9", 1)])
def test_verl_up_to_0_6_asks_one_cpu_per_gpu(version: str, cpus: int) -> None:
    """max_colocate_count=1 up to v0.6.1 (ray_trainer.py L87-88 at v0.6.1)."""
    assert ray_cpus_per_gpu(version) == cpus


@pytest.mark.parametrize("version", ["0.7.0", "0.9.1", "0.10.0", "1.0.0"])
def test_verl_from_0_7_asks_three_cpus_per_gpu(version: str) -> None:
    """max_colocate_count=3 from v0.7.0 (volcengine/verl#4282); 0.10 is newer than 0.7, not older."""
    assert ray_cpus_per_gpu(version) == 3


def test_the_kit_asks_for_the_most_any_verl_asks() -> None:
    """The worker.cpu rule uses the maximum, never below a version's own need."""
    versions = ["0.1.0", "0.6.1", "0.7.0", "0.7.1", "0.9.1", "2.0.0"]
    asked = [ray_cpus_per_gpu(v) for v in versions]
    assert asked == sorted(asked) and MOST_RAY_CPUS_PER_GPU == max(asked) == 3


def test_a_worker_with_fewer_cpus_than_its_gpu_bundles_is_refused() -> None:
    """8 GPUs of a B200 node at 3 CPUs each: 23 CPUs leave verl's placement group pending."""
    layer = {"gpu": {"type": "b200"}, "worker": {"cpu": "23"}}
    with pytest.raises(Problems) as refused:
        load_spec(layer, deploying=False)
    assert "worker-cpus-for-verl" in {p.rule for p in refused.value.problems}
    load_spec({"gpu": {"type": "b200"}, "worker": {"cpu": "24"}}, deploying=False)
