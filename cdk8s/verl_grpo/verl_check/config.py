"""verl's composed config, approximated: its defaults (data/verl/<version>.json) plus Hydra overrides."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from typing import Any

_INTERPOLATION = re.compile(r"^\$\{(?:oc\.select:)?([.A-Za-z0-9_]+)(?:,(.*))?\}$")


def supported_versions() -> list[str]:
    """The releases the kit runs (data/verl/<version>.yaml), each with its recorded config beside it."""
    from ..facts.verl_releases import verl_releases

    return list(verl_releases())


@cache
def defaults(version: str) -> dict[str, Any]:
    text = (resources.files("verl_grpo") / "data" / "verl" / f"{version}.json").read_text()
    return json.loads(text)["defaults"]


def parse_value(raw: str) -> Any:
    """Hydra's override grammar, for the values we meet: null, bools, ints, floats, [lists], strings."""
    text = raw.strip()
    low = text.lower()
    if low == "null":
        return None
    if low in ("true", "false"):
        return low == "true"
    if text.startswith("[") and text.endswith("]"):
        inner = text[1:-1].strip()
        return [parse_value(p) for p in inner.split(",")] if inner else []
    for convert in (int, float):
        try:
            return convert(text)
        except ValueError:
            pass
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "'\"":
        return text[1:-1]
    return text


@dataclass
class Override:
    text: str
    key: str
    value: Any
    prefix: str  # "", "+" or "++"


def parse_override(text: str) -> Override | None:
    key, sep, raw = text.partition("=")
    if not sep:
        return None
    prefix = "++" if key.startswith("++") else "+" if key.startswith("+") else ""
    return Override(text, key[len(prefix) :], parse_value(raw), prefix)


@dataclass
class ComposedConfig:
    version: str
    values: dict[str, Any]
    compose_errors: list[tuple[str, str]] = field(default_factory=list)  # (key, message)
    overridden: set[str] = field(default_factory=set)

    def get(self, key: str, _depth: int = 0) -> Any:
        value = self.values.get(key)
        match = _INTERPOLATION.match(value) if isinstance(value, str) else None
        if match and _depth < 10:
            ref, fallback = match.groups()
            if ref.startswith("."):
                ref = key.rsplit(".", 1)[0] + ref
            if ref in self.values:
                return self.get(ref, _depth + 1)
            return parse_value(fallback) if fallback is not None else None
        return value


def compose(version: str, overrides: list[str]) -> ComposedConfig:
    """Apply overrides as Hydra's struct mode would: unknown keys need '+', '+' needs a new key."""
    base = defaults(version)
    values = dict(base)
    cfg = ComposedConfig(version, values)
    prefixes = {k.rsplit(".", 1)[0] for k in base if "." in k}
    for text in overrides:
        o = parse_override(text)
        if o is None:
            cfg.compose_errors.append((text, "not a key=value override"))
            continue
        known = o.key in base or o.key in prefixes
        if o.prefix == "" and not known:
            cfg.compose_errors.append(
                (o.key, f"unknown key for verl {version} (Hydra struct mode; use '+{o.key}=' to add one)")
            )
            continue
        if o.prefix == "+" and o.key in base:
            cfg.compose_errors.append((o.key, f"'+{o.key}' adds a key that already exists; drop the '+'"))
            continue
        values[o.key] = o.value
        cfg.overridden.add(o.key)
    return cfg
