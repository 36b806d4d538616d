"""Writes checkpoints the way verl's FSDP trainer does, for the pre-flight's tests (verl venv: torch).

Order and names from verl v0.6.1 (docs/research/issue-24-checkpoints-and-logs.md, section 1):
every rank's model/optim/extra_state_world_size_W_rank_R.pt, rank 0's fsdp_config.json, the
driver's data.pt, then the tracker latest_checkpointed_iteration.txt, last.

    python writer.py ROOT --steps 1,2,3 [--slow STEP] [--tracker-first STEP] [--drop-before-save]

--slow STEP writes each of that step's files in two halves with a pause between, printing
"half PATH" after the first: a test kills the writer there (a save cut short) or checks while it
sleeps (a slow writer). --tracker-first STEP commits that step before its files exist, as 0.6.1
does with async saves. --drop-before-save deletes the previous step's actor/ before saving, as
0.6.1 does with trainer.max_actor_ckpt_to_keep=1.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import shutil
import sys
import time

import torch

WORLD = 4
TRACKER = "latest_checkpointed_iteration.txt"


def put(path: str, data: bytes, slow: bool) -> None:
    with open(path, "wb") as f:
        if slow:
            f.write(data[: len(data) // 2])
            f.flush()
            print(f"half {path}", flush=True)
            time.sleep(3)
        f.write(data)
    print(f"wrote {path}", flush=True)


def saved(obj: object) -> bytes:
    buffer = io.BytesIO()
    torch.save(obj, buffer)
    return buffer.getvalue()


def commit(root: str, step: int) -> None:
    with open(os.path.join(root, TRACKER), "w") as f:  # verl: a plain open("w"), no rename
        f.write(str(step))
    print(f"tracker {step}", flush=True)


def save(root: str, step: int, slow: bool, tracker_first: bool) -> None:
    actor = os.path.join(root, f"global_step_{step}", "actor")
    os.makedirs(actor, exist_ok=True)
    if tracker_first:
        commit(root, step)
    for rank in range(WORLD):
        weights = {"w": torch.full((64, 64), float(step * 10 + rank))}
        put(os.path.join(actor, f"model_world_size_{WORLD}_rank_{rank}.pt"), saved(weights), slow)
        put(
            os.path.join(actor, f"optim_world_size_{WORLD}_rank_{rank}.pt"),
            saved({"m": weights["w"] * 0}),
            slow,
        )
        extra = {"lr_scheduler": {"step": step}, "rng": {"cpu": torch.get_rng_state()}}
        put(os.path.join(actor, f"extra_state_world_size_{WORLD}_rank_{rank}.pt"), saved(extra), slow)
    with open(os.path.join(actor, "fsdp_config.json"), "w") as f:
        json.dump({"FSDP_version": 1, "world_size": WORLD}, f)
    put(os.path.join(root, f"global_step_{step}", "data.pt"), saved({"step": step}), False)
    if not tracker_first:
        commit(root, step)


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("root")
    parser.add_argument("--steps", required=True)
    parser.add_argument("--slow", type=int)
    parser.add_argument("--tracker-first", type=int)
    parser.add_argument("--drop-before-save", action="store_true")
    args = parser.parse_args()
    previous = None
    for step in map(int, args.steps.split(",")):
        if args.drop_before_save and previous is not None:
            shutil.rmtree(os.path.join(args.root, f"global_step_{previous}", "actor"))
        save(args.root, step, step == args.slow, step == args.tracker_first)
        previous = step
    return 0


if __name__ == "__main__":
    sys.exit(main())
