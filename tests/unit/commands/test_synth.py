"""commands/synth.py: `verl-grpo synth`, manifests for shipped profiles or your values: DIR/<profile>/
or one profile on stdout; a bad -o or bad values refused before anything is written.
Every run here writes under tmp_path (-o), never into the repository."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from verl_grpo.cli import main
from verl_grpo.commands.synth import unwritable_folder

from ...conftest import DIST_VALUES


def test_a_profile_goes_to_its_folder_with_a_kustomization_of_every_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """-o DIR: DIR/<profile>/, its kustomization listing every object file; names take the release."""
    out = tmp_path / "new" / "out"  # made as needed
    argv = ["synth", "--profile", "h200-standard-raycluster", "-f", str(DIST_VALUES), "-o", str(out)]
    assert main([*argv, "--release-name", "team", "-n", "ml"]) == 0
    folder = out / "h200-standard-raycluster"
    assert [p.name for p in out.iterdir()] == [folder.name]
    resources = yaml.safe_load((folder / "kustomization.yaml").read_text())["resources"]
    files = sorted(
        p.name for p in folder.glob("*.yaml") if p.name != "kustomization.yaml"
    )  # submit/: no objects
    assert sorted(resources) == files
    assert capsys.readouterr().err.splitlines()[-1] == f"wrote {folder}/ ({len(files)} objects)"
    (cluster,) = [d for f in files if (d := yaml.safe_load((folder / f).read_text()))["kind"] == "RayCluster"]
    assert cluster["metadata"]["name"] == "team-h200" and cluster["metadata"]["namespace"] == "ml"


def test_dash_prints_one_profile_as_yaml_documents(capsys: pytest.CaptureFixture[str]) -> None:
    """-o -: the objects as YAML documents on stdout, no kustomization."""
    assert main(["synth", "--profile", "b200-standard", "-f", str(DIST_VALUES), "-o", "-"]) == 0
    docs = list(yaml.safe_load_all(capsys.readouterr().out))
    assert [d["kind"] for d in docs].count("RayJob") == 1 and "Kustomization" not in {d["kind"] for d in docs}
    assert all(d["metadata"]["name"] for d in docs)


@pytest.mark.parametrize(
    "argv, message",
    [
        (
            ["--profile", "b200-standard", "--profile", "h200-standard", "-o", "-"],
            "verl-grpo synth: -o - needs exactly one --profile",
        ),
        (
            ["--profile", "b200-standard", "-o", "{tmp}/a-file"],
            "verl-grpo synth: -o {tmp}/a-file: is a file; ",
        ),
        (["--profile", "b200-standard", "-o", "{tmp}/a-file/sub"], "verl-grpo synth: -o {tmp}/a-file/sub: "),
    ],
    ids=["dash-with-two-profiles", "a-file", "under-a-file"],
)
def test_a_bad_output_is_a_usage_error_found_before_rendering(
    argv: list[str], message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """-o - with several profiles, or a file where a folder goes: exit 2, one line, nothing written."""
    (tmp_path / "a-file").write_text("mine")
    assert main(["synth", *(a.format(tmp=tmp_path) for a in argv)]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1 and err.startswith(message.format(tmp=tmp_path))
    assert [p.name for p in tmp_path.iterdir()] == ["a-file"] and (tmp_path / "a-file").read_text() == "mine"


def test_why_a_folder_cannot_take_profiles(tmp_path: Path) -> None:
    """unwritable_folder: a file, or a file above the folder, is named; a folder to make is fine."""
    (tmp_path / "f").write_text("")
    assert unwritable_folder(tmp_path / "f").startswith("is a file; -o takes a folder")
    assert unwritable_folder(tmp_path / "f" / "x" / "y") == f"{tmp_path / 'f'} is a file, not a folder"
    assert unwritable_folder(tmp_path / "not" / "yet") is None and unwritable_folder(tmp_path) is None


def test_values_without_a_bucket_are_refused_in_one_line_and_nothing_is_written(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """storage.bucket has no default: refused in one line, and -o is not created."""
    out = tmp_path / "out"
    assert main(["synth", "--profile", "b200-standard", "-o", str(out)]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("error: b200-standard: storage.bucket: not set")
    assert not out.exists()


def test_without_an_output_folder_nothing_is_written(tmp_path, monkeypatch, capsys) -> None:
    """-o is required: the checkout's dist/ is the generator's (placeholder bucket), and a default
    there once overwrote it with the user's values. A usage error, one line, nothing written."""
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SystemExit) as usage:
        main(["synth", "--profile", "h200-standard", "--set", "storage.bucket=my-training-bucket"])
    assert usage.value.code == 2
    assert "the following arguments are required: -o/--output" in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []


def test_a_folder_that_refuses_the_files_is_named_not_our_temp_files(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """What the folder refuses while writing (a full disk; /proc, which takes no files, even from
    root) is named with -o, never as the staging file the failed write was at (issue 43)."""
    import errno

    from verl_grpo.output import atomic

    def refuse(root: Path, trees: object) -> list[str]:
        raise OSError(errno.ENOSPC, "No space left on device", str(root / ".verl-grpo-swap.1a2b.json.9.tmp"))

    monkeypatch.setattr(atomic, "write_trees", refuse)
    out = tmp_path / "out"
    assert main(["synth", "--profile", "b200-standard", "-f", str(DIST_VALUES), "-o", str(out)]) == 1
    err = capsys.readouterr().err
    assert err == f"verl-grpo synth: -o {out}: cannot write there (No space left on device)\n"
