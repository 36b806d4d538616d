"""values/derive.py: the settings derived once from the values and the machine facts (the worker's
requests, the sidecar limits, names), which constructs read and never re-derive."""

from __future__ import annotations

import hashlib
import json
from typing import Any

from verl_grpo.facts.machines import GIB, gpu_profiles
from verl_grpo.facts.node_fit import SIDECAR_LIMITS
from verl_grpo.facts.quantity import parse_quantity
from verl_grpo.values.derive import STORAGE_DIGEST, Release, deploy_spec, machine_defaults
from verl_grpo.values.model import Values

MIB = 2**20


def derived(values: dict[str, Any]):
    return deploy_spec(Values.model_validate(values), Release("verl", "default")).derived


def test_a_b200_worker_defaults_to_the_whole_cpus_gke_leaves_after_daemonsets_and_sidecars() -> None:
    """A4 has 224 vCPUs (data/gpus/b200.yaml). GKE reserves 6% of core 1, 1% of core 2, 0.5% of
    cores 3-4 and 0.25% of the other 220: 0.63, leaving 223.37. Less the DaemonSets' 4, the FUSE
    sidecar's default request 250m (limit 0 on Standard), the prefetch sidecar's 50m and the log
    shipper's 100m: 218.97, so 218 whole CPUs."""
    assert gpu_profiles()["b200"].vcpu == 224  # the premise of the arithmetic above
    assert machine_defaults("b200", "standard").worker_cpu == "218"


def test_autopilot_defaults_are_lower_by_its_larger_fuse_sidecar() -> None:
    """On Autopilot the FUSE sidecar has 2 CPUs and 14Gi (its limits become its requests) where
    Standard counts the webhook's 250m and 256Mi: the worker is left 1.75 CPUs and 13.75Gi less,
    which after rounding down is 1 or 2 CPUs and 13 or 14Gi."""
    assert SIDECAR_LIMITS["autopilot"][:2] == ("2", "14Gi")
    for name in gpu_profiles():
        standard, autopilot = machine_defaults(name, "standard"), machine_defaults(name, "autopilot")
        assert int(standard.worker_cpu) - int(autopilot.worker_cpu) in (1, 2), name
        gib = int(standard.worker_memory.removesuffix("Gi")) - int(autopilot.worker_memory.removesuffix("Gi"))
        assert gib in (13, 14), name
        assert (autopilot.sidecar_cpu_limit, autopilot.sidecar_memory_limit) == ("2", "14Gi")
        assert standard.sidecar_cpu_limit == "0"  # unlimited on Standard


def test_a_value_given_wins_over_its_derived_default() -> None:
    """Empty worker requests, sidecar limits and experiment name are derived; set ones are kept."""
    default = derived({})
    assert default.experiment_name == "grpo-001"  # the run name
    given = derived(
        {
            "worker": {"cpu": "30", "memory": "100Gi"},
            "training": {"experimentName": "exp-a"},
            "storage": {"sidecar": {"ephemeralStorageLimit": "300Gi", "cpuLimit": "4"}},
        }
    )
    assert (given.worker_cpu, given.worker_memory, given.experiment_name) == ("30", "100Gi", "exp-a")
    assert given.sidecar_cpu_limit == "4"
    # One ephemeral limit set in the values is the sidecar's on CPU and on GPU pods alike.
    assert given.sidecar_ephemeral_storage_limit == given.gpu_sidecar_ephemeral_storage_limit == "300Gi"
    assert given.worker_ephemeral_storage == default.worker_ephemeral_storage  # not set: derived


def test_the_gpu_sidecar_ephemeral_default_holds_the_file_cache_plus_headroom_in_whole_mib() -> None:
    """The sidecar's ephemeral limit must be larger than fileCacheCapacity (GKE's FUSE docs): it is
    the cache plus 5Gi, rounded up to a whole MiB, never down."""
    assert derived({}).gpu_sidecar_ephemeral_storage_limit == "107520Mi"  # 100Gi + 5Gi = 105 * 1024Mi
    assert (
        derived({"storage": {"fileCacheCapacity": "10Gi"}}).gpu_sidecar_ephemeral_storage_limit == "15360Mi"
    )
    odd = derived({"storage": {"fileCacheCapacity": "1G"}}).gpu_sidecar_ephemeral_storage_limit
    needed = 10**9 + 5 * GIB  # 6073.6 MiB
    assert odd.endswith("Mi") and needed <= parse_quantity(odd) < needed + MIB


def test_the_storage_digest_is_the_chart_helpers_sha256_of_bucket_and_capacity() -> None:
    """The PV and PVC suffix: `list bucket capacity | toJson | sha256sum | trunc 8`, as the chart's
    helper computes it, so synth and helm name the same volumes; a new bucket is a new name."""
    assert "toJson | sha256sum | trunc 8" in STORAGE_DIGEST.body
    one = derived({"storage": {"bucket": "b-1", "capacity": "768Gi"}}).storage_digest
    go_json = json.dumps(["b-1", "768Gi"], separators=(",", ":")).encode()
    assert one == hashlib.sha256(go_json).hexdigest()[:8]
    assert derived({"storage": {"bucket": "b-2", "capacity": "768Gi"}}).storage_digest != one
    assert derived({"storage": {"bucket": "b-1", "capacity": "1Ti"}}).storage_digest != one


def test_pre_running_deadline_is_kept_only_for_a_kuberay_that_has_the_field() -> None:
    """preRunningDeadlineSeconds is absent from KubeRay's RayJob at v1.5.1, present at v1.6.0
    (rayjob_types.go); an older operator would drop it, so the kit leaves it out."""
    assert derived({"kuberay": {"version": "1.5.1"}}).rayjob_version_fields == {}
    fields = {"preRunningDeadlineSeconds": 7200}
    assert derived({"kuberay": {"version": "1.6.0"}}).rayjob_version_fields == fields
    assert derived({"kuberay": {"version": "1.7.3"}}).rayjob_version_fields == fields
