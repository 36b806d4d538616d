"""Helpers shared by the control-plane tests that drive the project's own output (helm, synth).

Kept apart from ``cluster.py`` (which only starts and stops the control plane) so that tests
can grow without touching it. Nothing here starts processes that outlive a call.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import pytest
import yaml

from ..conftest import DIST_VALUES
from .build import REPO
from .cluster import ControlPlane

BIN = REPO / ".venv" / "bin"
CHART = REPO / "charts" / "verl-grpo"
OVERLAYS = REPO / "overlays"
DIST = REPO / "dist"
T = TypeVar("T")


def wait_for(what: str, probe: Callable[[], T | None], timeout: float = 60.0, interval: float = 0.3) -> T:
    """Poll ``probe`` until it returns something truthy; fail naming ``what`` (and the last value)."""
    deadline = time.monotonic() + timeout
    last: T | None = None
    while time.monotonic() < deadline:
        last = probe()
        if last:
            return last
        time.sleep(interval)
    pytest.fail(f"timed out after {timeout:.0f}s waiting for {what} (last: {last!r})")


def synth(out: Path, profile: str, *args: str) -> Path:
    """``verl-grpo synth --profile P ARGS -o OUT``, the user's own command; return OUT/P.

    A subprocess, not ``synthesize()`` in-process: the CLI is what people and scripts run, and
    its exit code and stderr are part of what these tests rely on.
    """
    done = subprocess.run(
        [
            str(BIN / "verl-grpo"),
            "synth",
            "--profile",
            profile,
            "-f",
            str(DIST_VALUES),
            *args,
            "-o",
            str(out),
        ],
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=120,
    )
    assert done.returncode == 0, f"verl-grpo synth --profile {profile} {' '.join(args)}:\n{done.stderr}"
    return out / profile


def objects(folder: Path) -> list[dict[str, Any]]:
    """A rendered folder's objects, in its kustomization's order."""
    names = yaml.safe_load((folder / "kustomization.yaml").read_text())["resources"]
    return [yaml.safe_load((folder / n).read_text()) for n in names]


def kubectl_json(cp: ControlPlane, *args: str) -> dict[str, Any]:
    return json.loads(cp.kubectl(*args, "-o", "json"))


def items(cp: ControlPlane, *args: str) -> list[dict[str, Any]]:
    """``kubectl get ARGS -o json``'s items (a single object comes back as a one-item list)."""
    found = kubectl_json(cp, "get", *args)
    return found["items"] if "items" in found else [found]


def pods(cp: ControlPlane, namespace: str, selector: str | None = None) -> list[dict[str, Any]]:
    return items(cp, "pods", "-n", namespace, *(["-l", selector] if selector else []))


def scheduled_condition(pod: dict[str, Any]) -> dict[str, Any] | None:
    return next((c for c in pod.get("status", {}).get("conditions", []) if c["type"] == "PodScheduled"), None)


def unschedulable(pod: dict[str, Any]) -> bool:
    c = scheduled_condition(pod)
    return bool(c and c["status"] == "False" and c.get("reason") == "Unschedulable")


def namespaced_kinds(cp: ControlPlane) -> list[str]:
    """Every namespaced kind that can be listed (events left out: they outlive what they describe)."""
    out = cp.kubectl("api-resources", "--namespaced=true", "--verbs=list", "-o", "name")
    return sorted(k for k in out.split() if k not in {"events", "events.events.k8s.io"})


def labelled(cp: ControlPlane, kinds: Iterable[str], selector: str) -> list[str]:
    """``kind/name`` of every object (any namespace) of ``kinds`` matching the label selector."""
    out = cp.kubectl("get", ",".join(kinds), "-A", "-l", selector, "-o", "name")
    return out.split()


def existing(cp: ControlPlane, kind: str, *names: str, namespace: str | None = None) -> list[str]:
    """Which of the named objects exist (``--ignore-not-found`` keeps it one call); cluster-scoped
    ones unless a namespace is given."""
    if not names:
        return []
    where = ("-n", namespace) if namespace else ()
    return cp.kubectl("get", kind, *names, *where, "--ignore-not-found", "-o", "name").split()


def release_pvs(cp: ControlPlane, namespace: str, release: str) -> list[str]:
    """The PersistentVolumes (``persistentvolume/<name>``) of a release's claims: cluster-scoped,
    so not deleted with the namespace, and named after a digest of the bucket and capacity."""
    return sorted(
        f"persistentvolume/{pv['metadata']['name']}"
        for pv in items(cp, "pv")
        if (ref := pv["spec"].get("claimRef", {})).get("namespace") == namespace
        and ref.get("name", "").startswith(f"{release}-")
    )


def begin_namespace_deletion(cp: ControlPlane, namespace: str) -> None:
    """Start deleting a namespace without waiting: the namespace controller takes 5-20 s per
    namespace (discovery, then KubeRay's finalizers), which adds up over many tests; the
    module's teardown waits for all of them at once (``await_namespaces_deleted``)."""
    cp.kubectl("delete", "namespace", namespace, "--wait=false", "--ignore-not-found")


def await_namespaces_deleted(cp: ControlPlane, names: Iterable[str], timeout: float = 120.0) -> None:
    """Wait until the namespaces are gone.

    Without a kubelet, a pod that the scheduler bound to a node never confirms its graceful
    deletion, so its namespace would stay Terminating forever: whatever pods are left once the
    namespace is terminating (owners gone or going, so nothing recreates them) are removed with
    --force --grace-period=0.
    """
    waiting = set(names)
    deadline = time.monotonic() + timeout
    while waiting and time.monotonic() < deadline:
        present = {
            n.removeprefix("namespace/") for n in cp.kubectl("get", "namespaces", "-o", "name").split()
        }
        waiting &= present
        for namespace in sorted(waiting):
            cp.kubectl(
                "delete",
                "pods",
                "--all",
                "-n",
                namespace,
                "--force",
                "--grace-period=0",
                "--wait=false",
                check=False,
            )
        if waiting:
            time.sleep(1)
    assert not waiting, f"namespaces still there {timeout:.0f}s after their deletion: {sorted(waiting)}"


RENDERING_VERBS = ("install", "upgrade", "template")


@dataclass(frozen=True)
class Helm:
    """The real helm binary against the control plane, with its own cache/config/data folders
    (so a test run neither reads nor writes the user's ~/.config/helm)."""

    kubeconfig: Path
    home: Path
    binary: Path = BIN / "helm"

    def run(self, *args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
        env = {
            **os.environ,
            "KUBECONFIG": str(self.kubeconfig),
            "HELM_CACHE_HOME": str(self.home / "cache"),
            "HELM_CONFIG_HOME": str(self.home / "config"),
            "HELM_DATA_HOME": str(self.home / "data"),
        }
        if args and args[0] in RENDERING_VERBS:  # the bucket dist/ carries, as the first values layer
            args = (args[0], "-f", str(DIST_VALUES), *args[1:])
        return subprocess.run(
            [str(self.binary), *args], capture_output=True, text=True, env=env, cwd=REPO, timeout=timeout
        )

    def ok(self, *args: str) -> str:
        done = self.run(*args)
        assert done.returncode == 0, f"helm {' '.join(args)} exited {done.returncode}:\n{done.stderr}"
        return done.stdout


def helm_error(stderr: str) -> str:
    """The message after helm's final ``Error: `` (its WARN log lines repeat it, JSON-escaped);
    it may span lines (a PersistentVolume's refusal carries a diff)."""
    lines = stderr.splitlines()
    starts = [i for i, line in enumerate(lines) if line.startswith("Error: ")]
    if not starts:
        return stderr.strip()
    message = "\n".join(lines[starts[-1] :]).removeprefix("Error: ")
    # Helm prefixes the verb: "INSTALLATION FAILED: ", "UPGRADE FAILED: "; the server's message follows.
    return re.sub(r"^[A-Z ]+ FAILED: ", "", message).strip()
