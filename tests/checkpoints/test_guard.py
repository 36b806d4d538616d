"""Resume only from a complete checkpoint: the pre-flight's guard on a local folder standing in for
the bucket, with checkpoints written the way verl writes them (writer.py, torch, in verl's venv),
saves killed or slowed mid-file, and verl's own find_latest_ckpt_path reading the result."""

from __future__ import annotations

import json
import signal
import subprocess
import zipfile
from pathlib import Path

import pytest

from verl_grpo.pod import checkpoint_guard as guard
from verl_grpo.pod import preflight
from verl_grpo.verl_check.config import supported_versions

from ..conftest import oracle_python
from ..test_preflight import args as preflight_args
from ..test_preflight import layout  # noqa: F401 - the fixture

HERE = Path(__file__).parent
VERL = "0.6.1"


def fake_step(root: Path, step: int, world: int = 2, skip: tuple[str, ...] = ()) -> Path:
    """A checkpoint folder as verl leaves it; files named in `skip` are left out. Each .pt file
    is a zip archive, as torch.save writes it."""
    actor = root / f"global_step_{step}" / "actor"
    actor.mkdir(parents=True)
    names = [f"{k}_world_size_{world}_rank_{r}.pt" for k in guard.KINDS for r in range(world)]
    for name in names + ["data.pt"]:
        path = (actor if name != "data.pt" else actor.parent) / name
        if name not in skip:
            with zipfile.ZipFile(path, "w") as z:
                z.writestr("archive/data.pkl", b"x" * 100)
    if "fsdp_config.json" not in skip:
        (actor / "fsdp_config.json").write_text(json.dumps({"FSDP_version": 1, "world_size": world}))
    return actor.parent


def track(root: Path, text: str) -> None:
    (root / guard.TRACKER).write_text(text)


def test_a_complete_checkpoint_is_resumed_as_is(tmp_path):
    fake_step(tmp_path, 10)
    track(tmp_path, "10")
    resume = guard.choose(str(tmp_path))
    assert (resume.step, resume.notes, resume.problems) == (
        10,
        ["resuming from global_step_10 (complete)"],
        [],
    )


@pytest.mark.parametrize(
    ("damage", "why"),
    [
        (
            {"skip": ("optim_world_size_2_rank_1.pt",)},
            "global_step_20 is incomplete (no actor/optim_world_size_2_rank_1.pt)",
        ),
        ({"skip": ("data.pt",)}, "global_step_20 is incomplete (no data.pt)"),
        ({"skip": ("fsdp_config.json",)}, "global_step_20 is incomplete (no actor/fsdp_config.json)"),
    ],
)
def test_an_incomplete_newest_falls_back_to_the_previous_complete_one(tmp_path, damage, why):
    fake_step(tmp_path, 10)
    fake_step(tmp_path, 20, **damage)
    track(tmp_path, "20")
    resume = guard.choose(str(tmp_path))
    assert resume.step == 10
    assert resume.notes == [
        f"{why}: resuming from global_step_10, the newest complete one (tracker rewritten)"
    ]
    assert (tmp_path / guard.TRACKER).read_text() == "10"


def test_a_file_cut_short_is_incomplete(tmp_path):
    folder = fake_step(tmp_path, 20)
    shard = folder / "actor" / "model_world_size_2_rank_0.pt"
    shard.write_bytes(shard.read_bytes()[:60])
    assert guard.missing(str(folder)) == ["actor/model_world_size_2_rank_0.pt (cut short)"]


@pytest.mark.parametrize(
    ("tracker", "why"),
    [
        ("", "latest_checkpointed_iteration.txt holds '', not a step (verl would stop with ValueError)"),
        (
            "30",
            "latest_checkpointed_iteration.txt names global_step_30, which does not exist "
            "(verl would start from scratch)",
        ),
    ],
)
def test_a_torn_or_dangling_tracker_falls_back(tmp_path, tracker, why):
    fake_step(tmp_path, 10)
    fake_step(tmp_path, 20, skip=("extra_state_world_size_2_rank_0.pt",))
    track(tmp_path, tracker)
    resume = guard.choose(str(tmp_path))
    assert resume.step == 10 and resume.notes[0].startswith(why + ": resuming from global_step_10")


def test_no_complete_checkpoint_stops_the_run_and_says_how_to_start_over(tmp_path):
    fake_step(tmp_path, 20, skip=("model_world_size_2_rank_1.pt",))
    track(tmp_path, "20")
    resume = guard.choose(str(tmp_path))
    assert resume.step is None
    assert resume.problems == [
        "checkpoints: global_step_20 is incomplete (no actor/model_world_size_2_rank_1.pt), and no earlier "
        f"checkpoint under {tmp_path} is complete; remove {tmp_path / guard.TRACKER} to start from scratch"
    ]
    assert (tmp_path / guard.TRACKER).read_text() == "20"  # untouched


def test_no_tracker_is_a_fresh_start_and_says_so_when_folders_exist(tmp_path):
    assert guard.choose(str(tmp_path)).notes == ["no checkpoint yet: verl starts from step 0"]
    fake_step(tmp_path, 10)
    (note,) = guard.choose(str(tmp_path)).notes
    assert "has global_step_10 but no latest_checkpointed_iteration.txt: verl starts from scratch" in note


def test_retention_keeps_the_newest_and_never_touches_what_is_newer_than_the_resume(tmp_path):
    for step in (10, 20, 30, 40, 60):
        fake_step(tmp_path, step)
    fake_step(tmp_path, 15, skip=("data.pt",))
    track(tmp_path, "40")
    notes = guard.prune(str(tmp_path), 40, keep=2)
    assert notes == [
        "deleted global_step_10 (beyond training.checkpointsToKeep)",
        "deleted global_step_15 (incomplete)",
        "deleted global_step_20 (beyond training.checkpointsToKeep)",
    ]
    assert guard.steps(str(tmp_path)) == [30, 40, 60]


def writer(root: Path, *args: str) -> subprocess.Popen:
    return subprocess.Popen(
        [str(oracle_python(VERL)), str(HERE / "writer.py"), str(root), *args],
        stdout=subprocess.PIPE,
        text=True,
    )


def until(proc: subprocess.Popen, prefix: str) -> str:
    for line in proc.stdout:  # type: ignore[union-attr]
        if line.startswith(prefix):
            return line
    raise AssertionError(f"writer ended before {prefix!r}")


def verl_resumes(root: Path) -> dict:
    done = subprocess.run(
        [str(oracle_python(VERL)), str(HERE / "resume.py"), str(root)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout.splitlines()[-1])


def run_preflight(layout_args: list[str], capsys) -> tuple[int, str]:
    code = preflight.main([*layout_args, "--keep", "2"], nodes=lambda: None)
    out = capsys.readouterr()
    return code, out.out + out.err


@pytest.fixture
def inputs(layout):  # noqa: F811 - the imported fixture, by name
    """Model and data ready as the data-prep Job leaves them (tests/test_preflight.py), and the
    run's checkpoint folder."""
    root = layout["ckpt"] / "exp"
    root.mkdir(parents=True)
    return root, preflight_args(layout)


@pytest.mark.slow
def test_a_writer_killed_mid_save_leaves_the_last_commit_resumable(inputs, capsys):
    root, args = inputs
    proc = writer(root, "--steps", "1,2,3", "--slow", "3")
    until(proc, "half ")
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    code, out = run_preflight(args, capsys)
    assert code == 0 and "preflight: checkpoints: resuming from global_step_2 (complete)" in out
    assert verl_resumes(root) == {"path": str(root / "global_step_2"), "loaded": 12}


@pytest.mark.slow
def test_a_commit_ahead_of_its_files_is_not_resumed(inputs, capsys):
    """0.6.1's async save commits first: killed mid-file, verl itself would load a torn shard."""
    root, args = inputs
    proc = writer(root, "--steps", "1,2,3", "--slow", "3", "--tracker-first", "3")
    until(proc, "half ")
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    done = subprocess.run(
        [str(oracle_python(VERL)), str(HERE / "resume.py"), str(root)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode != 0  # without the guard: verl picks global_step_3 and torch.load fails
    code, out = run_preflight(args, capsys)
    assert code == 0
    assert "global_step_3 is incomplete (no actor/model_world_size_4_rank_0.pt (cut short)" in out
    assert "resuming from global_step_2, the newest complete one (tracker rewritten)" in out
    assert verl_resumes(root) == {"path": str(root / "global_step_2"), "loaded": 12}


@pytest.mark.slow
def test_a_slow_writer_is_not_resumed_until_it_is_done(inputs, capsys):
    root, args = inputs
    proc = writer(root, "--steps", "1,2,3", "--slow", "3", "--tracker-first", "3")
    until(proc, "half ")  # it sleeps with half a shard on disk
    code, out = run_preflight(args, capsys)
    assert code == 0 and "resuming from global_step_2, the newest complete one" in out
    assert proc.wait(timeout=120) == 0
    # The writer is done and global_step_3 whole, but the commit now names 2: the safe side.
    assert guard.missing(str(root / "global_step_3")) == []
    assert verl_resumes(root) == {"path": str(root / "global_step_2"), "loaded": 12}


@pytest.mark.slow
def test_keep_one_on_0_6_1_deletes_the_only_good_checkpoint_and_the_run_stops(inputs, capsys):
    """trainer.max_actor_ckpt_to_keep=1 on 0.6.1 drops the previous actor/ before saving the next."""
    root, args = inputs
    proc = writer(root, "--steps", "1,2", "--slow", "2", "--drop-before-save")
    until(proc, "half ")
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    code, out = run_preflight(args, capsys)
    assert code == 1
    assert "global_step_1 is incomplete (no actor/), and no earlier checkpoint" in out


def test_a_checkpoint_of_another_gpu_count_is_refused_before_verl_loads_anything(inputs, capsys):
    """verl loads model_world_size_<its GPUs>_rank_<rank>.pt and fails with FileNotFoundError after
    loading the actor, the reference and vLLM (verl issue #2265): the pre-flight refuses it, says
    how to go on, and deletes nothing."""
    root, args = inputs
    for step in (10, 20, 30):
        fake_step(root, step, world=16)
    track(root, "30")
    code, out = run_preflight([*args, "--gpus-per-node", "8", "--nodes", "3"], capsys)
    assert code == 1
    assert "global_step_30 under" in out and "was saved by 16 GPUs and this run has 24" in out
    assert "Set workerGroups back to 16 GPUs, or start a new run (run.name)" in out
    assert guard.steps(str(root)) == [10, 20, 30]  # nothing pruned for a run that cannot resume
    code, out = run_preflight([*args, "--gpus-per-node", "8", "--nodes", "2"], capsys)
    assert code == 0 and "resuming from global_step_30 (complete)" in out


def test_what_verl_saves_is_read_from_its_command(inputs, capsys):
    """A run that saves only the model (checkpoint.save_contents=[model]) writes no optim or
    extra_state files: its checkpoints are complete, and the same folder is not for verl's default."""
    root, args = inputs
    fake_step(
        root,
        10,
        skip=tuple(f"{k}_world_size_2_rank_{r}.pt" for k in ("optim", "extra_state") for r in (0, 1)),
    )
    track(root, "10")
    verl = [
        "--",
        "python3",
        "-m",
        "verl.trainer.main_ppo",
        "actor_rollout_ref.actor.checkpoint.save_contents=[model]",
    ]
    code = preflight.main([*args, "--keep", "2", *verl], nodes=lambda: None, run=lambda command: None)
    assert code == 0 and "resuming from global_step_10 (complete)" in capsys.readouterr().out
    assert guard.saved_kinds(verl) == ("model",)
    assert guard.saved_kinds(["x=1"]) == guard.KINDS
    code, out = run_preflight(args, capsys)
    assert code == 1 and "global_step_10 is incomplete (no actor/optim_world_size_2_rank_0.pt" in out


def test_a_run_resumed_under_other_settings_is_refused_unless_the_change_is_safe(inputs, capsys):
    """verl resumes the old optimizer and data loader whatever the new settings: a changed learning
    rate under the same run is refused, a longer run (total_epochs) only noted."""
    root, args = inputs

    def start(*overrides: str) -> tuple[int, str]:
        verl = ["--", "python3", "-m", "verl.trainer.main_ppo", *overrides]
        code = preflight.main([*args, "--keep", "2", *verl], nodes=lambda: None, run=lambda command: None)
        out = capsys.readouterr()
        return code, out.out + out.err

    first = ("actor_rollout_ref.actor.optim.lr=1e-6", "trainer.total_epochs=2")
    assert start(*first)[0] == 0  # no checkpoint yet: the settings are kept
    fake_step(root, 10)
    track(root, "10")
    code, out = start("actor_rollout_ref.actor.optim.lr=1e-5", "trainer.total_epochs=2")
    assert code == 1 and "actor_rollout_ref.actor.optim.lr: 1e-6 -> 1e-5" in out
    assert "start a new run (run.name) with the new ones" in out
    code, out = start("actor_rollout_ref.actor.optim.lr=1e-6", "trainer.total_epochs=3")
    assert code == 0 and "(safe to resume): trainer.total_epochs: 2 -> 3" in out
    assert start("actor_rollout_ref.actor.optim.lr=1e-6", "trainer.total_epochs=3")[0] == 0


@pytest.mark.slow
@pytest.mark.parametrize("version", supported_versions())
def test_verls_own_checkpoint_of_two_gpus_is_refused_on_four(version, inputs, capsys):
    """verl's FSDPCheckpointManager (each version's own, in its venv) saves from 2 ranks; the
    pre-flight resumes it on 2 GPUs and refuses it on 4 before verl loads anything."""
    root, args = inputs
    done = subprocess.run(
        [str(oracle_python(version)), str(HERE / "verl_saver.py"), str(root), "2", "10"],
        capture_output=True,
        text=True,
        check=False,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    code, out = run_preflight([*args, "--gpus-per-node", "2", "--nodes", "2"], capsys)
    assert code == 1 and "global_step_10 under" in out and "was saved by 2 GPUs and this run has 4" in out
    code, out = run_preflight([*args, "--gpus-per-node", "2", "--nodes", "1"], capsys)
    assert code == 0 and "resuming from global_step_10 (complete)" in out
