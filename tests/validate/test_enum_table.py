"""validate/builtin.py's enum table against the Kubernetes source the control-plane tier builds
(a Go module: not a unit test)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from verl_grpo.validate.builtin import enums

from ..conftest import REPO


def test_the_enum_table_is_what_kubernetes_generates(tmp_path) -> None:
    """The committed table equals a fresh extraction from the k8s.io/kubernetes module the
    control-plane tier builds kube-apiserver from (`make controlplane` downloads it)."""
    committed = json.loads((REPO / "cdk8s" / "verl_grpo" / "data" / "kubernetes-enums.json").read_text())
    version = committed["source"].split()[0].split("@")[1]
    module = REPO / ".cache" / "controlplane" / "gomod" / "k8s.io" / f"kubernetes@{version}"
    if not module.is_dir():
        pytest.fail(f"{module} missing: run `make controlplane`")
    out = tmp_path / "enums.json"
    subprocess.run(
        [sys.executable, str(REPO / "tools" / "extract_k8s_enums.py"), str(module), str(out)], check=True
    )
    assert json.loads(out.read_text()) == committed
    assert enums()["io.k8s.api.core.v1.PodSpec"]["restartPolicy"] == ["Always", "Never", "OnFailure"]
