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
    return {name: (resources.files("verl_grpo") / name).read_text() for name in SHIPPED}


class PreflightScript(ManifestConstruct):
    def __init__(self, scope: Construct, id: str, spec: DeploySpec) -> None:
        super().__init__(scope, id, spec.release.namespace)
        self.mount_path = spec.values.preflight.mount_path
        self.config_map = f"{spec.release.name}-preflight"
        # On a long-lived RayCluster the head also carries entrypoint.sh beside preflight.py, so a
        # manual `ray job submit ... -- bash <mountPath>/entrypoint.sh` names a file that exists
        # where Ray runs it (the job's working directory holds nothing of the user's machine).
        self.sources = [self.config_map]
        if spec.values.run.kind == "RayCluster":
            self.sources.append(submit_config_map_name(spec))
        self.add_object(
            "config-map",
            kind="ConfigMap",
            name=self.config_map,
            skips=NAMESPACED_EXCEPTIONS,
            body={"data": preflight_sources()},
        )

    def volume(self) -> dict[str, Any]:
        if len(self.sources) == 1:
            return {"name": "preflight", "configMap": {"name": self.config_map}}
        return {
            "name": "preflight",
            "projected": {"sources": [{"configMap": {"name": name}} for name in self.sources]},
        }

    def volume_mount(self) -> dict[str, Any]:
        return {"name": "preflight", "mountPath": self.mount_path, "readOnly": True}
