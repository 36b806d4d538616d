"""constructs/log_shipper_sidecar.py: a native sidecar on every Ray pod copies the pod's Ray logs
into the run's folder in the bucket."""

from __future__ import annotations

import re
from typing import Any

import pytest

from verl_grpo.facts.quantity import parse_quantity

from ...conftest import pods, render_one


@pytest.fixture(scope="module")
def rendering():
    return render_one("logs.intervalSeconds=7")


def shipper(pod: dict[str, Any]) -> dict[str, Any]:
    (sidecar,) = [c for c in pod["spec"].get("initContainers", []) if c["name"] == "log-shipper"]
    return sidecar


def flag(container: dict[str, Any], name: str) -> str:
    (value,) = [a.split("=", 1)[1] for a in container["command"] if a.startswith(f"--{name}=")]
    return value


def test_every_ray_pod_runs_the_shipper_as_a_native_sidecar(rendering) -> None:
    """An init container with restartPolicy Always is a sidecar: started before the Ray container,
    stopped after it (kubernetes.io/docs/concepts/workloads/pods/sidecar-containers)."""
    names = []
    for name, pod in pods(rendering):
        sidecar = shipper(pod)
        assert sidecar["restartPolicy"] == "Always", name
        assert flag(sidecar, "interval") == "7", name  # logs.intervalSeconds
        requests, limits = sidecar["resources"]["requests"], sidecar["resources"]["limits"]
        assert {k: parse_quantity(v) for k, v in requests.items()} == {
            k: parse_quantity(v) for k, v in limits.items()
        }, name
        names.append(name)
    assert names == ["head", "gpu-group"]


def test_the_shipper_reads_the_logs_the_ray_container_writes_without_writing_there(rendering) -> None:
    """Its source is inside a volume the Ray container mounts at the same path, and its own mount of
    that volume is read-only."""
    for name, pod in pods(rendering):
        sidecar = shipper(pod)
        source = flag(sidecar, "source")
        ray_mounts = {(m["name"], m["mountPath"]) for m in pod["spec"]["containers"][0]["volumeMounts"]}
        (logs,) = [
            m
            for m in sidecar["volumeMounts"]
            if source.startswith(m["mountPath"].rstrip("/") + "/") or source == m["mountPath"]
        ]
        assert logs["readOnly"] is True, name
        assert (logs["name"], logs["mountPath"]) in ray_mounts, name


def test_the_shipper_writes_into_the_run_folder_on_the_writable_checkpoint_volume(rendering) -> None:
    """The target is `<checkpoint mount>/<project>/<run>/logs/<pod>`, on the checkpoint volume the
    sidecar mounts writable, at the path the command names as the checkpoint mount."""
    v = rendering.spec.values
    for name, pod in pods(rendering):
        sidecar = shipper(pod)
        mounts = {m["mountPath"]: m for m in sidecar["volumeMounts"]}
        checkpoint_mount = flag(sidecar, "checkpoint-mount")
        assert mounts[checkpoint_mount]["name"] == "checkpoints" and not mounts[checkpoint_mount].get(
            "readOnly"
        )
        run_folder = f"{checkpoint_mount}/{v.training.project_name}/{v.run.name}"
        assert flag(sidecar, "target") == f"{run_folder}/logs/$(POD_NAME)", name
        # it runs the log shipper from the pre-flight ConfigMap's read-only mount
        (script,) = [a for a in sidecar["command"] if a.endswith("/log_shipper.py")]
        assert mounts[script.rsplit("/", 1)[0]]["readOnly"] is True, name


def test_every_variable_the_command_names_is_in_its_env(rendering) -> None:
    """The kubelet expands $(VAR) only for variables the container defines; any other stays
    literal, and every pod would write into one folder named `$(POD_NAME)`."""
    for name, pod in pods(rendering):
        sidecar = shipper(pod)
        used = {
            var for arg in sidecar["command"] for var in re.findall(r"\$\(([A-Za-z_][A-Za-z0-9_]*)\)", arg)
        }
        assert used and used <= {e["name"] for e in sidecar["env"]}, name
        env = {e["name"]: e["valueFrom"]["fieldRef"]["fieldPath"] for e in sidecar["env"]}
        assert env["POD_NAME"] == "metadata.name", name


def test_without_logs_no_pod_carries_the_sidecar() -> None:
    """logs.enabled=false: no init container at all on any Ray pod."""
    for name, pod in pods(render_one("logs.enabled=false")):
        assert [c["name"] for c in pod["spec"].get("initContainers", [])] == [], name
