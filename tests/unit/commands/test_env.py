"""commands/env.py: `verl-grpo env`, the shell variables scripts/ source, from the same values as
the manifests: KEY=VALUE lines a shell reads back as they were meant."""

from __future__ import annotations

import ipaddress
import re
import shlex

import pytest

from verl_grpo.cli import main

from ...conftest import DIST_VALUES


def variables(text: str) -> dict[str, str]:
    """What `source` of the output sets (every line one assignment, quoted for the shell)."""
    out = {}
    for line in text.splitlines():
        (word,) = shlex.split(line)
        key, _, value = word.partition("=")
        assert re.fullmatch(r"[A-Z_][A-Z0-9_]*", key), line
        out[key] = value
    return out


def test_the_variables_come_from_the_profile_and_the_values(capsys: pytest.CaptureFixture[str]) -> None:
    """Every line is one shell assignment; the profile, -f and --set all show in them."""
    argv = ["env", "--profile", "h200-standard", "-f", str(DIST_VALUES), "--set", "storage.bucket=my-bkt"]
    assert main([*argv, "--set", "workerGroups.gpu-group.replicas=4"]) == 0
    env = variables(capsys.readouterr().out)
    assert (env["PROFILE"], env["GPU_TYPE"], env["BUCKET"]) == ("h200-standard", "h200", "my-bkt")
    assert env["GPUS_PER_NODE"] == "8" and env["CHECKPOINT_DIR"] == "checkpoints"
    assert "--total-max-nodes=4" in env["GPU_POOL_FLAGS"].split()  # one word of a quoted value


def test_network_base_is_cut_into_nine_24s(capsys: pytest.CaptureFixture[str]) -> None:
    """The gVNIC subnet is the first /24 of --network-base, the 8 RDMA subnets the next."""
    assert main(["env", "-f", str(DIST_VALUES), "--network-base", "10.7.0.0/16"]) == 0
    env = variables(capsys.readouterr().out)
    subnets = [str(s) for s in ipaddress.ip_network("10.7.0.0/16").subnets(new_prefix=24)][:9]
    assert env["NETWORK_BASE"] == "10.7.0.0/16" and env["GVNIC_RANGE"] == subnets[0]
    assert env["RDMA_RANGES"].split() == subnets[1:]


@pytest.mark.parametrize(
    "base, message",
    [
        ("10.0.0.0/30", "error: --network-base 10.0.0.0/30: too small for 9 /24 subnets"),
        ("banana", "error: 'banana' does not appear to be an IPv4 or IPv6 network"),
    ],
)
def test_a_bad_network_base_is_one_line_and_prints_no_variables(
    base: str, message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """A range too small or not a range: one error line, no half output on stdout."""
    assert main(["env", "-f", str(DIST_VALUES), "--network-base", base]) == 1
    assert capsys.readouterr() == ("", message + "\n")


def test_profile_given_twice_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    """Two different --profile values: exit 2, not the last one silently."""
    with pytest.raises(SystemExit) as e:
        main(["env", "--profile", "b200-standard", "--profile", "h200-standard"])
    assert e.value.code == 2
    assert capsys.readouterr().err.endswith(
        "verl-grpo env: error: --profile given twice (b200-standard, h200-standard): give one\n"
    )


def test_each_problem_of_the_values_is_its_own_line_once_prefixed(capsys: pytest.CaptureFixture[str]) -> None:
    """The values' problems as every verb prints them: one `error:` line each, not one line that
    repeats `error:` and joins them (the scripts print these lines as they are)."""
    assert main(["env", "--profile", "b200-standard", "--set", "workerGroups.gpu-group.replicas=3"]) == 1
    lines = capsys.readouterr().err.splitlines()
    assert len(lines) >= 2 and all(line.startswith("error: b200-standard: ") for line in lines), lines
    assert not any("error: error:" in line for line in lines)
    assert any("[bucket-named]" in line for line in lines) and any("not divisible" in line for line in lines)
