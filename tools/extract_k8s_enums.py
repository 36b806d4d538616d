"""Writes the enum fields of Kubernetes' built-in kinds, from the OpenAPI definitions the API server
serves (k8s.io/kubernetes pkg/generated/openapi/zz_generated.openapi.go, generated from the
`+enum` markers of k8s.io/api):

    python tools/extract_k8s_enums.py .cache/controlplane/gomod/k8s.io/kubernetes@v1.36.3 \\
        cdk8s/verl_grpo/data/kubernetes-enums.json

kubernetes-validate's schemas leave enums out; `verl-grpo validate` adds these (validate/builtin.py).
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

SOURCE = "pkg/generated/openapi/zz_generated.openapi.go"
FUNCTION = re.compile(r"^func (schema_\w+)\(ref common\.ReferenceCallback\)")
PROPERTY = re.compile(r'^(\t+)"([^"]+)": \{$')
ENUM = re.compile(r"^(\t+)Enum: +\[\]interface\{\}\{(.*)\},$")


def openapi_name(function: str) -> str:
    """schema_k8sio_api_core_v1_Container -> io.k8s.api.core.v1.Container: the generator names each
    function after the type's Go package path and name; the API server names the definition after
    the same path with the domain reversed."""
    parts = function.removeprefix("schema_").split("_")
    assert parts[0] == "k8sio", function
    return ".".join(["io", "k8s", *parts[1:]])


def extract(module: Path) -> dict[str, dict[str, list[str]]]:
    lines = (module / SOURCE).read_text().splitlines()
    out: dict[str, dict[str, list[str]]] = {}
    current, keys = "", []  # the definition, and the property keys open at each indent
    for line in lines:
        if m := FUNCTION.match(line):
            current, keys = (openapi_name(m[1]) if m[1].startswith("schema_k8sio_") else ""), []
        elif m := PROPERTY.match(line):
            depth = len(m[1])
            keys = [k for k in keys if k[0] < depth] + [(depth, m[2])]
        elif (m := ENUM.match(line)) and current and keys:
            depth, key = keys[-1]
            if len(m[1]) == depth + 2:  # the property's own enum, not its items'
                out.setdefault(current, {})[key] = json.loads(f"[{m[2]}]")
    return {name: dict(sorted(fields.items())) for name, fields in sorted(out.items())}


def main() -> None:
    module, target = Path(sys.argv[1]), Path(sys.argv[2])
    version = module.name.split("@", 1)[1]
    data = {"source": f"k8s.io/kubernetes@{version} {SOURCE}", "enums": extract(module)}
    target.write_text(json.dumps(data, indent=1) + "\n")


if __name__ == "__main__":
    main()
