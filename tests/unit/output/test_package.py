"""output/package.py: a `helm package`-style archive of the chart whose bytes depend on the files
alone (fixed times, sorted entries), so a regenerated dist/ archive only changes with the chart."""

from __future__ import annotations

import io
import shutil
import tarfile
from pathlib import Path

from verl_grpo.output.package import chart_archive

from ...conftest import REPO, tree


def chart_copy(tmp_path: Path) -> dict[str, str]:
    """The committed chart, copied into tmp_path and read back as the generator passes it."""
    copy = tmp_path / "chart"
    shutil.copytree(REPO / "charts" / "verl-grpo", copy)
    return {rel: data.decode() for rel, data in tree(copy).items()}


def test_the_archive_unpacks_to_the_chart_under_its_name(tmp_path: Path) -> None:
    """Helm loads a chart archive whose every entry sits under one folder named after the chart."""
    files = chart_copy(tmp_path)
    assert "Chart.yaml" in files
    archive = tmp_path / "verl-grpo.tgz"
    archive.write_bytes(chart_archive("verl-grpo", files))
    with tarfile.open(archive, "r:gz") as tar:
        members = tar.getmembers()
        assert all(m.isfile() and m.name.startswith("verl-grpo/") for m in members)
        tar.extractall(tmp_path / "out", filter="data")
    assert {k: v.decode() for k, v in tree(tmp_path / "out" / "verl-grpo").items()} == files


def test_the_same_files_give_the_same_bytes_in_any_order(tmp_path: Path) -> None:
    """No time nor owner enters the archive: the gzip header's MTIME (RFC 1952, bytes 4-7) is 0 and
    so is every entry's, entries sorted; the order the files are given in does not matter."""
    files = chart_copy(tmp_path)
    first = chart_archive("verl-grpo", files)
    assert chart_archive("verl-grpo", dict(reversed(list(files.items())))) == first
    assert first[:2] == b"\x1f\x8b" and first[4:8] == b"\0\0\0\0"
    with tarfile.open(fileobj=io.BytesIO(first), mode="r:gz") as tar:
        members = tar.getmembers()
    assert [m.name for m in members] == sorted(m.name for m in members)
    assert {(m.mtime, m.mode, m.uid, m.gid) for m in members} == {(0, 0o644, 0, 0)}


def test_a_changed_file_changes_the_archive() -> None:
    """A file's content and the chart's name reach the bytes."""
    files = {"Chart.yaml": "name: c\nversion: 0.1.0\n", "values.yaml": "a: 1\n"}
    assert chart_archive("c", files) != chart_archive("c", {**files, "values.yaml": "a: 2\n"})
    assert chart_archive("c", files) != chart_archive("d", files)


def test_sizes_count_bytes_so_non_ascii_text_survives() -> None:
    """An entry's size is its UTF-8 length: text beyond ASCII is neither cut nor padded."""
    text = "# Größe — 大小\n"
    archive = chart_archive("c", {"README.md": text})
    with tarfile.open(fileobj=io.BytesIO(archive), mode="r:gz") as tar:
        member = tar.getmember("c/README.md")
        assert member.size == len(text.encode())
        assert tar.extractfile(member).read().decode() == text  # type: ignore[union-attr]
