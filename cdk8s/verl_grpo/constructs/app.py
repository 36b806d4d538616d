"""The cdk8s app: one chart per rendering, all in one process (jsii start-up is paid once)."""
# ruff: noqa: E402 - node is checked before the imports below start jsii's node kernel

from __future__ import annotations

from ..node_runtime import require_node

require_node()  # before the first import of cdk8s starts jsii's node kernel

import cdk8s

from ..values.derive import DeploySpec
from .assembly import RenderedObject, objects_of, parts, top_labels


class VerlGrpoChart(cdk8s.Chart):
    """Everything one run needs. No chart namespace: it would stamp cluster-scoped objects too."""

    def __init__(self, scope: cdk8s.App, id: str, spec: DeploySpec) -> None:
        super().__init__(scope, id, disable_resource_name_hashes=True, labels=top_labels(spec))
        self.parts = parts(self, spec)


def render(specs: dict[str, DeploySpec]) -> dict[str, list[RenderedObject]]:
    """Through cdk8s: all charts in one app, each chart's manifests in one jsii call."""
    app = cdk8s.App()
    charts = {name: VerlGrpoChart(app, name, spec) for name, spec in specs.items()}
    return {name: objects_of(chart.parts, chart.to_json()) for name, chart in charts.items()}
