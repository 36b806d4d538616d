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
    # A list of worker groups (the chart's shape before they were keyed by name) passes the schema so
    # that the chart's validateValues can say how to convert it (values/worker_groups.py
    # LIST_TEMPLATE); `verl-grpo` says the same before the schema (loader.validate).
    schema["properties"]["workerGroups"]["type"] = ["object", "array"]
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
    # pydantic writes a map with constrained keys as patternProperties, which leaves a key that
    # misses the pattern unchecked: say it of every key (propertyNames) and check every value.
    if "patternProperties" in out:
        ((pattern, item),) = out.pop("patternProperties").items()
        out["propertyNames"] = {**out.get("propertyNames", {}), "pattern": pattern}
        out["additionalProperties"] = item
    # The chart's values.yaml always holds every key of a values section, so a key deleted with
    # null must fail here rather than render "null". Pass-through structs keep their own rules, and
    # so do a map's entries: Helm fills no defaults into a key the chart's values lack, the
    # templates do (a worker group's `minReplicas | default .replicas`), so only the fields
    # without a default are required.
    if out.get("type") == "object" and "properties" in out and out.get("additionalProperties") is False:
        if node.get("title") not in _PASSTHROUGH | _MAP_ENTRIES:
            out["required"] = list(out["properties"])
    return out


_PASSTHROUGH = {"Toleration", "Peer", "LabelSelector", "IpBlock"}
_MAP_ENTRIES = {"WorkerGroup"}
