#!/usr/bin/env python3
"""Build the control-plane binaries (etcd, kube-*, KubeRay operator, Kueue) from Go modules, once.

Usage: ``python tests/controlplane/build.py`` — prints one ``name: path`` line per component
and exits non-zero with a message naming the component that failed.

Each component lands in ``.cache/controlplane/<component>-<version>-<goversion>/`` and is
skipped when that folder exists: it is written to a temporary folder and renamed only after a
successful build, so a present folder is always complete. The version comes from the
``require`` line of the wrapper module under ``go/`` (the checked-in go.mod is the single source
of truth); bump it there (for Kubernetes: ``python tests/controlplane/gen_replaces.py vX.Y.Z``).

The Go module and build caches live under ``.cache/controlplane/`` too, so a fresh clone (CI)
depends on nothing outside the repo except the Go toolchain and the module proxy.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
GO_DIR = HERE / "go"
CACHE = REPO / ".cache" / "controlplane"
RECORD = "build.json"

# Version stamping as the Kubernetes release build does it: without these the binaries report
# gitVersion "v0.0.0-master+$Format:%H$" (k8s.io/component-base/version/base.go@v0.36.3), which
# `kubectl version` and clients that gate on the server version misread.
# Source of the variable names: hack/lib/version.sh (kube::version::ldflags)@v1.36.3.
K8S_VERSION_PACKAGES = ("k8s.io/component-base/version", "k8s.io/client-go/pkg/version")


@dataclass(frozen=True)
class Component:
    """One binary built from a package of a module required by a wrapper module in go/."""

    name: str  # binary name, also the cache folder's prefix
    wrapper: str  # folder under go/ holding the wrapper go.mod
    module: str  # the module whose required version names the build
    package: str  # the main package to build
    kube_version_stamp: bool = False  # add the k8s -X version flags
    crds_from: str | None = None  # folder of the module source whose *.yaml files are copied to crds/
    extras: tuple[str, ...] = ()  # more files of the module source, copied to extras/


# One wrapper per KubeRay minor the chart supports that the module proxy serves (`kuberay.version`
# in the values; the proxy refuses v1.7.0's module zip, so 1.7 is checked against its CRDs only).
# The first is the operator ControlPlane.start() runs unless told otherwise.
KUBERAY_WRAPPERS = ("kuberay-v1.6", "kuberay-v1.5", "kuberay-v1.4")

KWOK_STAGES = (
    "kustomize/stage/node/fast/node-initialize.yaml",
    "kustomize/stage/pod/fast/pod-ready.yaml",
    "kustomize/stage/pod/fast/pod-delete.yaml",
)

COMPONENTS: tuple[Component, ...] = (
    Component("etcd", "etcd", "go.etcd.io/etcd/server/v3", "go.etcd.io/etcd/server/v3"),
    *(
        Component(
            name, "kubernetes", "k8s.io/kubernetes", f"k8s.io/kubernetes/cmd/{name}", kube_version_stamp=True
        )
        for name in ("kube-apiserver", "kube-controller-manager", "kube-scheduler")
    ),
    *(
        Component(
            "ray-operator",
            wrapper,
            "github.com/ray-project/kuberay/ray-operator",
            "github.com/ray-project/kuberay/ray-operator",
            # The CRDs the operator's own manifests install (kustomize base config/crd).
            crds_from="config/crd/bases",
        )
        for wrapper in KUBERAY_WRAPPERS
    ),
    # Kueue's controller manager (cmd/kueue), whose API the chart's queue objects use
    # (facts/kueue.py KUEUE_VERSION), with its CRDs as its own kustomize base installs them.
    Component(
        "kueue",
        "kueue-v0.19",
        "sigs.k8s.io/kueue",
        "sigs.k8s.io/kueue/cmd/kueue",
        crds_from="config/components/crd/bases",
        # Its webhooks, which the harness registers at a loopback URL (cluster.py start_kueue).
        extras=("config/components/webhook/manifests.yaml",),
    ),
    # kwok plays the kubelet of the twin's nodes (Ready nodes, Running pods, deleted pods). The
    # binary has no stages of its own; kwokctl passes its "fast" ones (pkg/kwokctl/runtime/
    # cluster.go@v0.8.0), and so does the harness (cluster.py start_kwok), less two: pod-complete,
    # which ends every Job's pod at once (the data-prep Job and the submitter run for hours on GKE,
    # holding their CPU), and the heartbeat (the node lifecycle controller that reads it is off).
    Component(
        "kwok",
        "kwok",
        "sigs.k8s.io/kwok",
        "sigs.k8s.io/kwok/cmd/kwok",
        extras=KWOK_STAGES,
    ),
)


class BuildError(RuntimeError):
    """A component could not be built; the message says which and why."""


def go_env() -> dict[str, str]:
    """Environment for every go command here: caches under .cache/, no workspace, static binaries."""
    env = dict(os.environ)
    env.update(
        GOMODCACHE=str(CACHE / "gomod"),
        GOCACHE=str(CACHE / "gocache"),
        GOWORK="off",
        # The machine's own Go; a toolchain line in a dependency must not trigger a download.
        GOTOOLCHAIN="local",
        # Kubernetes builds its server binaries with CGO off (hack/lib/golang.sh@v1.36.3); so do we:
        # static binaries and no C compiler needed.
        CGO_ENABLED="0",
        GOFLAGS="-trimpath -mod=readonly -buildvcs=false",
    )
    return env


def go(args: list[str], cwd: Path, capture: bool = False) -> str:
    """Run one go command; raise BuildError with its output on failure."""
    if shutil.which("go") is None:
        raise BuildError("the go command is not on PATH (Go 1.25+ is needed)")
    proc = subprocess.run(
        ["go", *args],
        cwd=cwd,
        env=go_env(),
        text=True,
        stdout=subprocess.PIPE if capture else None,
        stderr=subprocess.PIPE if capture else None,
    )
    if proc.returncode != 0:
        detail = (proc.stderr or "").strip() if capture else "(output above)"
        raise BuildError(f"`go {' '.join(args)}` in {cwd} exited {proc.returncode}: {detail}")
    return proc.stdout or ""


def go_version() -> str:
    return go(["env", "GOVERSION"], cwd=GO_DIR, capture=True).strip()


def required_version(wrapper: str, module: str) -> str:
    """The version of ``module`` that go/<wrapper>/go.mod requires."""
    gomod = (GO_DIR / wrapper / "go.mod").read_text()
    match = re.search(rf"^\s*(?:require\s+)?{re.escape(module)}\s+(v\S+)", gomod, re.MULTILINE)
    if match is None:
        raise BuildError(f"go/{wrapper}/go.mod does not require {module}")
    return match.group(1)


def cache_dir(component: Component, goversion: str) -> Path:
    version = required_version(component.wrapper, component.module)
    return CACHE / f"{component.name}-{version}-{goversion}"


def ldflags(component: Component) -> str:
    # -s -w: no symbol table or DWARF, smaller and faster to link.
    flags = ["-s", "-w"]
    if component.kube_version_stamp:
        version = required_version(component.wrapper, component.module)
        major, minor = version.lstrip("v").split(".")[:2]
        for pkg in K8S_VERSION_PACKAGES:
            flags += [
                f"-X {pkg}.gitVersion={version}",
                f"-X {pkg}.gitMajor={major}",
                f"-X {pkg}.gitMinor={minor}",
                f"-X {pkg}.gitTreeState=clean",
            ]
    return " ".join(flags)


def module_dir(component: Component) -> Path:
    """Where the module's source sits in the module cache (downloading it if needed)."""
    out = go(["list", "-m", "-f", "{{.Dir}}", component.module], cwd=GO_DIR / component.wrapper, capture=True)
    return Path(out.strip())


def copy_crds(component: Component, dest: Path) -> int:
    assert component.crds_from is not None
    source = module_dir(component) / component.crds_from
    files = sorted(source.glob("*.yaml"))
    if not files:
        raise BuildError(f"no CRDs under {source}")
    dest.mkdir()
    for f in files:
        # copyfile, not copy: the module cache is read-only and the mode would follow.
        shutil.copyfile(f, dest / f.name)
    return len(files)


def build(component: Component, goversion: str) -> Path:
    """Build one component unless its cache folder exists; return that folder."""
    final = cache_dir(component, goversion)
    if (final / RECORD).is_file():
        return final
    tmp = final.with_name(final.name + ".tmp")
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    print(f"building {final.name} ...", file=sys.stderr, flush=True)
    start = time.monotonic()
    go(
        ["build", f"-ldflags={ldflags(component)}", "-o", str(tmp / component.name), component.package],
        cwd=GO_DIR / component.wrapper,
    )
    seconds = round(time.monotonic() - start, 1)
    record: dict[str, object] = {
        "component": component.name,
        "package": component.package,
        "version": required_version(component.wrapper, component.module),
        "go": goversion,
        "build_seconds": seconds,
        "built_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
    }
    if component.crds_from:
        record["crds"] = copy_crds(component, tmp / "crds")
    if component.extras:
        (tmp / "extras").mkdir()
        for extra in component.extras:
            shutil.copyfile(module_dir(component) / extra, tmp / "extras" / Path(extra).name)
    (tmp / RECORD).write_text(json.dumps(record, indent=2) + "\n")
    shutil.rmtree(final, ignore_errors=True)
    tmp.rename(final)
    print(f"built {final.name} in {seconds}s", file=sys.stderr, flush=True)
    return final


def kuberay_version(component: Component) -> str:
    """The operator's version without the v, as `kuberay.version` spells it."""
    return required_version(component.wrapper, component.module).lstrip("v")


def ensure_built() -> dict[str, Path]:
    """Build what is missing; return each component's cache folder by name: the operators as
    ``ray-operator`` (the first, the default) and ``ray-operator@<version>`` (each)."""
    goversion = go_version()
    dirs: dict[str, Path] = {}
    for c in COMPONENTS:
        path = build(c, goversion)
        if c.name == "ray-operator":
            dirs.setdefault(c.name, path)
            dirs[f"{c.name}@{kuberay_version(c)}"] = path
        else:
            dirs[c.name] = path
    return dirs


def kuberay_versions() -> list[str]:
    """The KubeRay versions the tier builds, default first (no build needed to answer)."""
    return [kuberay_version(c) for c in COMPONENTS if c.name == "ray-operator"]


def main() -> int:
    try:
        dirs = ensure_built()
    except BuildError as err:
        print(f"controlplane build failed: {err}", file=sys.stderr)
        return 1
    for name, path in dirs.items():
        print(f"{name}: {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
