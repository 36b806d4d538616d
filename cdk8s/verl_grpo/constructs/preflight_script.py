"""The pre-flight module, shipped to the Ray head in a ConfigMap and run before verl starts."""

from __future__ import annotations

from importlib import resources
from typing import TYPE_CHECKING, Any

from ..values.derive import DeploySpec
from .base import ManifestConstruct
from .pod_security import NAMESPACED_EXCEPTIONS

if TYPE_CHECKING:
    from constructs import Construct


def submit_config_map_name(spec: DeploySpec) -> str:
    """The RayCluster path's ConfigMap: entrypoint.sh and runtime-env.yaml for `ray job submit`."""
    return f"{spec.release.name}-submit"


# preflight.py and the modules it imports side by side (stdlib only; ray and torch where they
# run), and the log shipper the sidecars run.
SHIPPED = ("preflight.py", "checkpoint_guard.py", "nccl_gate.py", "log_shipper.py")


def preflight_sources() -> dict[str, str]:
    return {name: (resources.files("verl_grpo") / "pod" / name).read_text() for name in SHIPPED}


class PreflightScript(ManifestConstruct):
    def __init__(self, scope: Construct, id: str, spec: DeploySpec) -> None:
        super().__init__(scope, id, spec)
        self.mount_path = spec.values.preflight.mount_path
        self.config_map = f"{spec.release.name}-preflight"
        # On a long-lived RayCluster the head also carries entrypoint.sh beside preflight.py, so a
        # manual `ray job submit ... -- bash <mountPath>/entrypoint.sh` names a file that exists
        # where Ray runs it (the job's working directory holds nothing of the user's machine).
        self.with_submit_config = spec.decide.is_(spec.values.run.kind, "RayCluster")
        self.submit_config_map = submit_config_map_name(spec)
        self.add_object(
            "config-map",
            kind="ConfigMap",
            name=self.config_map,
            skips=NAMESPACED_EXCEPTIONS,
            # The pod's Python files, shipped as the chart's files/ (Decisions.file).
            body={"data": {name: spec.decide.file(name, text) for name, text in preflight_sources().items()}},
        )

    def volumes(self) -> list[Any]:
        """The `preflight` volume: the ConfigMap, projected with the submit one on a RayCluster."""
        sources = [self.config_map, self.submit_config_map]
        projected = {
            "name": "preflight",
            "projected": {"sources": [{"configMap": {"name": n}} for n in sources]},
        }
        alone = {"name": "preflight", "configMap": {"name": self.config_map}}
        with_submit = self.with_submit_config
        return self.decide.listed([(with_submit, projected), (self.decide.negate(with_submit), alone)])

    def volume_mount(self) -> dict[str, Any]:
        return {"name": "preflight", "mountPath": self.mount_path, "readOnly": True}
