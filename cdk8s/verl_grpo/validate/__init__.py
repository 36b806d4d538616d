"""Strict validation of Kubernetes manifests: built-in kinds, CRDs made strict, operator rules."""

# GKE's regular channel runs 1.34 at the end of 2026; `--kube-version` picks another minor.
DEFAULT_KUBE_VERSION = "1.34"
