"""CPUs verl's Ray placement groups ask per GPU, by verl version: the one copy of this fact.

verl/single_controller/ray/base.py RayResourcePool.get_placement_groups makes each GPU bundle
{"CPU": max_colocate_count, "GPU": 1}; the PPO trainer's ResourcePoolManager passes
max_colocate_count=1 up to v0.6.1 (verl/trainer/ppo/ray_trainer.py L87-88 at v0.6.1) and 3 from
v0.7.0 (same file L92-93; commit 146075bb, volcengine/verl#4282). A node with fewer Ray CPUs than
its bundles ask leaves the placement group pending, and verl waits forever.
"""

from __future__ import annotations

from .versions import version_at_least

# first verl version -> CPUs per GPU bundle, oldest first
CPUS_PER_GPU_BUNDLE_SINCE = {"0.0.0": 1, "0.7.0": 3}


def ray_cpus_per_gpu(verl_version: str) -> int:
    newest_first = reversed(CPUS_PER_GPU_BUNDLE_SINCE.items())
    return next(n for since, n in newest_first if version_at_least(verl_version, since))


# The kit's worker.cpu rule asks for the most any verl asks, not the kit's verl version's: the
# image's verl (or a source tree from a newer tag) then never leaves a 16-GPU run pending.
MOST_RAY_CPUS_PER_GPU = max(CPUS_PER_GPU_BUNDLE_SINCE.values())
