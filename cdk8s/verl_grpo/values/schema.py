"""values.schema.json: the strict JSON schema shared by `verl-grpo synth` and `helm`."""

from __future__ import annotations

from functools import cache
from typing import Any

from .model import Values


@cache
def values_schema() -> dict[str, Any]:
    raw = Values.model_json_schema(by_alias=True)
    defs = raw.pop("$defs", {})
    schema = _clean(raw, defs)
    # Helm copies an umbrella chart's `global` values into every subchart's values, which are then
    # checked against the subchart's schema ("Subcharts and Global Values",
    # https://helm.sh/docs/chart_template_guide/subcharts_and_globals/): allow it, unchecked and not
    # required, so the chart can be a dependency.
    schema["properties"]["global"] = {
        "type": "object",
        "description": "Helm's values shared with every chart of an umbrella chart; not used here.",
    }
    return {"$schema": "http://json-schema.org/draft-07/schema#", **schema}


def _clean(node: Any, defs: dict[str, Any]) -> Any:
    if isinstance(node, list):
        return [_clean(n, defs) for n in node]
    if not isinstance(node, dict):
        return node
    if "$ref" in node:
        target = defs[node["$ref"].rsplit("/", 1)[-1]]
        merged = {**target, **{k: v for k, v in node.items() if k != "$ref"}}
        return _clean(merged, defs)
    out = {k: _clean(v, defs) for k, v in node.items() if k not in ("title", "default")}
    # The chart's values.yaml always holds every key of a values section, so a key deleted with
    # null must fail here rather than render "null". Pass-through structs keep their own rules, and
    # so do list items: Helm fills no defaults into them, the templates do (a worker group's
    # `minReplicas | default .replicas`), so only the fields without a default are required.
    if out.get("type") == "object" and "properties" in out and out.get("additionalProperties") is False:
        if node.get("title") not in _PASSTHROUGH | _LIST_ITEMS:
            out["required"] = list(out["properties"])
    return out


_PASSTHROUGH = {"Toleration", "Peer", "LabelSelector", "IpBlock"}
_LIST_ITEMS = {"WorkerGroup"}
