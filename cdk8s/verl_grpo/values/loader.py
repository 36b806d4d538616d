"""Merge values layers the way Helm does, validate them, and return the typed model.

Order: built-in defaults, GPU profile, `-f` files in order, `--set` in order. Maps merge,
lists replace, null deletes a key (and then fails the schema, as in Helm).
"""

from __future__ import annotations

import copy
import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import jsonschema
import yaml

from ..problems import VALUES, Problem, Problems, did_you_mean, error
from ..yaml_io import TooLarge, load_all_limited
from .expressions import V
from .helm_yaml import HelmValuesLoader
from .model import Values
from .schema import values_schema


def _refused(key: str, message: str) -> Problems:
    """Invalid input: names the key (or file, or --set), the bad value and what is allowed."""
    return Problems([error(VALUES, key, message)])


def default_values() -> dict[str, Any]:
    return Values().model_dump(by_alias=True, mode="json")


def deep_merge(base: dict[str, Any], over: dict[str, Any]) -> dict[str, Any]:
    out = copy.deepcopy(base)
    for key, value in over.items():
        if value is None:
            out.pop(key, None)
        elif isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = deep_merge(out[key], value)
        else:
            out[key] = copy.deepcopy(value)
    return out


MAX_VALUES_BYTES = 1 << 20


def read_values_file(path: Path) -> dict[str, Any]:
    try:
        raw = path.read_bytes()
        if len(raw) > MAX_VALUES_BYTES:
            raise _refused(str(path), f"{len(raw)} bytes; a values file may hold at most {MAX_VALUES_BYTES}")
        docs = load_all_limited(raw.decode("utf-8"), loader=HelmValuesLoader)
    except OSError as e:
        raise _refused(str(path), f"cannot read: {e.strerror}") from e
    except UnicodeDecodeError as e:
        raise _refused(str(path), f"not UTF-8 text ({e.reason} at byte {e.start})") from e
    except TooLarge as e:
        raise _refused(str(path), f"refused: {e}") from e
    except yaml.YAMLError as e:
        first = str(e).splitlines()[0] if str(e) else type(e).__name__
        raise _refused(str(path), f"not valid YAML: {first}") from e
    if len(docs) > 1:
        raise _refused(str(path), f"holds {len(docs)} YAML documents; a values file holds one")
    data = docs[0] if docs else None
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise _refused(str(path), f"a values file must hold a mapping, got {type(data).__name__}")
    return data


SET_STRING = "string:"
_INT = re.compile(r"^-?[1-9][0-9]*$|^0$")


def _typed(raw: str) -> Any:
    """Helm's --set typing: true/false/null and integers are typed, everything else is a string."""
    low = raw.lower()
    if low in ("true", "false"):
        return low == "true"
    if low == "null":
        return None
    if _INT.match(raw):
        return int(raw)
    return raw


def parse_set(expr: str, typed: bool = True) -> dict[str, Any]:
    """`a.b=c` (or `a=1,b.c=x`, `a={x,y}`) as Helm's --set reads it; typed=False is --set-string."""
    out: dict[str, Any] = {}
    for pair in _split_top(expr, ","):
        key, sep, raw = pair.partition("=")
        if not sep or not key or any(not part for part in key.split(".")):
            raise _refused(f"--set {expr!r}", "expected key.path=value")
        value: Any
        convert = _typed if typed else str
        if raw.startswith("{") and raw.endswith("}"):
            value = [convert(v) for v in _split_top(raw[1:-1], ",")] if raw[1:-1] else []
        else:
            value = convert(raw)
        node = out
        *parents, leaf = key.split(".")
        for part in parents:
            node = node.setdefault(part, {})
        node[leaf] = value
    return out


def _split_top(s: str, sep: str) -> list[str]:
    parts, depth, cur = [], 0, ""
    for ch in s:
        depth += ch == "{"
        depth -= ch == "}"
        if ch == sep and depth == 0:
            parts.append(cur)
            cur = ""
        else:
            cur += ch
    parts.append(cur)
    return parts


def merge_layers(
    profile: dict[str, Any] | None,
    files: Iterable[Path] = (),
    sets: Iterable[str] = (),
    defaults: bool = True,
) -> dict[str, Any]:
    """`sets` are --set expressions; prefix one with 'string:' for --set-string. defaults=False:
    the user's layers alone (what they set)."""
    merged = deep_merge(default_values() if defaults else {}, profile or {})
    for path in files:
        merged = deep_merge(merged, read_values_file(Path(path)))
    for expr in sets:
        if expr.startswith(SET_STRING):
            merged = deep_merge(merged, parse_set(expr[len(SET_STRING) :], typed=False))
        else:
            merged = deep_merge(merged, parse_set(expr))
    return merged


def validate(merged: dict[str, Any]) -> Values:
    """Schema check (the same schema Helm applies), then the typed model."""
    validator = jsonschema.Draft7Validator(values_schema())
    problems = sorted(
        (p for e in validator.iter_errors(merged) for p in _describe(e)),
        key=lambda p: f"{p.key}: {p.message}",
    )
    if problems:
        raise Problems(problems)
    return Values.model_validate({k: v for k, v in merged.items() if k != "global"})


def _describe(found: jsonschema.ValidationError) -> list[Problem]:
    path = ".".join(str(p) for p in found.absolute_path) or "(top level)"
    if found.validator == "additionalProperties":
        allowed = ", ".join(found.schema.get("properties", {}))
        extra = sorted(set(found.instance) - set(found.schema.get("properties", {})))
        where = f"{path}." if found.absolute_path else ""
        known = found.schema.get("properties", {})
        return [
            error(VALUES, f"{where}{k}", f"unknown key{did_you_mean(k, known)}; allowed: {allowed}")
            for k in extra
        ]
    if found.validator == "required":
        return [error(VALUES, path, f"{found.message} (a key set to null is deleted, as in Helm)")]
    hint = found.schema.get("description", "")
    return [error(VALUES, path, found.message + (f" ({hint})" if hint else ""))]


# What a profile's name says (b200|h200 - standard|autopilot - raycluster): your values may change
# anything else the profile sets (the Autopilot zone), not these.
PROFILE_KEYS = ("gpu.type", "cluster.mode", "run.kind")


def _at(tree: dict[str, Any], dotted: str) -> Any:
    return V(dotted).py(tree)  # the rules' own path lookup: None where a key is missing


def agrees(profile: dict[str, Any], user: dict[str, Any]) -> bool:
    """The user's layers (merge_layers(None, ..., defaults=False)) set no profile key otherwise."""
    return all(_at(user, k) in (None, _at(profile, k)) for k in PROFILE_KEYS)


def profile_conflicts(profile: dict[str, Any] | None, merged: dict[str, Any]) -> list[Problem]:
    """A value that contradicts the chosen profile: an error, not a silent switch of profile."""
    out = []
    for key in PROFILE_KEYS:
        wanted, got = _at(profile or {}, key), _at(merged, key)
        if wanted is not None and got != wanted:
            out.append(
                error(
                    VALUES,
                    key,
                    f"{got!r} from your values contradicts the profile's {wanted!r}; choose the profile "
                    "that matches (--profile) or drop the setting",
                )
            )
    return out


def load_values(
    profile: dict[str, Any] | None, files: Iterable[Path] = (), sets: Iterable[str] = ()
) -> Values:
    merged = merge_layers(profile, files, sets)
    values = validate(merged)
    conflicts = profile_conflicts(profile, merged)
    if conflicts:
        raise Problems(conflicts)
    return values
