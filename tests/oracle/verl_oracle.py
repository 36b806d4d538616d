"""Runs inside a venv with verl installed (not the project's): verl's own verdict on configs.

stdin: JSON list of override lists. stdout: JSON list of {"ok": bool, "error": str}.
Composition is Hydra's (verl's config dir, struct mode); validation is
verl.utils.config.validate_config with the reference policy and critic flags verl's trainer uses.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import sys
import warnings

import verl
from hydra import compose, initialize_config_dir
from verl.trainer.ppo.utils import need_critic
from verl.utils.config import validate_config


def verdict(overrides: list[str]) -> dict:
    try:
        with contextlib.redirect_stdout(io.StringIO()), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            cfg = compose("ppo_trainer", overrides=overrides)
            actor = cfg.actor_rollout_ref.actor
            use_ref = bool(cfg.algorithm.use_kl_in_reward or actor.use_kl_loss)
            validate_config(cfg, use_reference_policy=use_ref, use_critic=need_critic(cfg))
    except Exception as e:  # noqa: BLE001 - any failure is verl refusing the config
        return {"ok": False, "error": f"{type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}"}
    return {"ok": True, "error": ""}


def main() -> None:
    configs = json.load(sys.stdin)
    config_dir = os.path.join(os.path.dirname(verl.__file__), "trainer", "config")
    with initialize_config_dir(config_dir=config_dir, version_base=None):
        results = [verdict(o) for o in configs]
    json.dump({"version": verl.__version__, "results": results}, sys.stdout)


if __name__ == "__main__":
    main()
