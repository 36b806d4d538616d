"""YAML for values files, read and written the way Helm reads them.

Helm parses values with go-yaml v2, which takes `1e-5` and `08` for numbers and `y`/`n` for booleans;
PyYAML takes all three for strings. Teaching PyYAML go-yaml's forms keeps `verl-grpo synth -f`
and `helm -f` on the same types, and makes the dumper quote strings go-yaml would misread.
"""

from __future__ import annotations

import re
from typing import Any

import yaml

# go-yaml's yamlStyleFloat: also "08" and "1e5", which PyYAML keeps as strings. go-yaml drops
# every "_" from a plain scalar that starts like a number before it tries int and float (resolve.go,
# gopkg.in/yaml.v2), so "0_8" is the number 8 there: underscores are allowed after the first digit.
_GO_FLOAT = re.compile(r"^[-+]?(\.[0-9][0-9_]*|[0-9][0-9_]*(\.[0-9_]*)?)([eE][-+]?[0-9][0-9_]*)?$")
_GO_BOOL = re.compile(r"^(y|Y|n|N)$")

_BaseLoader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_BaseDumper = getattr(yaml, "CSafeDumper", yaml.SafeDumper)


class HelmValuesLoader(_BaseLoader):  # type: ignore[misc,valid-type]
    pass


class HelmValuesDumper(_BaseDumper):  # type: ignore[misc,valid-type]
    pass


for _cls in (HelmValuesLoader, HelmValuesDumper):
    _cls.add_implicit_resolver("tag:yaml.org,2002:float", _GO_FLOAT, list("-+.0123456789"))
    _cls.add_implicit_resolver("tag:yaml.org,2002:bool", _GO_BOOL, list("yYnN"))
HelmValuesLoader.bool_values = {**HelmValuesLoader.bool_values, "y": True, "n": False}


def dump_values_yaml(data: Any) -> str:
    return yaml.dump(data, Dumper=HelmValuesDumper, sort_keys=False, width=10_000)


def scalar(value: Any) -> str:
    """One value in flow style, for a line of a commented values.yaml."""
    text = yaml.dump(value, Dumper=HelmValuesDumper, default_flow_style=True, width=10_000)
    return text.removesuffix("\n...\n").strip()
