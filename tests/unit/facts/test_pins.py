"""facts/pins.py: everything a run pulls from outside, pinned to one immutable version."""

from __future__ import annotations

import re

from verl_grpo.facts.machines import gpu_profiles
from verl_grpo.facts.pins import (
    COMMIT,
    DEFAULT_MODEL_REVISION,
    DIGEST,
    RDMA_INSTALLER_BASE,
    RDMA_INSTALLERS,
    rdma_installer,
    rdma_installer_nccl,
)


def test_the_model_revision_is_a_commit() -> None:
    assert COMMIT.match(DEFAULT_MODEL_REVISION)
    assert not COMMIT.match("main") and not COMMIT.match(DEFAULT_MODEL_REVISION[:7])


def test_each_installer_is_a_file_at_a_commit_of_google_s_repository() -> None:
    """The repository tags no gpudirect-rdma release: each manifest is pinned by a full commit."""
    for name, path in RDMA_INSTALLERS.items():
        commit, _, file = path.partition("/")
        assert COMMIT.match(commit) and file.startswith("gpudirect-rdma/") and file.endswith(".yaml"), name
    assert rdma_installer("standard") == f"{RDMA_INSTALLER_BASE}/{RDMA_INSTALLERS['standard']}"
    assert RDMA_INSTALLERS["standard"].startswith("2da1c92") and RDMA_INSTALLERS["autopilot"].startswith(
        "155bfa4"
    )
    assert rdma_installer("standard", "arm64").endswith("/nccl-rdma-installer-a4x.yaml")


def test_every_machine_has_an_installer_in_each_mode_it_is_offered_in() -> None:
    """data/gpus/ modes and arch: each pair resolves to a manifest and a note of the NCCL it leaves."""
    for gpu in gpu_profiles().values():
        for mode in gpu.modes:
            assert rdma_installer(mode, gpu.arch).startswith(RDMA_INSTALLER_BASE)
            assert rdma_installer_nccl(mode, gpu.arch)


def test_only_the_autopilot_installer_puts_gib_s_nccl_first() -> None:
    """2da1c92 removed --install-nccl from Standard and A4X; Autopilot's 155bfa4 still installs it."""
    assert "gIB's NCCL build" in rdma_installer_nccl("autopilot")
    for mode, arch in (("standard", "amd64"), ("standard", "arm64")):
        assert "image's NCCL" in rdma_installer_nccl(mode, arch)


def test_an_image_digest_is_a_sha256_digest_or_nothing() -> None:
    """image.digest: empty (the tag alone) or sha256 and 64 lowercase hex digits."""
    assert re.match(DIGEST, "") and re.match(DIGEST, "sha256:" + "0a" * 32)
    for wrong in ("latest", "sha256:" + "0a" * 31, "sha256:" + "0A" * 32, "sha512:" + "0a" * 64):
        assert not re.match(DIGEST, wrong), wrong
