"""pod/checkpoint_guard.py on folders laid out as verl's FSDP trainer leaves them: resume only from a
complete checkpoint, of the GPU count and settings it was saved with, and prune what verl forgets."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

from verl_grpo.pod import checkpoint_guard as guard


def saved(
    root: Path, step: int, world: int = 2, kinds: tuple[str, ...] = guard.KINDS, config: bool = True
) -> Path:
    """global_step_<step>/ as verl writes it: every rank's .pt files (zip archives, as torch.save
    writes them), rank 0's fsdp_config.json and the driver's data.pt."""
    actor = root / f"global_step_{step}" / "actor"
    actor.mkdir(parents=True)
    for path in [actor / f"{k}_world_size_{world}_rank_{r}.pt" for k in kinds for r in range(world)]:
        with zipfile.ZipFile(path, "w") as z:
            z.writestr("archive/data.pkl", b"x" * 64)
    with zipfile.ZipFile(actor.parent / "data.pt", "w") as z:
        z.writestr("archive/data.pkl", b"d")
    if config:
        (actor / "fsdp_config.json").write_text(json.dumps({"FSDP_version": 1, "world_size": world}))
    return actor.parent


def test_what_verl_saves_is_read_from_its_save_contents_override() -> None:
    """save_contents names model/optimizer/extra (actor.yaml); 'hf_model' writes no rank file. The
    last override wins, as Hydra's does, with or without quotes and '+'."""
    assert guard.saved_kinds(["python3", "-m", "verl.trainer.main_ppo"]) == ("model", "optim", "extra_state")
    key = guard.SAVE_CONTENTS
    assert guard.saved_kinds([f"{key}=[model,optimizer]"]) == ("model", "optim")
    assert guard.saved_kinds([f"+{key}=['model', 'hf_model']"]) == ("model",)
    assert guard.saved_kinds([f"{key}=[model]", f"{key}=[extra]"]) == ("extra_state",)
    assert guard.settings_of(["--flag=x", "a=1", "++b=c=d"]) == {"a": "1", "b": "c=d"}


def test_a_folder_is_complete_only_with_every_ranks_files_whole(tmp_path: Path) -> None:
    """Every rank's model, optim and extra_state file, whole, plus fsdp_config.json and data.pt."""
    folder = saved(tmp_path, 10, world=4)
    assert guard.missing(str(folder)) == []
    (folder / "actor" / "extra_state_world_size_4_rank_3.pt").unlink()
    shard = folder / "actor" / "model_world_size_4_rank_2.pt"
    shard.write_bytes(shard.read_bytes()[:40])  # a write cut short: no end-of-archive record
    assert guard.missing(str(folder)) == [
        "actor/model_world_size_4_rank_2.pt (cut short)",  # the torn file first: it says most
        "actor/extra_state_world_size_4_rank_3.pt",
    ]
    assert guard.missing(str(tmp_path / "global_step_99")) == ["actor/"]
    # Without fsdp_config.json the world size comes from the rank files, and its absence is named.
    bare = saved(tmp_path, 20, world=2, config=False)
    assert guard.missing(str(bare)) == ["actor/fsdp_config.json"] and guard.world_size(str(bare)) == 2


def test_a_tracker_naming_a_missing_step_never_resumes_a_newer_uncommitted_one(tmp_path: Path) -> None:
    """Only steps below what the tracker names are taken: one above it is a save verl never
    committed (and writes again), however complete it looks."""
    for step in (10, 20, 40):
        saved(tmp_path, step)
    (tmp_path / guard.TRACKER).write_text("30\n")
    resume = guard.choose(str(tmp_path))
    assert resume.step == 20 and resume.problems == []
    assert "names global_step_30, which does not exist" in resume.notes[0]
    assert guard.read_tracker(str(tmp_path)) == 20  # rewritten whole
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "global_step_10",
        "global_step_20",
        "global_step_40",
        guard.TRACKER,
    ]  # no temporary file left beside it


def test_a_checkpoint_of_another_gpu_count_is_refused_with_both_counts(tmp_path: Path) -> None:
    """verl loads model_world_size_<its world>_rank_*.pt and fails after loading everything else
    (verl issue 2265): the same count passes, another is refused, nothing to resume says nothing."""
    saved(tmp_path, 10, world=16)
    assert guard.world_problems(str(tmp_path), 10, 16) == []
    (problem,) = guard.world_problems(str(tmp_path), 10, 8)
    assert "was saved by 16 GPUs and this run has 8" in problem
    assert "Set workerGroups back to 16 GPUs" in problem
    assert guard.world_problems(str(tmp_path), None, 8) == []
    assert guard.world_problems(str(tmp_path), 10, 0) == []  # GPU count unknown: not checked


def test_pruning_keeps_the_resume_step_and_newer_ones_and_deletes_beyond_keep(tmp_path: Path) -> None:
    """verl forgets its retention on a restart: older complete checkpoints beyond `keep` and
    incomplete ones go; the resume step and anything newer stay."""
    for step in (10, 20, 30, 50):
        saved(tmp_path, step)
    saved(tmp_path, 25, kinds=("model",))  # incomplete: deleted whatever `keep` says
    notes = guard.prune(str(tmp_path), 30, keep=2)
    assert notes == [
        "deleted global_step_10 (beyond training.checkpointsToKeep)",
        "deleted global_step_25 (incomplete)",
    ]
    assert guard.steps(str(tmp_path)) == [20, 30, 50]  # keep 2 = the resume step and the one before
    assert guard.prune(str(tmp_path), None, keep=2) == [] and guard.steps(str(tmp_path)) == [20, 30, 50]


def test_resuming_under_changed_settings_is_refused_unless_every_change_is_safe(tmp_path: Path) -> None:
    """verl continues the old optimizer and data loader whatever the new settings: a new learning
    rate is refused (and the kept settings stay), a longer run is only noted (and kept)."""
    first = {"actor_rollout_ref.actor.optim.lr": "1e-6", "trainer.total_epochs": "2"}
    assert guard.settings_problems(str(tmp_path), False, first) == ([], [])
    kept = tmp_path / guard.RUN_SETTINGS
    assert json.loads(kept.read_text()) == first
    problems, _ = guard.settings_problems(
        str(tmp_path), True, {**first, "actor_rollout_ref.actor.optim.lr": "1e-5"}
    )
    (problem,) = problems
    assert "actor_rollout_ref.actor.optim.lr: 1e-6 -> 1e-5" in problem and "total_epochs" not in problem
    assert json.loads(kept.read_text()) == first
    longer = {**first, "trainer.total_epochs": "3"}
    problems, notes = guard.settings_problems(str(tmp_path), True, longer)
    assert problems == [] and notes == [
        "settings changed since the checkpoints (safe to resume): trainer.total_epochs: 2 -> 3"
    ]
    assert json.loads(kept.read_text()) == longer


def test_keep_zero_prunes_nothing(tmp_path: Path) -> None:
    """The pre-flight's --keep default is 0, "no pruning" (a run by hand): every checkpoint stays,
    even incomplete ones (the chart always passes training.checkpointsToKeep, at least 2)."""
    for step in (10, 20, 30):
        saved(tmp_path, step)
    saved(tmp_path, 25, kinds=("model",))
    assert guard.prune(str(tmp_path), 30, keep=0) == []
    assert guard.steps(str(tmp_path)) == [10, 20, 25, 30]
