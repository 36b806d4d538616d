"""The user's own values file for a profile (`verl-grpo init`): the profile's name in values, and each
value that is the user's (Profile.user_keys), commented from the values model."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..values.helm_yaml import scalar
from ..values.loader import PROFILE_KEYS, default_values, nested, value_at
from ..values.schema import values_schema

if TYPE_CHECKING:
    from ..profiles import Profile

REQUIRED = "REQUIRED: yours; fill it in before use"


def description(key: str) -> str:
    """The values model's description of a dotted key, as the chart's values.yaml has it."""
    node: dict[str, Any] = values_schema()
    for part in key.split("."):
        node = node["properties"][part]
    return str(node["description"])


def usage(profile: Profile, path: str) -> str:
    """How every path reads the file: its header."""
    return (
        f"# Your values for the {profile.name} profile (verl-grpo init). Every path reads this one file:\n"
        f"#   scripts/up.sh -f {path}        (with PROJECT, REGION and CLUSTER set: scripts/up.sh --help)\n"
        f"#   verl-grpo plan -f {path}\n"
        f"#   helm install verl charts/verl-grpo -f {profile.overlay_dir}/values.yaml -f {path}\n"
        "# Every other setting, with its default: charts/verl-grpo/values.yaml.\n"
    )


def my_values(profile: Profile, given: dict[str, Any], path: str) -> str:
    """The file's text: the profile's own keys (so `plan -f` and the scripts find the profile without
    --profile), then the user's keys, each with its description; one not given keeps the chart's
    default (empty, or verl's x86 image) marked required, which the kit's rules refuse until it is
    filled in."""

    layer, defaults = profile.layer(), default_values()
    # Each key's (value, comment), in the file's order.
    flat: dict[str, tuple[Any, str]] = {key: (value_at(layer, key), "") for key in PROFILE_KEYS}
    keys = profile.user_keys()
    for key in [*keys, *(k for k in given if k not in keys)]:  # then what other flags chose
        if key in given:
            flat[key] = (given[key], description(key))
        else:
            flat[key] = (value_at(defaults, key), f"{description(key)} {REQUIRED}.")
    entries = nested(flat)
    lines = [usage(profile, path).rstrip("\n")]
    for section, fields in entries.items():
        lines.append(f"{section}:")
        for name, (value, note) in fields.items():
            if note:
                lines.append(f"  # -- {note}")
            lines.append(f"  {name}: {scalar(value)}")
    return "\n".join(lines) + "\n"
