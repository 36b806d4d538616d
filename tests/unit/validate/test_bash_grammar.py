"""bashlex's parse tables from the cache are the tables bashlex builds itself."""

from __future__ import annotations

import json
import os
import subprocess
import sys

TABLES = """
import json
from verl_grpo.validate.bash_grammar import import_bashlex
parser = import_bashlex().parser.yaccparser
print(json.dumps({"action": sorted(parser.action.items()), "goto": sorted(parser.goto.items())}))
"""
PLAIN = TABLES.replace(
    "from verl_grpo.validate.bash_grammar import import_bashlex\n", "import bashlex\n"
).replace("import_bashlex()", "bashlex")


def tables(script: str, cache_home: str) -> dict:
    env = {**os.environ, "XDG_CACHE_HOME": cache_home}
    done = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, check=True)
    return json.loads(done.stdout)


def test_cached_tables_are_the_ones_bashlex_builds(tmp_path):
    built = tables(PLAIN, str(tmp_path))
    assert built["action"], "bashlex built no table"
    cold = tables(TABLES, str(tmp_path))  # builds and writes the cache
    assert list((tmp_path / "verl-grpo" / "bashlex-lalr").glob("*.json"))
    warm = tables(TABLES, str(tmp_path))  # reads it
    assert cold == built and warm == built
