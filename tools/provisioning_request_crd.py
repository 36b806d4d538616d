"""The ProvisioningRequest CRD at the version Kueue is built against, from its Go module:

    python tools/provisioning_request_crd.py   # prints its path (.cache/provisioningrequest-crd-kueue-<v>/)

Kueue's ProvisioningRequest admission check (the one the kit's flex-start ClusterQueue runs)
creates `autoscaling.x-k8s.io/v1` ProvisioningRequests through the Go module
k8s.io/autoscaler/cluster-autoscaler/apis, at the version Kueue's own go.mod requires
(v0.0.0-20240830133931-adfbe7e45277 for sigs.k8s.io/kueue v0.19.2). That module carries the CRD
at config/crd/autoscaling.x-k8s.io_provisioningrequests.yaml. The version is read from Kueue's
go.mod (the module at facts/kueue.py KUEUE_VERSION), so the CRD follows a Kueue bump.

Only the control-plane tier installs it (tests/controlplane/cluster.py start_kueue): Kueue sets
its provisioning controller up only when the API server serves the kind (cmd/kueue/main.go@v0.19.2
setupControllers, ServerSupportsProvisioningRequest). The kit renders no ProvisioningRequest, so
it is not in the CRD bundle. Written once per Kueue version: a present folder is whole.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from kueue_crds import MODULE as KUEUE_MODULE  # noqa: E402
from kueue_crds import REPO, download, write_folder  # noqa: E402

from verl_grpo.facts.kueue import KUEUE_VERSION  # noqa: E402

MODULE = "k8s.io/autoscaler/cluster-autoscaler/apis"
CRD = "config/crd/autoscaling.x-k8s.io_provisioningrequests.yaml"


def pinned_version() -> str:
    """The version of the apis module that Kueue's go.mod requires."""
    gomod = (download(KUEUE_MODULE, KUEUE_VERSION) / "go.mod").read_text()
    match = re.search(rf"^\s*(?:require\s+)?{re.escape(MODULE)}\s+(v\S+)", gomod, re.MULTILINE)
    if match is None:
        raise SystemExit(f"{KUEUE_MODULE}@{KUEUE_VERSION} go.mod does not require {MODULE}")
    return match.group(1)


def fetch() -> Path:
    """The CRD file, cached per Kueue version: a hit runs no `go` at all (the tier starts Kueue
    often); the apis module's version is read from Kueue's go.mod only on a miss."""
    out = REPO / ".cache" / f"provisioningrequest-crd-kueue-{KUEUE_VERSION}"
    target = out / Path(CRD).name
    if out.is_dir():
        return target
    version = pinned_version()
    source = f"{MODULE}@{version} {CRD} (required by {KUEUE_MODULE}@{KUEUE_VERSION})\n"
    write_folder(out, {target.name: download(MODULE, version) / CRD}, source)
    return target


if __name__ == "__main__":
    print(fetch())
