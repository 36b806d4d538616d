"""What makes a PNG a real plot of a series, not an empty or broken file."""

from __future__ import annotations

from pathlib import Path


def assert_real_plot(png: Path, panels: int) -> None:
    import numpy as np
    from matplotlib import colors
    from PIL import Image

    image = Image.open(png)
    assert image.format == "PNG" and image.size == (800, 280 * panels)
    pixels = np.asarray(image.convert("RGB"))
    line = np.array([round(255 * c) for c in colors.to_rgb("C0")])
    # The series is drawn: many pixels of the line colour, on a mostly white canvas.
    assert (pixels == line).all(axis=2).sum() > 200
    assert (pixels == 255).all(axis=2).mean() > 0.5
