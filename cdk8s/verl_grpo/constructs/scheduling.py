"""Where pods run: CPU-only pods (Ray head, data preparation) per cluster mode, and the GPU
workers per capacity (spot, reservation, flex-start, on-demand).

The GPU pool's gcloud flags (scripts/30-gpu-pool.sh, from `verl-grpo env`) and these selectors
come from one table, values/capacity.py, so a pod can never ask for a node kind the pool lacks.
"""

from __future__ import annotations

from ..values.capacity import gpu_selector_labels
from ..values.derive import DeploySpec
from ..values.model import Values


def cpu_node_selector(v: Values) -> dict[str, str]:
    if v.cluster.mode == "standard":
        return {"cloud.google.com/gke-nodepool": v.cluster.cpu_node_pool}
    return {
        "cloud.google.com/compute-class": v.cluster.compute_class,
        "cloud.google.com/machine-family": v.cluster.head_machine_family,
    }


def gpu_node_selector(spec: DeploySpec) -> dict[str, str]:
    v, gpu = spec.values, spec.gpu
    selector = {"cloud.google.com/gke-accelerator": gpu.accelerator}
    if v.cluster.mode == "autopilot":
        # Autopilot sizes the node from these; the count is a string like every label value.
        selector["cloud.google.com/gke-accelerator-count"] = str(gpu.gpus_per_node)
    selector.update(gpu_selector_labels(v))
    return selector
