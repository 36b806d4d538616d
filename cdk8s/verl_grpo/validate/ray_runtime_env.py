"""runtime_env's top-level fields as the pinned Ray knows them: `RuntimeEnv.known_fields` read from
the installed Ray's source (ray/runtime_env/runtime_env.py) without importing Ray (seconds).

Ray passes a field it does not know to its runtime-env plugins (`RuntimeEnv.plugins()`); with no
plugin of that name, the job's runtime env fails to set up on the cluster, after the GPUs are
allocated. A misspelt `env_varz` is refused here instead, with the field it was meant to be.
"""

from __future__ import annotations

import ast
import difflib
import importlib.util
from functools import cache
from pathlib import Path


@cache
def known_fields() -> frozenset[str]:
    spec = importlib.util.find_spec("ray")
    assert spec is not None and spec.origin, "ray is not installed"
    source = Path(spec.origin).parent / "runtime_env" / "runtime_env.py"
    tree = ast.parse(source.read_text())
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef) and node.name == "RuntimeEnv":
            for item in node.body:
                if isinstance(item, ast.AnnAssign) and getattr(item.target, "id", "") == "known_fields":
                    return frozenset(ast.literal_eval(item.value))  # type: ignore[arg-type]
    raise AssertionError(f"RuntimeEnv.known_fields not found in {source}")


def unknown_field_problems(env: dict[str, object]) -> list[tuple[str, str]]:
    """(field, message) for each top-level field Ray does not know."""
    out = []
    for field in env:
        if field not in known_fields():
            close = difflib.get_close_matches(str(field), sorted(known_fields()), n=1)
            hint = f"; did you mean {close[0]!r}?" if close else ""
            allowed = ", ".join(sorted(f for f in known_fields() if not f.startswith("_")))
            out.append((str(field), f"Ray's runtime_env has no field {field!r}{hint} (known: {allowed})"))
    return out
