"""yaml_io.py: YAML in and out, block style for multi-line strings, a limited loader for input."""

from __future__ import annotations

import sys

import pytest
import yaml

from verl_grpo.yaml_io import TooLarge, dump, dump_all, load, load_all, load_all_limited


def test_multi_line_strings_are_written_as_blocks_and_read_back_the_same() -> None:
    """Scripts in ConfigMaps stay readable (`|`), and the round trip is exact."""
    doc = {"script": "set -e\necho hi\n", "one": "line", "n": 3}
    text = dump(doc)
    assert "script: |\n  set -e\n  echo hi\n" in text
    assert load(text) == doc


def test_keys_keep_their_order_long_lines_stay_whole_and_unicode_stays_unicode() -> None:
    """Manifests read as written: no sorting, no folding at 80 columns, no \\u escapes."""
    doc = {"z": "é" * 3, "a": "x" * 200}
    text = dump(doc)
    assert text.splitlines() == ["z: ééé", "a: " + "x" * 200]


def test_several_documents_round_trip_and_empty_ones_are_dropped() -> None:
    docs = [{"kind": "A"}, {"kind": "B"}]
    assert load_all(dump_all(docs)) == docs
    assert load_all("---\n---\nkind: A\n---\n") == [{"kind": "A"}]


def test_the_limited_loader_reads_ordinary_input_like_load_all() -> None:
    text = "a: 1\n---\n---\nb: [1, 2]\n"
    assert load_all_limited(text) == load_all(text) == [{"a": 1}, {"b": [1, 2]}]


def test_an_alias_bomb_is_refused_before_it_is_expanded() -> None:
    """Each level repeats the one before ten times: 10^6 values from a few lines."""
    lines = ["a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
    for i in range(1, 6):
        lines.append(f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 10)}]")
    with pytest.raises(TooLarge, match="more than 200000 values once aliases are expanded"):
        load_all_limited("\n".join(lines))
    with pytest.raises(TooLarge, match="more than 5 values"):
        load_all_limited("[1, 2, 3, 4, 5, 6]", max_nodes=5)


def test_absurd_nesting_is_refused_as_too_large() -> None:
    """With the pure-Python loader (the values files' loader is one), deep nesting exhausts the
    recursion limit: it is reported as TooLarge, not as a RecursionError."""
    depth = sys.getrecursionlimit()  # deeper than the stack allows, whatever raised the limit
    with pytest.raises(TooLarge, match="nested too deeply"):
        load_all_limited("[" * depth + "]" * depth, loader=yaml.SafeLoader)
