"""verl's step arithmetic: the train dataloader drops the last partial batch of every epoch."""

from __future__ import annotations

from ..values.model import Training

GSM8K_TRAIN_ROWS = 7473  # examples/data_preprocess/gsm8k.py output, train split


def steps_per_epoch(t: Training, train_rows: int = GSM8K_TRAIN_ROWS) -> int:
    return train_rows // t.train_batch_size


def total_steps(t: Training, train_rows: int = GSM8K_TRAIN_ROWS) -> int:
    return steps_per_epoch(t, train_rows) * t.total_epochs
