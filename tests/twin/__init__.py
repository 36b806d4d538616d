"""The GKE twin: the cloud side of a run, built from what the scripts asked the (fake) cloud for.

- ``gke``: the node pools the recorded ``gcloud container`` calls create, as node templates shaped
  the way GKE shapes that pool's nodes (capacity, allocatable, labels, taints).
- ``autoscaler``: a stand-in for GKE's cluster autoscaler that grows those pools from where their
  flags start, leaving every fit decision to the real kube-scheduler.
- ``bucket``: a folder tree that enforces the IAM grants the scripts made on the bucket and its
  managed folders, against the identity each pod runs as.

kwok (``controlplane/cluster.py`` ``start_kwok``) plays the kubelet of the nodes the autoscaler adds.
What it does not model is listed in tests/controlplane/README.md.
"""
