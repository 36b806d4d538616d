"""What validation reports: one finding per problem, naming the object, the path and the rule."""

from __future__ import annotations

from dataclasses import asdict, dataclass


@dataclass(frozen=True)
class Finding:
    severity: str  # "error" | "warning"
    source: str  # file (and document index) the object came from
    object: str  # Kind/namespace/name
    path: str  # dotted path inside the object, "" for the whole object
    rule: str  # short rule id, e.g. "schema", "crd-cel", "kuberay-name-length"
    message: str

    def line(self) -> str:
        where = f"{self.object}" + (f" {self.path}" if self.path else "")
        return f"{self.severity}: {self.source}: {where}: {self.message} [{self.rule}]"

    def as_dict(self) -> dict[str, str]:
        return asdict(self)


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
