"""Merge values layers the way Helm does, validate them, and return the typed model.

Order: built-in defaults, GPU profile, `-f` files in order, then the --set family as Helm applies
it (helm_sets.py). Maps merge, lists replace, null deletes a key (and then fails the schema, as in Helm).
"""

from __future__ import annotations

import copy
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import jsonschema
import yaml

from ..problems import VALUES, Problem, Problems, did_you_mean, error
from ..yaml_io import TooLarge, load_all_limited
from .helm_sets import apply_sets
from .helm_yaml import HelmValuesLoader
from .model import PATTERN_RULES, Values
from .schema import values_schema
from .worker_groups import as_map


def _refused(key: str, message: str) -> Problems:
    """Invalid input: names the key (or file, or --set), the bad value and what is allowed."""
    return Problems([error(VALUES, key, message)])


def default_values() -> dict[str, Any]:
    return Values().model_dump(by_alias=True, mode="json")


def deep_merge(base: dict[str, Any], over: dict[str, Any], keep_nulls: bool = False) -> dict[str, Any]:
    """Maps merge, anything else replaces. A null deletes the key (Helm's coalescing over the chart's
    defaults), or with `keep_nulls` stays, to delete it later from the defaults below (Helm's
    MergeMaps of the user's layers, pkg/chart/v2/loader/load.go@v4.1.4)."""
    out = copy.deepcopy(base)
    for key, value in over.items():
        if value is None and not keep_nulls:
            out.pop(key, None)
        elif isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = deep_merge(out[key], value, keep_nulls)
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
        raise _refused(str(path), f"not valid YAML: {yaml_error(e)}") from e
    if len(docs) > 1:
        raise _refused(str(path), f"holds {len(docs)} YAML documents; a values file holds one")
    data = docs[0] if docs else None
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise _refused(str(path), f"a values file must hold a mapping, got {type(data).__name__}")
    return data


def merge_layers(
    profile: dict[str, Any] | None,
    files: Iterable[Path] = (),
    sets: Iterable[str] = (),
    defaults: bool = True,
) -> dict[str, Any]:
    """`sets`: set expressions (helm_sets.tagged). As Helm: the profile and -f files merge, the sets
    apply to that, and the result goes over the defaults (null deletes). defaults=False: the user's
    layers alone (what they set)."""
    user = deep_merge({}, profile or {}, keep_nulls=True)
    for path in files:
        user = deep_merge(user, read_values_file(Path(path)), keep_nulls=True)
    sets = tuple(sets)
    if sets:
        user = apply_sets(user, sets)
    return deep_merge(default_values(), user) if defaults else user


def yaml_error(e: yaml.YAMLError) -> str:
    """PyYAML's error on one line, where it is first: `line L, column C: problem (context)`."""
    mark = getattr(e, "problem_mark", None) or getattr(e, "context_mark", None)
    problem = getattr(e, "problem", None) or (str(e).splitlines() or [type(e).__name__])[0]
    context = getattr(e, "context", None)
    where = f"line {mark.line + 1}, column {mark.column + 1}: " if mark else ""
    return where + problem + (f" ({context})" if context else "")


def validate(merged: dict[str, Any]) -> Values:
    """Schema check (the same schema Helm applies), then the typed model."""
    if isinstance(merged.get("workerGroups"), list):  # the chart's validateValues says the same
        raise Problems([error(VALUES, "workerGroups", as_map(merged["workerGroups"]))])
    validator = jsonschema.Draft7Validator(values_schema())
    problems = sorted(
        (p for e in validator.iter_errors(merged) for p in _describe(e)),
        key=lambda p: f"{p.key}: {p.message}",
    )
    if problems:
        raise Problems(problems)
    return Values.model_validate({k: v for k, v in merged.items() if k != "global"})


# Keys an earlier release of the chart had, and where their setting lives now.
MOVED = {
    "worker.replicas": "moved to workerGroups (worker groups keyed by name, each with its own "
    "replicas): set workerGroups: {gpu-group: {replicas: N}}, or --set workerGroups.gpu-group.replicas=N",
}


def _describe(found: jsonschema.ValidationError) -> list[Problem]:
    path = ".".join(str(p) for p in found.absolute_path) or "(top level)"
    if found.validator == "additionalProperties":
        allowed = ", ".join(found.schema.get("properties", {}))
        extra = sorted(set(found.instance) - set(found.schema.get("properties", {})))
        where = f"{path}." if found.absolute_path else ""
        known = found.schema.get("properties", {})
        return [
            error(
                VALUES,
                f"{where}{k}",
                MOVED.get(f"{where}{k}") or f"unknown key{did_you_mean(k, known)}; allowed: {allowed}",
            )
            for k in extra
        ]
    if found.validator == "required":
        if found.absolute_path and isinstance(found.absolute_path[-1], int):  # a list item
            why = "a list item gets no defaults: with --set, a list element replaces the whole list"
            return [error(VALUES, path, f"{found.message} ({why}; give every required field)")]
        if list(found.schema_path)[-2:-1] == ["additionalProperties"]:  # an entry of a map (workerGroups)
            why = "an entry the chart's values do not have gets no defaults"
            return [error(VALUES, path, f"{found.message} ({why}; give every required field)")]
        return [error(VALUES, path, f"{found.message} (a key set to null is deleted, as in Helm)")]
    hint = found.schema.get("description", "")
    if found.validator == "pattern" and (rule := PATTERN_RULES.get(found.validator_value)):
        return [error(VALUES, path, f"{found.instance!r} is not allowed: {rule}")]
    if found.validator == "type" and _numeric_text(found.instance):
        hint = f"Helm's --set reads decimals as text: use --set-json {path}={found.instance}"
    return [error(VALUES, path, found.message + (f" ({hint})" if hint else ""))]


def _numeric_text(value: Any) -> bool:
    """A string that reads as a number: what `--set key=0.00001` gives (helm_sets.py)."""
    try:
        return isinstance(value, str) and float(value) == float(value)
    except ValueError:
        return False


# What a profile's name says (b200|h200 - standard|autopilot - raycluster): your values may change
# anything else the profile sets (A4X's capacity and DRANET), not these.
PROFILE_KEYS = ("gpu.type", "cluster.mode", "run.kind")


def value_at(tree: dict[str, Any], dotted: str) -> Any:
    node: Any = tree
    for part in dotted.split("."):
        node = node.get(part) if isinstance(node, dict) else None
    return node  # None where a key is missing


def nested(flat: dict[str, Any]) -> dict[str, Any]:
    """A values layer from dotted keys of two parts ({"storage.bucket": "b"})."""
    tree: dict[str, Any] = {}
    for key, value in flat.items():
        section, name = key.split(".")
        tree.setdefault(section, {})[name] = value
    return tree


def agrees(profile: dict[str, Any], user: dict[str, Any]) -> bool:
    """The user's layers (merge_layers(None, ..., defaults=False)) set no profile key otherwise."""
    return all(value_at(user, k) in (None, value_at(profile, k)) for k in PROFILE_KEYS)


def profile_conflicts(profile: dict[str, Any] | None, merged: dict[str, Any]) -> list[Problem]:
    """A value that contradicts the chosen profile: an error, not a silent switch of profile."""
    out = []
    for key in PROFILE_KEYS:
        wanted, got = value_at(profile or {}, key), value_at(merged, key)
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
