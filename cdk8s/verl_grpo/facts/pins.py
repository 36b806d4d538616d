"""Everything a run pulls from outside, pinned to one immutable version, in one place: `plan`
lists them, the constructs and the scripts use them.

- verl: each release's PyPI wheel and GSM8K script by URL and sha256 (data/verl/<version>.yaml,
  facts/verl_releases.py); the data-prep Job and scripts/60-data.sh refuse any other bytes.
- GKE's NCCL RDMA installer: the last commits that changed each manifest in
  GoogleCloudPlatform/container-engine-accelerators (the repository tags no gpudirect-rdma/
  release): 2da1c92 (2026-05-06, Standard, and the Arm build for A4X, nccl-rdma-installer-a4x.yaml,
  which https://cloud.google.com/ai-hypercomputer/docs/create/gke-ai-hypercompute-custom-a4x applies)
  and 155bfa4 (2026-03-09, Autopilot).
- The model: a Hugging Face commit of the values' data_prep.modelRevision (a branch name such as
  main moves; `plan` says so).
- The image: a digest when image.digest is set, resolved once by the user with
  `crane digest REPOSITORY:TAG` (or `skopeo inspect --format '{{.Digest}}' docker://REPOSITORY:TAG`,
  or `gcloud artifacts docker images describe` for Artifact Registry); never at render time.
"""

from __future__ import annotations

import re

VERL_REPOSITORY = "https://github.com/verl-project/verl"

RDMA_INSTALLER_BASE = "https://raw.githubusercontent.com/GoogleCloudPlatform/container-engine-accelerators"
RDMA_INSTALLERS = {
    "standard": "2da1c92ff7bd772a2c833710bb6c21dcfe6dfaae/gpudirect-rdma/nccl-rdma-installer.yaml",
    "autopilot": "155bfa49b7459a55c2352495d3eeb46a55637be6/gpudirect-rdma/nccl-rdma-installer-autopilot.yaml",
    "standard-arm64": "2da1c92ff7bd772a2c833710bb6c21dcfe6dfaae/gpudirect-rdma/nccl-rdma-installer-a4x.yaml",
}

# Qwen/Qwen2.5-32B-Instruct's commit on the Hugging Face Hub as cached by many public projects
# (the hub's snapshots/<commit> folder; docs/research/issue-27-security-facts.md §6): the default
# model's revision. Another model_id needs its own.
DEFAULT_MODEL_REVISION = "5ede1c97bbab6ce5cda5812749b4c0bdf79b18dd"
COMMIT = re.compile(r"^[0-9a-f]{40}$")
DIGEST = r"^(sha256:[0-9a-f]{64})?$"


# The NCCL each pinned installer leaves on the node, from its install command at that commit:
# `container_entry.sh install` copies gIB's NCCL net plugin only, `install --install-nccl` also gIB's
# own NCCL build; both copy /var/lib/gib/lib64 into /home/kubernetes/bin/nvidia/lib64 and the gib
# folder, which the workers mount and put first on LD_LIBRARY_PATH (constructs/runtime_env.py).
# 2da1c92 ("Removed --install-nccl from default and a4x installers") changed Standard and A4X only;
# the Autopilot manifest, the one GKE's Autopilot page applies, still installs NCCL at 155bfa4 and
# has no later commit. Not aligned: pinning Standard back to 155bfa4 would undo Google's own change,
# and Autopilot has no installer without NCCL. Which library a worker maps also depends on how the
# image's torch links NCCL, so the pre-flight's NCCL gate prints the version and file each rank
# runs and fails when the nodes differ (nccl_gate.nccl_lines).
RDMA_INSTALLER_NCCL = {
    "standard": "gIB's plugin only: the workers run the image's NCCL (PyTorch's)",
    "standard-arm64": "gIB's plugin only: the workers run the image's NCCL (PyTorch's)",
    "autopilot": "gIB's plugin and gIB's NCCL build (/usr/local/gib/lib64, first on LD_LIBRARY_PATH)",
}


def rdma_installer_nccl(mode: str, arch: str = "amd64") -> str:
    return RDMA_INSTALLER_NCCL[mode if arch == "amd64" else f"{mode}-{arch}"]


def rdma_installer(mode: str, arch: str = "amd64") -> str:
    """The installer for the cluster mode, and its Arm build on Arm GPU nodes (A4X)."""
    return f"{RDMA_INSTALLER_BASE}/{RDMA_INSTALLERS[mode if arch == 'amd64' else f'{mode}-{arch}']}"
