"""Run with a venv that has verl installed: writes the composed default config's leaves.

    .venv-verl-0.9.1/bin/python tools/extract_verl_facts.py cdk8s/verl_grpo/data/verl

The checker uses it for verl's defaults and to tell an unknown or renamed override key.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import verl
from hydra import compose, initialize_config_dir
from omegaconf import OmegaConf


def leaves(node, prefix=""):
    if isinstance(node, dict):
        out = {}
        for key, value in node.items():
            path = f"{prefix}{key}"
            if isinstance(value, dict) and value:
                out.update(leaves(value, f"{path}."))
            else:
                out[path] = value
        return out
    return {prefix.rstrip("."): node}


def main(out_dir: Path) -> None:
    config_dir = os.path.join(os.path.dirname(verl.__file__), "trainer", "config")
    with initialize_config_dir(config_dir=config_dir, version_base=None):
        cfg = compose("ppo_trainer")
    data = OmegaConf.to_container(cfg, resolve=False)
    facts = {"version": verl.__version__, "defaults": leaves(data)}
    out_dir.mkdir(parents=True, exist_ok=True)
    path = out_dir / f"{verl.__version__}.json"
    path.write_text(json.dumps(facts, indent=1, sort_keys=True, default=str) + "\n")
    print(f"wrote {path} ({len(facts['defaults'])} keys)", file=sys.stderr)


if __name__ == "__main__":
    main(Path(sys.argv[1]))
