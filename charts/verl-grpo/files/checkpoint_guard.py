"""Resume only from a complete checkpoint: what the pre-flight checks before verl reads the tracker.

How verl marks and finds a checkpoint (verl-project/verl v0.6.1 = d62da4950573, and the 0.9.1 wheel;
docs/research/issue-24-checkpoints-and-logs.md has the line numbers):
- FSDP workers save under `<default_local_dir>/global_step_N/actor/`: every rank writes
  model_world_size_W_rank_R.pt, optim_world_size_W_rank_R.pt and extra_state_world_size_W_rank_R.pt
  (save_contents defaults to model, optimizer, extra: trainer/config/actor/actor.yaml), rank 0 adds
  fsdp_config.json and huggingface/ (utils/checkpoint/fsdp_checkpoint_manager.py save_checkpoint).
- Then the driver writes global_step_N/data.pt (the dataloader) and, last, the tracker
  latest_checkpointed_iteration.txt holding "N" with a plain open("w") (trainer/ppo/ray_trainer.py
  _save_checkpoint). The tracker is the only commit mark; no file says a folder is complete.
- Resume (trainer.resume_mode=auto) reads only the tracker (utils/checkpoint/checkpoint_manager.py
  find_latest_ckpt_path): no tracker or no global_step_N folder trains from scratch silently; an
  empty tracker raises ValueError; a folder with a rank's file missing fails in torch.load.
- Retention (trainer.max_actor_ckpt_to_keep) lives in memory: checkpoints from before a restart are
  never deleted by verl, and 0.6.1 with 1 deletes the previous checkpoint before writing the next.

So the pre-flight checks the tracker's folder file by file (torch.save writes a zip archive: a file
cut short has no end-of-archive record), points the tracker back at the newest complete one when it
is not complete, saying so, and prunes complete checkpoints beyond the retention value.

Standalone (stdlib only): shipped beside preflight.py in the pre-flight ConfigMap.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import zipfile
from dataclasses import dataclass, field

TRACKER = "latest_checkpointed_iteration.txt"
STEP = re.compile(r"^global_step_(\d+)$")
RANK_FILE = re.compile(r"^(model|optim|extra_state)_world_size_(\d+)_rank_(\d+)\.pt$")
KINDS = ("model", "optim", "extra_state")  # verl's default save_contents: model, optimizer, extra
# checkpoint.save_contents (trainer/config/actor/actor.yaml, default ['model', 'optimizer', 'extra'])
# and the rank files each writes (utils/checkpoint/checkpoint_manager.py should_save_model/_optimizer/
# _extra, fsdp_checkpoint_manager.py save_checkpoint; v0.6.1 and 0.9.1); 'hf_model' adds no rank file.
CONTENT_FILES = {"model": "model", "optimizer": "optim", "extra": "extra_state"}
SAVE_CONTENTS = "actor_rollout_ref.actor.checkpoint.save_contents"


def saved_kinds(command: list[str]) -> tuple[str, ...]:
    """The rank files verl writes: the save_contents override among verl's arguments
    (settings_of), else its default."""
    value = settings_of(command).get(SAVE_CONTENTS)
    if value is None:
        return KINDS
    contents = [v.strip().strip("'\"") for v in value.strip().strip("[]").split(",") if v.strip()]
    return tuple(CONTENT_FILES[c] for c in contents if c in CONTENT_FILES)


def _config_world(actor: str) -> int | None:
    """fsdp_config.json's world_size (rank 0 writes it with the shards), or None when unreadable."""
    try:
        with open(os.path.join(actor, "fsdp_config.json"), encoding="utf-8") as f:
            return int(json.load(f)["world_size"])
    except (OSError, ValueError, KeyError, TypeError):
        return None


def missing(folder: str, kinds: tuple[str, ...] = KINDS) -> list[str]:
    """What a checkpoint folder lacks to be loadable by every rank; [] when complete."""
    actor = os.path.join(folder, "actor")
    if not os.path.isdir(actor):
        return ["actor/"]
    names = os.listdir(actor)
    found = {m.groups() for m in map(RANK_FILE.match, names) if m}
    lacks = []
    world = _config_world(actor)
    if world is None:
        lacks.append("actor/fsdp_config.json")
        world = max((int(w) for _, w, _ in found), default=0)
    if not found:
        lacks.append("actor/*_rank_*.pt")
    for kind in kinds:
        for rank in range(world):
            name = f"{kind}_world_size_{world}_rank_{rank}.pt"
            if (kind, str(world), str(rank)) not in found:
                lacks.append(f"actor/{name}")
            elif not _whole(os.path.join(actor, name)):
                lacks.append(f"actor/{name} (cut short)")
    if not os.path.isfile(os.path.join(folder, "data.pt")):
        lacks.append("data.pt")
    return sorted(lacks, key=lambda lack: "(cut short)" not in lack)  # the torn file says most


def _whole(path: str) -> bool:
    """torch.save's zip archive ends with its central directory: a torn write lacks it."""
    try:
        return zipfile.is_zipfile(path)
    except OSError:
        return False


def steps(root: str) -> list[int]:
    try:
        names = os.listdir(root)
    except OSError:
        return []
    return sorted(
        int(m.group(1)) for m in map(STEP.match, names) if m and os.path.isdir(os.path.join(root, m.group(0)))
    )


def folder(root: str, step: int) -> str:
    return os.path.join(root, f"global_step_{step}")


def read_tracker(root: str) -> int | None | str:
    """The step the tracker names, None without a tracker, or the unreadable text."""
    try:
        with open(os.path.join(root, TRACKER), encoding="utf-8") as f:
            text = f.read()
    except FileNotFoundError:
        return None
    try:
        return int(text.strip())
    except ValueError:
        return text


def write_tracker(root: str, step: int) -> None:
    """A whole new tracker or the old one: written aside, then renamed over it."""
    path = os.path.join(root, TRACKER)
    with open(path + ".verl-grpo-tmp", "w", encoding="utf-8") as f:
        f.write(str(step))
    os.replace(path + ".verl-grpo-tmp", path)


@dataclass
class Resume:
    step: int | None  # what verl resumes from; None: from scratch
    notes: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)


def choose(root: str, kinds: tuple[str, ...] = KINDS) -> Resume:
    """Point the tracker at a complete checkpoint (rewriting it when needed) and say what verl does."""
    tracked, found = read_tracker(root), steps(root)
    if tracked is None:
        if found:
            folders = ", ".join(f"global_step_{s}" for s in found)
            why = "trainer.resume_mode=auto reads only the tracker"
            return Resume(None, [f"{root} has {folders} but no {TRACKER}: verl starts from scratch ({why})"])
        return Resume(None, ["no checkpoint yet: verl starts from step 0"])
    if isinstance(tracked, int) and tracked in found and not (lacks := missing(folder(root, tracked), kinds)):
        return Resume(tracked, [f"resuming from global_step_{tracked} (complete)"])
    if isinstance(tracked, str):
        why = f"{TRACKER} holds {tracked[:40]!r}, not a step (verl would stop with ValueError)"
        below = found
    elif tracked not in found:
        why = f"{TRACKER} names global_step_{tracked}, which does not exist (verl would start from scratch)"
        below = [s for s in found if s < tracked]
    else:
        shown = ", ".join(lacks[:4]) + (f" and {len(lacks) - 4} more" if len(lacks) > 4 else "")
        why = f"global_step_{tracked} is incomplete (no {shown})"
        below = [s for s in found if s < tracked]
    complete = [s for s in below if not missing(folder(root, s), kinds)]
    if not complete:
        return Resume(
            None,
            problems=[
                f"checkpoints: {why}, and no earlier checkpoint under {root} is complete; remove "
                f"{os.path.join(root, TRACKER)} to start from scratch"
            ],
        )
    step = complete[-1]
    write_tracker(root, step)
    return Resume(
        step, [f"{why}: resuming from global_step_{step}, the newest complete one (tracker rewritten)"]
    )


def world_size(path: str) -> int | None:
    """The number of ranks that saved a checkpoint folder: fsdp_config.json's world_size, else the
    rank files' (missing() has already found the folder complete)."""
    actor = os.path.join(path, "actor")
    if (world := _config_world(actor)) is not None:
        return world
    try:
        sizes = {int(m.group(2)) for m in map(RANK_FILE.match, os.listdir(actor)) if m}
    except OSError:
        return None
    return max(sizes) if sizes else None


def world_problems(root: str, step: int | None, world: int) -> list[str]:
    """verl loads model_world_size_<its world>_rank_<its rank>.pt
    (utils/checkpoint/fsdp_checkpoint_manager.py load_checkpoint, v0.6.1 line 135, 0.9.1 line 213),
    after the actor, the reference and vLLM are loaded, and stops with FileNotFoundError (verl issue
    #2265) when the run's GPU count differs from the one that saved: refuse it before."""
    if step is None or world <= 0:
        return []
    saved = world_size(folder(root, step))
    if saved is None or saved == world:
        return []
    return [
        f"checkpoints: global_step_{step} under {root} was saved by {saved} GPUs and this run has {world}: "
        f"verl resumes only on {saved} (it loads model_world_size_{world}_rank_*.pt, which does not exist). "
        f"Set workerGroups back to {saved} GPUs, or start a new run (run.name) from scratch or from the "
        "checkpoint's merged model (python -m verl.model_merger merge --backend fsdp --local_dir "
        f"{folder(root, step)}/actor --target_dir DIR, then storage.modelDir)"
    ]


def prune(root: str, resume: int | None, keep: int, kinds: tuple[str, ...] = KINDS) -> list[str]:
    """Delete what verl's in-memory retention forgets after a restart: complete checkpoints below
    the resume step beyond the `keep` newest, and incomplete ones below it. Nothing above it (an
    uncommitted save verl will write again) and never the resume step itself. `keep` 0: no
    pruning (the pre-flight's --keep default, for a run by hand)."""
    if resume is None or keep <= 0:
        return []
    older = [s for s in steps(root) if s < resume]
    complete = [s for s in older if not missing(folder(root, s), kinds)]
    kept = set(complete[-(keep - 1) :]) if keep > 1 else set()
    notes = []
    for s in older:
        if s in kept:
            continue
        why = "beyond training.checkpointsToKeep" if s in complete else "incomplete"
        shutil.rmtree(folder(root, s), ignore_errors=True)
        notes.append(f"deleted global_step_{s} ({why})")
    return notes


# The run's training settings, kept beside its checkpoints: verl resumes the optimizer and the data
# loader of the newest checkpoint whatever the new settings are (trainer/ppo/ray_trainer.py
# _load_checkpoint@v0.6.1 loads actor and dataloader state; nothing compares configs). Changing
# these keys under the same run continues with what the checkpoint learned under the old ones (or
# fails later): refused. The safe ones change only how long, how often or how memory is used:
# warned.
RUN_SETTINGS = "verl-grpo-settings.json"
SAFE_KEYS = frozenset(
    {
        "trainer.total_epochs",
        "trainer.total_training_steps",
        "trainer.save_freq",
        "trainer.test_freq",
        "trainer.logger",
        "trainer.max_actor_ckpt_to_keep",
        "trainer.val_before_train",
        "data.val_files",
        "actor_rollout_ref.model.enable_gradient_checkpointing",
        "actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu",
        "actor_rollout_ref.rollout.gpu_memory_utilization",
        "actor_rollout_ref.rollout.tensor_model_parallel_size",
        "actor_rollout_ref.rollout.log_prob_micro_batch_size_per_gpu",
        "actor_rollout_ref.ref.log_prob_micro_batch_size_per_gpu",
        "actor_rollout_ref.ref.fsdp_config.param_offload",
    }
)


def settings_of(command: list[str]) -> dict[str, str]:
    """verl's overrides among its arguments (`key=value`, Hydra's '+'/'++' dropped; the last wins)."""
    found = {}
    for word in command:
        key, sep, value = word.partition("=")
        if sep and not key.startswith("-"):
            found[key.lstrip("+")] = value
    return found


def settings_problems(root: str, resuming: bool, settings: dict[str, str]) -> tuple[list[str], list[str]]:
    """(problems, notes) for a run that resumes under other settings than the ones its checkpoints
    were trained with (RUN_SETTINGS); the settings are written when the run may go on."""
    path = os.path.join(root, RUN_SETTINGS)
    try:
        with open(path, encoding="utf-8") as f:
            before = json.load(f)
    except (OSError, ValueError):
        before = None
    notes: list[str] = []
    problems: list[str] = []
    if resuming and isinstance(before, dict):
        changed = sorted(k for k in set(before) | set(settings) if before.get(k) != settings.get(k))
        unsafe = [k for k in changed if k not in SAFE_KEYS]
        shown = [f"{k}: {before.get(k, '(unset)')} -> {settings.get(k, '(unset)')}" for k in changed]
        if unsafe:
            problems.append(
                "checkpoints: this run resumes checkpoints trained with other settings ("
                + "; ".join(s for k, s in zip(changed, shown, strict=True) if k in unsafe)
                + "): verl would continue the old optimizer and data loader under them. Put the old "
                "values back, or start a new run (run.name) with the new ones"
            )
            return problems, notes
        notes += [f"settings changed since the checkpoints (safe to resume): {s}" for s in shown]
    elif resuming:
        notes.append(f"no {RUN_SETTINGS} beside the checkpoints: this run's settings are kept from now on")
    os.makedirs(root, exist_ok=True)
    with open(path + ".tmp", "w", encoding="utf-8") as f:
        json.dump(settings, f, indent=1, sort_keys=True)
    os.replace(path + ".tmp", path)
    return problems, notes
