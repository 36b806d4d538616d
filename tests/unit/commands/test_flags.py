"""commands/flags.py: the flags several verbs share and what they choose: which shipped profiles,
the --set family in Helm's order, one --profile only."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from verl_grpo.cli import build_parser
from verl_grpo.commands import flags
from verl_grpo.problems import Problems


def parsed(*argv: str) -> argparse.Namespace:
    return build_parser().parse_args(list(argv))


def test_no_names_means_every_shipped_profile_and_an_unknown_one_is_refused_with_a_hint() -> None:
    """Every unknown name is refused (with a close match when there is one); known names keep their order."""
    names = [p.name for p in flags.profiles([])]
    assert len(names) == 10 and {"b200-standard", "h200-autopilot-raycluster", "a4x-standard"} <= set(names)
    assert [p.name for p in flags.profiles(["h200-standard", "b200-standard"])] == [
        "h200-standard",
        "b200-standard",
    ]
    with pytest.raises(Problems) as e:
        flags.profiles(["h200-standrd", "b200-standard", "tpu"])
    lines = [p.line() for p in e.value.problems]
    assert len(lines) == 2  # each unknown name, the known one not
    assert lines[0].startswith(
        "error: --profile: 'h200-standrd' is not a shipped profile (did you mean 'h200-standard'?)"
    )
    assert lines[1].startswith("error: --profile: 'tpu' is not a shipped profile; allowed: a4x-standard, ")


def test_set_expressions_keep_their_flag_and_go_in_helms_flag_order() -> None:
    """Helm applies every --set before every --set-string, whatever the order they were typed in."""
    args = parsed("plan", "--set-string", "a=1", "--set", "b=2", "--set-json", "c=[3]", "--set", "d=4")
    assert flags.sets(args) == ("b=2", "d=4", "--set-string\0a=1", "--set-json\0c=[3]")


@pytest.mark.parametrize(
    "values, profile",
    [
        ("", "b200-standard"),
        ("gpu: {type: h200}\n", "h200-standard"),
        (
            "gpu: {type: h200}\ncluster: {mode: autopilot}\nrun: {kind: RayCluster}\n",
            "h200-autopilot-raycluster",
        ),
    ],
)
def test_one_profile_is_the_one_the_values_agree_with(values: str, profile: str, tmp_path: Path) -> None:
    """No --profile: the first profile the values agree with; --profile wins over the values."""
    path = tmp_path / "values.yaml"
    path.write_text(values)
    assert flags.one_profile(parsed("plan", "-f", str(path))).name == profile
    assert (
        flags.one_profile(parsed("plan", "-f", str(path), "--profile", "a4x-standard")).name == "a4x-standard"
    )


def test_profiles_matching_the_values_are_all_of_them_when_none_matches() -> None:
    """Values that agree with no profile leave every profile to report their error."""
    assert flags.matching_profiles(parsed("check", "--set", "gpu.type=a4x")) == [
        "a4x-standard",
        "a4x-standard-raycluster",
    ]
    every = [p.name for p in flags.profiles([])]
    assert flags.matching_profiles(parsed("check", "--set", "gpu.type=a100")) == every  # each gets the error


def test_profile_once_allows_the_same_name_twice_but_not_two_names(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Once: a repeated identical value is harmless, two different ones a usage error."""
    assert (
        parsed("plan", "--profile", "h200-standard", "--profile", "h200-standard").profile == "h200-standard"
    )
    with pytest.raises(SystemExit) as e:
        parsed("plan", "--profile", "h200-standard", "--profile", "b200-standard")
    assert e.value.code == 2
    assert "--profile given twice (h200-standard, b200-standard): give one" in capsys.readouterr().err


def test_release_and_namespace_reach_the_spec() -> None:
    """--release-name and -n reach the spec; the values' problems name the profile."""
    args = parsed("plan", "--release-name", "team", "-n", "ml", "--set", "gpu.type=h200")
    spec = flags.spec(args, flags.one_profile(args))
    assert (spec.release.name, spec.release.namespace, spec.values.gpu.type) == ("team", "ml", "h200")
    bad = parsed("plan", "--set", "training.rolloutN=zero")
    with pytest.raises(Problems) as e:
        flags.spec(bad, flags.one_profile(parsed("plan")))
    assert all(p.source == "b200-standard" for p in e.value.problems)  # problems name the profile
