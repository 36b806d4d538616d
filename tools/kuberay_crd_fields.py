"""Writes data/kuberay-crd-fields.json: KubeRay's own RayCluster and RayJob CRD fields per release
(facts/kuberay_crds.py), from ray-operator/config/crd/bases at each tag of a kuberay clone:

    python tools/kuberay_crd_fields.py /path/to/kuberay.git cdk8s/verl_grpo/data/kuberay-crd-fields.json

The tags are the releases of the minors `kuberay.version` allows (facts/kuberay.py VERSION_PATTERN).
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import yaml

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "cdk8s"))

from verl_grpo.facts.kuberay import VERSION_PATTERN  # noqa: E402
from verl_grpo.facts.kuberay_crds import KINDS, own_fields  # noqa: E402


def crds_at(repo: Path, tag: str) -> list[dict]:
    docs = []
    for plural in KINDS.values():
        path = f"{tag}:ray-operator/config/crd/bases/ray.io_{plural}.yaml"
        text = subprocess.run(
            ["git", "-C", str(repo), "show", path], capture_output=True, text=True, check=True
        )
        docs.append(yaml.safe_load(text.stdout))
    return docs


def main(repo: Path, out: Path) -> None:
    tags = subprocess.run(["git", "-C", str(repo), "tag"], capture_output=True, text=True, check=True).stdout
    versions = sorted(
        (t[1:] for t in tags.split() if re.match(VERSION_PATTERN, t[1:] if t.startswith("v") else "")),
        key=lambda v: tuple(map(int, v.split("."))),
    )
    fields: dict[str, list[str]] = {}
    by_version: dict[str, str] = {}
    for version in versions:
        found = sorted(own_fields(crds_at(repo, f"v{version}")))
        key = next((k for k, f in fields.items() if f == found), f"v{version}")
        fields.setdefault(key, found)
        by_version[version] = key
    data = {
        "source": "github.com/ray-project/kuberay ray-operator/config/crd/bases/"
        "ray.io_{rayclusters,rayjobs}.yaml at each tag v<version>; fields keyed by the first release "
        "that has them",
        "versions": by_version,
        "fields": fields,
    }
    out.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")


if __name__ == "__main__":
    main(Path(sys.argv[1]), Path(sys.argv[2]))
