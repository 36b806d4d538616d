"""The one way our constructs create Kubernetes objects."""

from __future__ import annotations

from typing import Any

from constructs import Construct

import cdk8s


def api_object(
    scope: Construct,
    id: str,
    *,
    api_version: str,
    kind: str,
    name: str,
    namespace: str | None = None,
    annotations: dict[str, str] | None = None,
    body: dict[str, Any],
) -> cdk8s.ApiObject:
    obj = cdk8s.ApiObject(
        scope,
        id,
        api_version=api_version,
        kind=kind,
        metadata=cdk8s.ApiObjectMetadata(name=name, namespace=namespace, annotations=annotations),
    )
    # The Python ApiObject takes no spec=; top-level fields go in as JSON patches.
    for key, value in body.items():
        obj.add_json_patch(cdk8s.JsonPatch.add(f"/{key}", value))
    return obj


def pod_labels(release_name: str) -> dict[str, str]:
    """Selector-stable labels for pod templates (no chart version: a bump must not roll pods)."""
    return {"app.kubernetes.io/name": "verl-grpo", "app.kubernetes.io/instance": release_name}
