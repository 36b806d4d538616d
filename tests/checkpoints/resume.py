"""What verl resumes from, by verl's own code, and whether every rank can load it (verl venv)."""

from __future__ import annotations

import json
import os
import sys

import torch
from verl.utils.checkpoint.checkpoint_manager import find_latest_ckpt_path

root = sys.argv[1]
path = find_latest_ckpt_path(root)
loaded = []
if path is not None:
    actor = os.path.join(path, "actor")
    world = json.load(open(os.path.join(actor, "fsdp_config.json")))["world_size"]
    for rank in range(world):  # what each rank's load_checkpoint opens
        for kind in ("model", "optim", "extra_state"):
            torch.load(os.path.join(actor, f"{kind}_world_size_{world}_rank_{rank}.pt"), weights_only=False)
            loaded.append(f"{kind}:{rank}")
print(json.dumps({"path": path, "loaded": len(loaded)}))
