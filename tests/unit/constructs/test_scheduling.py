"""constructs/scheduling.py: node selectors and pool flags per mode and capacity."""

from __future__ import annotations

import pytest

from verl_grpo.output.dist import placeholder
from verl_grpo.profiles import find_profile

from ...conftest import pods, render_one

CAPACITY_SELECTORS = {
    ("standard", "spot"): {"cloud.google.com/gke-spot": "true"},
    ("standard", "reservation"): {},
    ("standard", "flex-start"): {"cloud.google.com/gke-flex-start": "true"},
    ("standard", "on-demand"): {},
    ("autopilot", "spot"): {"cloud.google.com/gke-spot": "true"},
    ("autopilot", "reservation"): {
        "cloud.google.com/reservation-name": "res-a",
        "cloud.google.com/reservation-affinity": "specific",
    },
    ("autopilot", "flex-start"): {"cloud.google.com/gke-flex-start": "true"},
    ("autopilot", "on-demand"): {},
}

POOL_FLAGS = {
    "spot": ["--spot"],
    "reservation": ["--reservation-affinity=specific", "--reservation=res-a"],
    "flex-start": ["--flex-start", "--reservation-affinity=none", "--no-enable-autorepair"],
    "on-demand": [],
}


def test_selectors_per_mode(shipped):
    std = dict(pods(shipped["b200-standard"]))
    auto = dict(pods(shipped["b200-autopilot"]))
    assert std["head"]["spec"]["nodeSelector"] == {"cloud.google.com/gke-nodepool": "default-pool"}
    assert auto["head"]["spec"]["nodeSelector"]["cloud.google.com/compute-class"] == "Performance"
    assert auto["gpu-group"]["spec"]["nodeSelector"] == {
        "cloud.google.com/gke-accelerator": "nvidia-b200",
        "cloud.google.com/gke-accelerator-count": "8",
        "cloud.google.com/gke-spot": "true",
        "topology.kubernetes.io/zone": placeholder("cluster.zone", find_profile("b200-autopilot")),
    }


@pytest.mark.parametrize(("mode", "capacity"), sorted(CAPACITY_SELECTORS))
def test_capacity_decides_pool_flags_and_selectors_together(mode, capacity):
    """Every capacity in both modes: the selectors select what the pool's flags make."""
    from verl_grpo.profiles import find_profile
    from verl_grpo.shell_env import shell_env

    sets = [f"cluster.capacity={capacity}", "cluster.zone=us-central1-b"]
    if capacity == "reservation":
        sets.append("cluster.reservation=res-a")
    r = render_one(*sets, profile=f"h200-{mode}")
    selector = dict(pods(r))["gpu-group"]["spec"]["nodeSelector"]
    capacity_keys = {k: v for k, v in selector.items() if "accelerator" not in k and "zone" not in k}
    assert capacity_keys == CAPACITY_SELECTORS[(mode, capacity)]
    flags = shell_env(r.spec, find_profile(f"h200-{mode}"))["GPU_POOL_FLAGS"].split()
    autoscale = ["--enable-autoscaling", "--num-nodes=0", "--total-min-nodes=0", "--location-policy=ANY"]
    machine = [
        "--machine-type=a3-ultragpu-8g",
        "--accelerator=type=nvidia-h200-141gb,count=8,gpu-driver-version=latest",
        "--ephemeral-storage-local-ssd=count=0",  # its Local SSDs as ephemeral storage
    ]
    assert flags == [*machine, *POOL_FLAGS[capacity], *autoscale, "--total-max-nodes=2"]
    # What the pool flags make is what the workers ask for: a spot pool gets the spot label, a
    # flex-start pool the flex-start label (GKE's autoscaler constants), nothing else does.
    assert ("cloud.google.com/gke-spot" in selector) == ("--spot" in flags)
    assert ("cloud.google.com/gke-flex-start" in selector) == ("--flex-start" in flags)
    assert ("topology.kubernetes.io/zone" in selector) == (mode == "autopilot")
