"""verl-grpo schema: the values' JSON Schema (the chart's values.schema.json)."""

from __future__ import annotations

import argparse
import json


def add(verbs: argparse._SubParsersAction) -> None:
    verbs.add_parser("schema", help="print values.schema.json").set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from ..values.schema import values_schema

    print(json.dumps(values_schema(), indent=2))
    return 0
