"""Two renderings (multi-document YAML, or helm's error text) as sets of objects: prints each
difference by its path and exits 1, or exits 0 when they hold the same objects. A name that ends
in a digest of its spec (RayJob, data-prep Job, PVs, PVCs: constructs/) is compared without it;
the spec that the digest covers is still compared."""

from __future__ import annotations

import re
import sys
from typing import Any

import yaml

DIGEST = re.compile(r"-[0-9a-f]{8}(?=-channel$|$)")


def objects(path: str) -> dict[tuple[str, str], Any] | str:
    text = open(path).read()
    try:
        docs = [d for d in yaml.safe_load_all(text) if isinstance(d, dict)]
    except yaml.YAMLError:
        return text
    if not docs:
        return text  # an error, compared as text
    return {(d["kind"], DIGEST.sub("", d["metadata"]["name"])): d for d in docs}


def differences(a: Any, b: Any, path: str) -> list[str]:
    if isinstance(a, dict) and isinstance(b, dict):
        out = []
        for key in sorted(set(a) | set(b), key=str):
            if key not in a or key not in b:
                out.append(f"{path}/{key}: only in {'before' if key in a else 'after'}")
            else:
                out += differences(a[key], b[key], f"{path}/{key}")
        return out
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        pairs = enumerate(zip(a, b, strict=True))
        return [d for i, (x, y) in pairs for d in differences(x, y, f"{path}[{i}]")]
    if isinstance(a, str) and isinstance(b, str) and DIGEST.sub("", a) == DIGEST.sub("", b):
        return []
    return [] if a == b else [f"{path}: {a!r:.120} -> {b!r:.120}"]


def main() -> int:
    before, after = objects(sys.argv[1]), objects(sys.argv[2])
    found = differences(before, after, "")
    print("\n".join(found))
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
