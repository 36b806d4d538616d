"""bashlex, with its LALR tables cached.

bashlex 0.18's vendored PLY builds the parse tables of its bash grammar on every import
(bashlex/parser.py calls yacc.yacc() at module level, and that yacc has no table reading): 0.15 to
0.3 s of every `check`, `plan`, `synth` and `generate`. The tables are a function of the grammar,
so they are cached by it (cache.py: its productions and precedence, plus bashlex's version).
"""

from __future__ import annotations

import importlib.util
import sys
from types import ModuleType

from .. import cache

KIND = "bashlex-lalr"


def import_bashlex() -> ModuleType:
    if "bashlex" in sys.modules:
        return sys.modules["bashlex"]
    spec = importlib.util.find_spec("bashlex")
    assert spec is not None and spec.loader is not None, "bashlex is a dependency (pyproject.toml)"
    package = importlib.util.module_from_spec(spec)
    sys.modules["bashlex"] = package  # its __init__ runs last, once yacc's table class is replaced
    try:
        from bashlex import yacc

        yacc.LRTable = _cached(yacc.LRTable)
        spec.loader.exec_module(package)
    except BaseException:
        for name in [n for n in sys.modules if n == "bashlex" or n.startswith("bashlex.")]:
            del sys.modules[name]
        raise
    return package


def _cached(table: type) -> type:
    class CachedLRTable(table):  # type: ignore[misc, valid-type]
        def __init__(self, grammar, log=None) -> None:  # noqa: ANN001 - PLY's signature
            digest = cache.key(
                [KIND, *map(str, grammar.Productions), repr(sorted(grammar.Precedence.items()))]
            )
            hit = cache.read(KIND, digest)
            if hit is None:
                super().__init__(grammar, log)
                tables = {"action": list(self.lr_action.items()), "goto": list(self.lr_goto.items())}
                cache.write(KIND, digest, tables)
                return
            # What yacc() and LRParser read of a table (bashlex/yacc.py: LRParser.__init__, yacc()).
            self.grammar = grammar
            self.lr_productions = grammar.Productions
            self.lr_action = {state: row for state, row in hit["action"]}
            self.lr_goto = {state: row for state, row in hit["goto"]}
            self.sr_conflicts, self.rr_conflicts = [], []

    return CachedLRTable
