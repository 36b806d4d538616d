"""Strict validation of Kubernetes manifests: built-in kinds, CRDs made strict, operator rules."""
