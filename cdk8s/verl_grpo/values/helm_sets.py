"""Helm's --set family (--set, --set-string, --set-json, --set-file, --set-literal), read by Helm's own
parser: the `helm-strvals` program (tools/helm-strvals, Helm's pkg/strvals at the pinned helm's
version, built by `make tools`). A string therefore means on the CLI what it means to `helm install`:
`a=0.00001` is the string "0.00001" (Helm types only integers, booleans and null), `l[0].k=x` edits
the first element of the list the -f files gave, and the flags apply by kind in Helm's order
(--set-json, --set, --set-string, --set-file, --set-literal), not in the order they were typed.

A set expression travels as one string: plain for --set, or `<flag>\\0<expression>` for the
others (NUL never appears in an argument, so no expression can be mistaken for a tag).
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from ..problems import VALUES, Problems, error

SET_FLAGS = ("--set", "--set-string", "--set-json", "--set-file", "--set-literal")
_TAG = "\0"
PROGRAM = "helm-strvals"


def tagged(flag: str, expression: str) -> str:
    """One set expression of `flag` (one of SET_FLAGS), as `sets` carry it."""
    assert flag in SET_FLAGS, flag
    return expression if flag == "--set" else f"{flag}{_TAG}{expression}"


SET_STRING = tagged("--set-string", "")  # prefix: SET_STRING + "a=1" is --set-string a=1


def untagged(item: str) -> tuple[str, str]:
    flag, tag, expression = item.partition(_TAG)
    return (flag, expression) if tag else ("--set", item)


def program() -> Path:
    """helm-strvals beside this Python (the venv's bin/, where `make tools` puts it), else on PATH."""
    beside = Path(sys.executable).parent / PROGRAM
    found = beside if beside.exists() else shutil.which(PROGRAM)
    if found is None:
        raise Problems(
            [error(VALUES, "--set", f"{PROGRAM} (Helm's --set parser) is not installed: run `make tools`")]
        )
    return Path(found)


def apply_sets(base: dict[str, Any], sets: Iterable[str]) -> dict[str, Any]:
    """`base` (the merged -f files) with the set expressions applied, as Helm applies them."""
    args = [str(program()), "--base", json.dumps(base, default=str)]
    for item in sets:
        args += untagged(item)
    done = subprocess.run(args, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        message = done.stderr.strip() or f"{PROGRAM} exited {done.returncode}"
        raise Problems([error(VALUES, _flag_of(message), message)])
    return json.loads(done.stdout)


def _flag_of(message: str) -> str:
    """The flag Helm's message names ("failed parsing --set-json data ..."), for the problem's key."""
    named = [f for f in SET_FLAGS if f"{f} data" in message]
    return max(named, key=len) if named else "--set"
