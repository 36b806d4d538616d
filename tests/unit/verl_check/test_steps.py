"""verl_check/steps.py: verl's step count; its train dataloader drops each epoch's partial batch."""

from __future__ import annotations

from verl_grpo.values.model import Training
from verl_grpo.verl_check.steps import GSM8K_TRAIN_ROWS, steps_per_epoch, total_steps


def test_gsm8k_has_7473_training_rows() -> None:
    """GSM8K's train split (openai/grade-school-math) has 7,473 problems, which verl's
    examples/data_preprocess/gsm8k.py writes out."""
    assert GSM8K_TRAIN_ROWS == 7473


def test_the_default_run_trains_29_steps_an_epoch() -> None:
    """256 prompts a step: 29 x 256 = 7424 rows, and the 49 left over are dropped; 2 epochs."""
    assert steps_per_epoch(Training()) == 29
    assert total_steps(Training()) == 58


def test_a_partial_batch_is_dropped_so_a_batch_above_the_data_trains_nothing() -> None:
    """drop_last: a batch of exactly the rows is one step, one row more is none, however many epochs."""
    assert steps_per_epoch(Training(train_batch_size=7473)) == 1
    assert steps_per_epoch(Training(train_batch_size=7474)) == 0
    assert total_steps(Training(train_batch_size=7474, total_epochs=100)) == 0


def test_other_data_and_epochs_scale_the_count() -> None:
    """Steps are whole batches of the given rows, times the epochs."""
    t = Training(train_batch_size=100, total_epochs=3)
    assert steps_per_epoch(t, train_rows=1000) == 10 and total_steps(t, train_rows=1000) == 30
    assert steps_per_epoch(t, train_rows=1099) == 10  # 99 rows short of an 11th step
