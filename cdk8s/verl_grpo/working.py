"""What a verb is doing while it takes more than a moment: a spinner line on a terminal's stderr.

Only on a terminal: piped or captured stderr (CI, scripts, `2>log`) stays free of redraws.
"""

from __future__ import annotations

import sys
from contextlib import AbstractContextManager, nullcontext


def working(message: str) -> AbstractContextManager:
    """`with working("rendering 8 profiles"): ...` shows the message with a spinner until the block ends."""
    if not sys.stderr.isatty():
        return nullcontext()
    from rich.console import Console

    return Console(stderr=True).status(message)
