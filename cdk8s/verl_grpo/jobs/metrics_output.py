"""verl's step metrics as a CSV series and a PNG plot (matplotlib, no screen needed)."""

from __future__ import annotations

import csv
import difflib
import io
import math

from .errors import JobsError
from .step_lines import StepRecord, metric_keys


def check_keys(records: list[StepRecord], keys: list[str]) -> None:
    if not records:
        raise JobsError("no verl step lines (step:N - key:value ...) in the log; is trainer.logger console?")
    known = metric_keys(records)
    for key in keys:
        if key not in known:
            close = difflib.get_close_matches(key, known, n=3)
            hint = f"; did you mean {', '.join(close)}" if close else f"; logged: {', '.join(known)}"
            raise JobsError(f"--key: {key!r} is not in the log{hint}")


def csv_text(records: list[StepRecord], keys: list[str]) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["step", *keys])
    for r in records:
        writer.writerow([r.step, *(repr(r.metrics[k]) if k in r.metrics else "" for k in keys)])
    return out.getvalue()


def png_bytes(records: list[StepRecord], keys: list[str], title: str) -> bytes:
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib.figure import Figure
    from matplotlib.ticker import MaxNLocator

    figure = Figure(figsize=(8, 2.8 * len(keys)), dpi=100, layout="constrained")
    axes = figure.subplots(len(keys), 1, sharex=True, squeeze=False)[:, 0]
    for ax, key in zip(axes, keys, strict=True):
        points = [
            (r.step, r.metrics[key]) for r in records if key in r.metrics and math.isfinite(r.metrics[key])
        ]
        ax.plot([s for s, _ in points], [v for _, v in points], marker="o", markersize=3, color="C0")
        ax.set_ylabel(key)
        ax.grid(True, alpha=0.3)
    axes[-1].set_xlabel("step")
    axes[-1].xaxis.set_major_locator(MaxNLocator(integer=True))
    figure.suptitle(title)
    out = io.BytesIO()
    figure.savefig(out, format="png")
    return out.getvalue()
