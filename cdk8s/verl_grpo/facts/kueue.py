"""Kueue and GKE facts the run's scheduling uses (sigs.k8s.io/kueue v0.19.2, GKE docs).

- The queue label: `kueue.x-k8s.io/queue-name` on the RayJob or RayCluster (Kueue
  pkg/controller/constants/constants.go QueueLabel@v0.19.2). Kueue's webhook suspends a labelled
  RayJob on create and unsuspends it on admission (pkg/controller/jobs/rayjob/rayjob_webhook.go
  Default@v0.19.2), so the kit renders no `suspend` (GitOps would fight Kueue over it).
- A labelled RayJob must shut its cluster down when the job ends (validateCreate: "a kueue managed
  job should have shutdownAfterJobFinishes set to true", rayjob_webhook.go@v0.19.2).
- Topology: the pod template's `kueue.x-k8s.io/podset-required-topology` or
  `-preferred-topology` annotation names a level (apis/kueue/v1beta2/topology_types.go@v0.19.2).
- Flex-start through Kueue: the GPU pool is created with queued provisioning
  (`--enable-queued-provisioning`, GKE 1.32.2-gke.1652000 or later,
  https://cloud.google.com/kubernetes-engine/docs/how-to/provisioningrequest); its nodes carry
  the taint cloud.google.com/gke-queued=true:NoSchedule, which the workers tolerate; Kueue's
  ProvisioningRequest admission check asks for the whole gang at once. A flex-start VM runs at
  most 7 days (https://cloud.google.com/kubernetes-engine/docs/how-to/dws-flex-start-training).
"""

from __future__ import annotations

KUEUE_VERSION = "v0.19.2"  # the release whose API and CRDs the kit writes and validates against
QUEUE_LABEL = "kueue.x-k8s.io/queue-name"
TOPOLOGY_ANNOTATIONS = {
    "required": "kueue.x-k8s.io/podset-required-topology",
    "preferred": "kueue.x-k8s.io/podset-preferred-topology",
}
QUEUED_PROVISIONING_FLAG = "--enable-queued-provisioning"
QUEUED_TOLERATION = {
    "key": "cloud.google.com/gke-queued",
    "operator": "Equal",
    "value": "true",
    "effect": "NoSchedule",
}
FLEX_START_MAX_SECONDS = 7 * 24 * 3600

KUEUE_API = "kueue.x-k8s.io/v1beta2"  # served and stored since v0.16 (config/components/crd/bases)
# Kueue's objects are written in v1beta2 only: v1beta1 is deprecated and the raw CRDs carry no
# conversion webhook. ClusterQueue v1beta2 takes admission checks only through
# admissionChecksStrategy (apis/kueue/v1beta2/clusterqueue_types.go@v0.19.2).
# ProvisioningRequestControllerName (apis/kueue/v1beta2/provisioningrequestconfig_types.go@v0.19.2).
PROVISIONING_CONTROLLER = "kueue.x-k8s.io/provisioning-request"
# GKE's ProvisioningRequest class for flex-start with queued provisioning
# (https://cloud.google.com/kubernetes-engine/docs/how-to/provisioningrequest).
QUEUED_PROVISIONING_CLASS = "queued-provisioning.gke.io"
# Topology-aware placement on pools that start at zero: Kueue places a workload by the nodes that
# exist, so it first asks for them through the provisioning admission check ("the topology
# assignment is calculated taking into account any newly provisioned nodes",
# site/content/en/docs/concepts/topology_aware_scheduling.md@v0.19.2). cluster-autoscaler's
# best-effort-atomic class makes all of a request's nodes or none, then holds them for the
# admitted pods for 10 minutes (cluster-autoscaler/FAQ.md "ProvisioningRequest", supported from
# 1.30.2; kubernetes/autoscaler@55c37cd). GKE documents queued-provisioning.gke.io; no GKE page
# found names this community class (the twin's autoscaler plays it: tests/twin/autoscaler.py).
ATOMIC_PROVISIONING_CLASS = "best-effort-atomic-scale-up.autoscaling.x-k8s.io"
# Also the ProvisioningRequestConfig's managedResources (constructs/kueue_queue.py): "If not empty,
# the ProvisioningRequest will contain only the podsets that are requesting at least one of them"
# (apis/kueue/v1beta2/provisioningrequestconfig_types.go@v0.19.2 ManagedResources).
GPU_RESOURCE = "nvidia.com/gpu"
# The queue gates GPUs; the other resources its pods request must be covered by the ClusterQueue
# (Kueue refuses a workload asking for an uncovered resource) and are set beyond any pool.
# Kueue's default quota check is BlockUndeclared, "all resources defined in the workload are checked
# against quota" (cmd/kueue/main.go quotaCheckStrategy, apis/config/v1beta2/configuration_types.go
# @v0.19.2); a resource no resource group covers fails flavor assignment with "resource %s unavailable
# in ClusterQueue" (pkg/scheduler/flavorassigner/flavorassigner.go findFlavorForPodSets@v0.19.2).
COVERING_QUOTAS = {"cpu": "100000", "memory": "1000Ti", "ephemeral-storage": "10000Ti"}
