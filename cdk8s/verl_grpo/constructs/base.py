"""The one way our constructs create Kubernetes objects."""

from __future__ import annotations

from typing import Any

from constructs import Construct

import cdk8s

# Argo CD sync waves: a wave is applied only once every object of the waves before it is healthy
# (argoproj/gitops-engine pkg/sync/sync_context.go), and a Job is healthy only when it has
# completed (pkg/health/health_job.go). So every object the data-prep Job uses comes first, the
# Job next, and the Ray run (which needs the Job's data) last. Flux ignores waves: the pre-flight's
# wait covers it there.
WAVE_PREREQUISITES = "-2"
WAVE_DATA = "-1"
WAVE_RUN = "1"
SYNC_WAVE = "argocd.argoproj.io/sync-wave"


class ManifestConstruct(Construct):
    """A construct that records the objects it adds (key, kind) in creation order.

    The app reads all manifests with one `Chart.to_json()` and pairs them with these keys,
    instead of walking the construct tree through jsii (one round trip per call).
    """

    def __init__(self, scope: Construct, id: str) -> None:
        super().__init__(scope, id)
        self.construct_id = id
        self.object_keys: list[tuple[str, str]] = []

    def add_object(
        self,
        id: str,
        *,
        api_version: str,
        kind: str,
        name: str,
        namespace: str | None = None,
        annotations: dict[str, str] | None = None,
        wave: str = WAVE_PREREQUISITES,
        body: dict[str, Any],
    ) -> None:
        obj = cdk8s.ApiObject(
            self,
            id,
            api_version=api_version,
            kind=kind,
            metadata=cdk8s.ApiObjectMetadata(
                name=name, namespace=namespace, annotations={SYNC_WAVE: wave, **(annotations or {})}
            ),
        )
        # The Python ApiObject takes no spec=; top-level fields go in as JSON patches.
        for key, value in body.items():
            obj.add_json_patch(cdk8s.JsonPatch.add(f"/{key}", value))
        self.object_keys.append((f"{self.construct_id}-{id}", kind))


def pod_labels(release_name: str) -> dict[str, str]:
    """Selector-stable labels for pod templates (no chart version: a bump must not roll pods)."""
    return {"app.kubernetes.io/name": "verl-grpo", "app.kubernetes.io/instance": release_name}
