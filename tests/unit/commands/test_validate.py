"""commands/validate.py: `verl-grpo validate`, manifests against Kubernetes' schema: findings on
stdout, a count on stderr, exit 1 for errors and 2 for input it cannot read."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from verl_grpo.cli import main

CONFIG_MAP = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {name}\ndata:\n  a: {value}\n"


@pytest.fixture(autouse=True)
def empty_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Findings are cached by their inputs: a cache of our own, so the validator really runs."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))


def test_a_folder_of_valid_manifests_passes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Every document of every file in a folder is validated; nothing on stdout when all pass."""
    folder = tmp_path / "m"
    folder.mkdir()
    (folder / "one.yaml").write_text(CONFIG_MAP.format(name="one", value='"1"'))
    (folder / "two.yaml").write_text(
        CONFIG_MAP.format(name="two", value='"2"') + "---\n" + CONFIG_MAP.format(name="three", value="null")
    )
    assert main(["validate", str(folder)]) == 0
    assert capsys.readouterr() == ("", "3 objects, 0 errors, 0 warnings\n")


def test_a_schema_error_is_a_finding_in_text_and_in_json(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A schema error: a finding line on stdout, the count on stderr, exit 1; the same in JSON."""
    path = tmp_path / "cm.yaml"
    path.write_text(CONFIG_MAP.format(name="x", value="1"))  # data values are strings
    assert main(["validate", str(path)]) == 1
    out, err = capsys.readouterr()
    assert out == f"error: {path}: ConfigMap/x data.a: 1 is not of type 'string', 'null' [k8s-schema]\n"
    assert err == "1 objects, 1 errors, 0 warnings\n"
    assert main(["validate", str(path), "-o", "json"]) == 1
    report = json.loads(capsys.readouterr().out)
    assert (report["objects"], report["errors"]) == (1, 1)
    assert report["findings"][0]["object"] == "ConfigMap/x" and report["findings"][0]["key"] == "data.a"


@pytest.mark.parametrize(
    "text, extra, message",
    [
        (None, [], "{path}: no such file or directory"),
        ("a: [\n", [], "{path}:2:1: not valid YAML"),
        (
            "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n",
            ["--kube-version", "banana"],
            "--kube-version 'banana' is not supported; allowed: ",
        ),
    ],
    ids=["missing", "not-yaml", "unknown-kubernetes"],
)
def test_input_it_cannot_read_is_one_line_and_exit_2(
    text: str | None, extra: list[str], message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A missing file, broken YAML or an unknown Kubernetes version: exit 2, one line."""
    path = tmp_path / "in.yaml"
    if text is not None:
        path.write_text(text)
    assert main(["validate", str(path), *extra]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1
    assert err.startswith("verl-grpo validate: " + message.format(path=path))


def test_it_needs_a_path(capsys: pytest.CaptureFixture[str]) -> None:
    """validate without a path is a usage error."""
    with pytest.raises(SystemExit) as e:
        main(["validate"])
    assert e.value.code == 2 and "the following arguments are required: PATH" in capsys.readouterr().err
