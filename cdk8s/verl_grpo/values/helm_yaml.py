"""YAML for values files, read and written the way Helm reads them.

Helm parses values with go-yaml, which takes `1e-5` for a float; PyYAML (YAML 1.1) takes it for a
string. Teaching PyYAML go-yaml's float form keeps `verl-grpo synth -f` and `helm -f` on the same
types, and makes the dumper quote strings go-yaml would otherwise read as numbers.
"""

from __future__ import annotations

import re
from typing import Any

import yaml

_GO_FLOAT = re.compile(r"^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)$")

_BaseLoader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_BaseDumper = getattr(yaml, "CSafeDumper", yaml.SafeDumper)


class HelmValuesLoader(_BaseLoader):  # type: ignore[misc,valid-type]
    pass


class HelmValuesDumper(_BaseDumper):  # type: ignore[misc,valid-type]
    pass


for _cls in (HelmValuesLoader, HelmValuesDumper):
    _cls.add_implicit_resolver("tag:yaml.org,2002:float", _GO_FLOAT, list("-+.0123456789"))


def load_values_yaml(text: str) -> Any:
    return yaml.load(text, Loader=HelmValuesLoader)


def dump_values_yaml(data: Any) -> str:
    return yaml.dump(data, Dumper=HelmValuesDumper, sort_keys=False, width=10_000)


def scalar(value: Any) -> str:
    """One value in flow style, for a line of a commented values.yaml."""
    text = yaml.dump(value, Dumper=HelmValuesDumper, default_flow_style=True, width=10_000)
    return text.removesuffix("\n...\n").strip()
