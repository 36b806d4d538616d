"""What validation reports: one Problem per finding, naming the object, the path and the rule."""

from __future__ import annotations

from ..problems import VALIDATE, Problem


def finding(severity: str, source: str, object: str, path: str, rule: str, message: str) -> Problem:
    """`source`: the file (and document index) the object came from; `object`: Kind/namespace/name;
    `path`: dotted path inside the object ("" for the whole object); `rule`: a short id such as
    "schema", "crd-cel" or "kuberay-name-length"."""
    return Problem(severity, VALIDATE, path, message, source=source, object=object, rule=rule)


def dotted(path: object) -> str:
    out = ""
    for part in path:  # type: ignore[attr-defined]
        if isinstance(part, int):
            out += f"[{part}]"
        elif "." in str(part) or "/" in str(part):
            out += f"[{part}]"  # label-like keys: spec.nodeSelector[cloud.google.com/gke-spot]
        else:
            out += f".{part}" if out else str(part)
    return out
