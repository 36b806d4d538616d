"""node_runtime.py: cdk8s needs node; without it, one clear error instead of jsii's traceback."""

from __future__ import annotations

import errno
import sys

import pytest

from verl_grpo.node_runtime import require_node


def test_a_missing_node_is_a_file_not_found_naming_it_and_the_fix(monkeypatch: pytest.MonkeyPatch) -> None:
    """jsii runs $JSII_NODE or `node`: the error names that program and how to install Node.js."""
    monkeypatch.setenv("JSII_NODE", "no-such-node-binary-for-verl-grpo")
    with pytest.raises(FileNotFoundError) as missing:
        require_node()
    assert missing.value.errno == errno.ENOENT
    assert "no-such-node-binary-for-verl-grpo (Node.js 20, which cdk8s runs on) is not on PATH" in str(
        missing.value
    )
    assert "README.md" in str(missing.value)


def test_without_jsii_node_the_program_looked_for_is_node(monkeypatch: pytest.MonkeyPatch) -> None:
    """The default is `node` on PATH: an empty PATH makes it missing."""
    monkeypatch.delenv("JSII_NODE", raising=False)
    monkeypatch.setenv("PATH", "")
    with pytest.raises(FileNotFoundError, match=r"^\[Errno 2\] node \(Node.js 20"):
        require_node()


def test_an_executable_named_by_jsii_node_is_accepted(monkeypatch: pytest.MonkeyPatch) -> None:
    """Any existing executable passes (the check looks for the program; it runs nothing)."""
    monkeypatch.setenv("JSII_NODE", sys.executable)
    assert require_node() is None
