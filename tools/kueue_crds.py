"""Kueue's CRDs for the kinds the kit writes, from the Kueue Go module at the pinned version:

    python tools/kueue_crds.py        # prints the folder: .cache/kueue-crds-<version>/

The module comes from the Go module proxy into .cache/go/mod (as `make tools` keeps Go's caches);
its config/components/crd/bases/ holds the CRDs (without the conversion webhook kustomize adds:
the kit writes only v1beta2, the stored version). `tools/bundle_crds.py` ships them in the
package's CRD bundle beside KubeRay's and GKE's (tools/module_crds.py). Written once per version: a
present folder is whole.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "cdk8s"))

from verl_grpo.facts.kueue import KUEUE_VERSION  # noqa: E402

MODULE = "sigs.k8s.io/kueue"
KINDS = (
    "admissionchecks",
    "clusterqueues",
    "localqueues",
    "provisioningrequestconfigs",
    "resourceflavors",
    "topologies",
)


def folder() -> Path:
    return REPO / ".cache" / f"kueue-crds-{KUEUE_VERSION}"


def download(module: str, version: str) -> Path:
    """The module's source folder in .cache/go/mod, fetched from the module proxy if missing."""
    env = {
        **os.environ,
        "GOMODCACHE": str(REPO / ".cache" / "go" / "mod"),
        "GOFLAGS": "-modcacherw",
        "GOTOOLCHAIN": "local",
    }
    done = subprocess.run(
        ["go", "mod", "download", "-json", f"{module}@{version}"],
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        raise SystemExit(f"go mod download {module}@{version} failed:\n{done.stdout}{done.stderr}")
    return Path(json.loads(done.stdout)["Dir"])


def fetch() -> Path:
    out = folder()
    if out.is_dir():
        return out
    bases = download(MODULE, KUEUE_VERSION) / "config" / "components" / "crd" / "bases"
    files = {f"kueue.x-k8s.io_{kind}.yaml": bases / f"kueue.x-k8s.io_{kind}.yaml" for kind in KINDS}
    write_folder(out, files, f"{MODULE}@{KUEUE_VERSION} config/components/crd/bases\n")
    return out


def write_folder(out: Path, files: dict[str, Path], source: str) -> None:
    """Copy `files` (name: module file) and a SOURCE.txt into `out` whole or not at all: staged
    beside it and renamed, so a present folder is complete."""
    tmp = out.with_name(f"{out.name}.tmp")
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    for name, path in files.items():
        # copyfile, not copy: the module cache is read-only and the mode would follow.
        shutil.copyfile(path, tmp / name)
    (tmp / "SOURCE.txt").write_text(source)
    os.replace(tmp, out)


if __name__ == "__main__":
    print(fetch())
