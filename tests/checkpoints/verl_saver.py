"""Runs in verl's venv (tests/oracle): verl's own FSDPCheckpointManager saves a checkpoint of a tiny
model from WORLD processes (gloo, on the CPU) into ROOT/global_step_STEP/actor, then the driver's
part as verl's trainer writes it (trainer/ppo/ray_trainer.py _save_checkpoint: data.pt, then the
tracker last).

    python verl_saver.py ROOT WORLD STEP
"""

from __future__ import annotations

import os
import socket
import sys
import warnings

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
from omegaconf import OmegaConf
from torch.distributed.fsdp import FullyShardedDataParallel as FSDP
from transformers import Qwen2Config, Qwen2ForCausalLM
from verl.utils.checkpoint.fsdp_checkpoint_manager import FSDPCheckpointManager

TRACKER = "latest_checkpointed_iteration.txt"


def save(rank: int, world: int, root: str, step: int, port: int) -> None:
    os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port))
    dist.init_process_group("gloo", rank=rank, world_size=world)
    torch.manual_seed(0)
    config = Qwen2Config(
        vocab_size=64,
        hidden_size=16,
        intermediate_size=32,
        num_hidden_layers=1,
        num_attention_heads=2,
        num_key_value_heads=1,
    )
    model = FSDP(Qwen2ForCausalLM(config), device_id=torch.device("cpu"), use_orig_params=True)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-6)
    model(input_ids=torch.tensor([[1, 2, 3]])).logits.sum().backward()
    optimizer.step()  # an optimizer with state, as after a training step
    contents = ["model", "optimizer", "extra"]
    checkpoint = OmegaConf.create({"save_contents": contents, "load_contents": contents, "async_save": False})
    manager = FSDPCheckpointManager(model, optimizer, checkpoint_config=checkpoint)
    step_folder = os.path.join(root, f"global_step_{step}")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        manager.save_checkpoint(os.path.join(step_folder, "actor"), global_step=step)
    dist.barrier()
    if rank == 0:
        torch.save({"dataloader": step}, os.path.join(step_folder, "data.pt"))
        with open(os.path.join(root, TRACKER), "w") as f:
            f.write(str(step))
    dist.destroy_process_group()


def main() -> None:
    root, world, step = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    mp.spawn(save, args=(world, root, step, port), nprocs=world)
    print(sorted(os.listdir(os.path.join(root, f"global_step_{step}", "actor"))))


if __name__ == "__main__":
    main()
