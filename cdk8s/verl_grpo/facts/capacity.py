"""Where GPU nodes come from: one table from which the GPU pool's gcloud flags (Standard) and the
workers' node selectors (both modes) are derived, so the two cannot disagree.

Sources:
- Standard flags: AI-Hypercomputer/xpk src/xpk/core/capacity.py @367c838 (on-demand: none; spot:
  --spot; reservation: --reservation-affinity=specific --reservation=NAME); flex-start from GKE's
  "Run a small batch workload with GPUs and Flex-start VMs"
  (https://cloud.google.com/kubernetes-engine/docs/how-to/dws-flex-start-training): --flex-start
  --num-nodes 0 --enable-autoscaling --total-min-nodes 0 --location-policy ANY
  --reservation-affinity none --no-enable-autorepair. Queued provisioning only with queue.enabled:
  its nodes come only for a ProvisioningRequest
  (https://cloud.google.com/kubernetes-engine/docs/how-to/provisioningrequest), which Kueue's
  admission check makes (facts/kueue.py).
- Autoscaling of every capacity (AUTOSCALE_FLAGS, --total-max-nodes): GKE "About GKE cluster
  autoscaling" (https://cloud.google.com/kubernetes-engine/docs/concepts/cluster-autoscaler):
  location policy ANY is the default for Spot and flex-start pools, "but you can also use it for
  node pools using reservations or on-demand nodes. For this policy to work, autoscaling has to be
  enabled and the initial number of nodes has to be set to 0"; --total-min-nodes and
  --total-max-nodes bound "the total number of nodes in the node pool across all zones".
- Labels: cloud.google.com/gke-spot=true ("GKE automatically adds the cloud.google.com/gke-spot=true
  label" to Spot VM nodes, concepts/cluster-autoscaler above; Autopilot Spot Pods select it,
  https://cloud.google.com/kubernetes-engine/docs/how-to/autopilot-spot-pods);
  cloud.google.com/gke-flex-start: "true" (the nodeSelector of the dws-flex-start-training page's
  Jobs); Autopilot reservations: cloud.google.com/reservation-name
  + cloud.google.com/reservation-affinity: "specific" ("Autopilot consumes specific reservations
  only", https://cloud.google.com/kubernetes-engine/docs/how-to/consuming-reservations).
- Spot taints: Autopilot adds the toleration itself
  (https://cloud.google.com/kubernetes-engine/docs/how-to/autopilot-spot-pods); GPU nodes carry
  nvidia.com/gpu=present:NoSchedule (GKE adds it when the cluster also has a non-GPU node pool,
  https://cloud.google.com/kubernetes-engine/docs/how-to/gpus "Taint a GPU node pool"), tolerated
  by the workers' default tolerations.
"""

from __future__ import annotations

from dataclasses import dataclass

# Every capacity scales the GPU pool from zero: idle 8-GPU nodes are removed by the autoscaler.
# ANY needs autoscaling and 0 initial nodes, and suits reservations and on-demand too
# (https://cloud.google.com/kubernetes-engine/docs/concepts/cluster-autoscaler "Location policy").
AUTOSCALE_FLAGS = ("--enable-autoscaling", "--num-nodes=0", "--total-min-nodes=0", "--location-policy=ANY")


@dataclass(frozen=True)
class Capacity:
    name: str
    pool_flags: tuple[str, ...]  # beyond AUTOSCALE_FLAGS; {reservation} is filled in
    labels: dict[str, str]  # node labels the workers select, both modes
    autopilot_labels: dict[str, str]  # extra selectors only Autopilot needs
    idle_note: str


CAPACITIES: dict[str, Capacity] = {
    c.name: c
    for c in (
        Capacity(
            "spot",
            ("--spot",),
            # https://cloud.google.com/kubernetes-engine/docs/concepts/cluster-autoscaler (Spot VMs)
            {"cloud.google.com/gke-spot": "true"},
            {},
            "spot nodes are deleted when idle; none are billed while the pool is at 0",
        ),
        Capacity(
            "reservation",
            ("--reservation-affinity=specific", "--reservation={reservation}"),
            {},
            {
                "cloud.google.com/reservation-name": "{reservation}",
                "cloud.google.com/reservation-affinity": "specific",
            },
            "the reservation is billed while it exists, used or not",
        ),
        Capacity(
            "flex-start",
            ("--flex-start", "--reservation-affinity=none", "--no-enable-autorepair"),
            # https://cloud.google.com/kubernetes-engine/docs/how-to/dws-flex-start-training (Jobs)
            {"cloud.google.com/gke-flex-start": "true"},
            {},
            "flex-start nodes are billed from provisioning until deleted; none while the pool is at 0",
        ),
        Capacity(
            "on-demand",
            (),
            {},
            {},
            "on-demand nodes are deleted when idle; none are billed while the pool is at 0",
        ),
    )
}
