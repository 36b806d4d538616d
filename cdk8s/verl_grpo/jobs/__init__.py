"""The `ray job submit` path: submit the GRPO run to a RayCluster, follow it, read its metrics."""
