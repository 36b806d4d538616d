"""Where CPU-only pods (Ray head, data preparation) run, per cluster mode."""

from __future__ import annotations

from ..values.model import Values


def cpu_node_selector(v: Values) -> dict[str, str]:
    if v.cluster.mode == "standard":
        return {"cloud.google.com/gke-nodepool": v.cluster.cpu_node_pool}
    return {
        "cloud.google.com/compute-class": v.cluster.compute_class,
        "cloud.google.com/machine-family": v.cluster.head_machine_family,
    }
