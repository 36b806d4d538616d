"""validate/documents.py: what `verl-grpo validate` reads, and what it refuses to call valid."""

from __future__ import annotations

import subprocess

import pytest

from verl_grpo.cli import main

from ...conftest import REPO

CLI = str(REPO / ".venv" / "bin" / "verl-grpo")


def test_stdin_is_read_with_a_dash() -> None:
    text = (REPO / "dist" / "b200-standard" / "kustomization.yaml").parent
    manifests = "".join(p.read_text() for p in sorted(text.glob("configmap-*.yaml")))
    done = subprocess.run(
        [CLI, "validate", "-", "-o", "json"], input=manifests, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    assert '"objects": 1' in done.stdout
    bad = manifests.replace("kind: ConfigMap", "kind: ConfigMap\nspec: {}")
    done = subprocess.run([CLI, "validate", "-"], input=bad, capture_output=True, text=True)
    assert done.returncode == 1 and "stdin" in done.stdout


@pytest.mark.parametrize("content", [None, "", "# only a comment\n", "---\n---\n"])
def test_nothing_to_validate_is_an_error(tmp_path, capsys, content) -> None:
    target = tmp_path / "empty"
    if content is None:
        target.mkdir()  # an empty folder
    else:
        target = tmp_path / "empty.yaml"
        target.write_text(content)
    assert main(["validate", str(target)]) == 2
    assert "no Kubernetes objects to validate" in capsys.readouterr().err


def test_a_yaml_error_names_file_line_and_column(tmp_path, capsys) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: [x\n")
    assert main(["validate", str(bad)]) == 2
    err = capsys.readouterr().err
    assert f"{bad}:4:1: not valid YAML" in err, err


def test_a_missing_crds_folder_is_an_error(tmp_path, capsys) -> None:
    assert main(["validate", str(REPO / "dist"), "--crds", str(tmp_path / "nope")]) == 2
    assert f"--crds {tmp_path / 'nope'}: no such directory" in capsys.readouterr().err
