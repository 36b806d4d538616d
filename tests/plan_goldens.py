"""`verl-grpo plan` for both GPU overlays, as reviewed goldens (`make goldens` rewrites them)."""

from __future__ import annotations

import json

from .conftest import REPO
from .scripts_harness import profile_values

GOLDENS = REPO / "tests" / "goldens" / "plan"
PROFILES = ["b200-standard", "h200-standard", "a4x-standard"]
PRICE = "10"


def plan_args(profile: str, output: str) -> list[str]:
    return ["plan", "--profile", profile, *profile_values(profile), "--gpu-hour-price", PRICE, "-o", output]


def render(profile: str, output: str, capsys) -> str:
    from verl_grpo.cli import main

    assert main(plan_args(profile, output)) == 0
    return capsys.readouterr().out


def update_goldens() -> None:
    import contextlib
    import io

    from verl_grpo.cli import main

    GOLDENS.mkdir(parents=True, exist_ok=True)
    for profile in PROFILES:
        for output, suffix in (("text", "txt"), ("json", "json")):
            buf = io.StringIO()
            with contextlib.redirect_stdout(buf):
                assert main(plan_args(profile, output)) == 0
            (GOLDENS / f"{profile}.{suffix}").write_text(buf.getvalue())
    json.loads((GOLDENS / f"{PROFILES[0]}.json").read_text())


if __name__ == "__main__":
    update_goldens()
