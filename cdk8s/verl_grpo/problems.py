"""One type for everything the kit refuses or warns about, and its two printers.

Values errors (files, --set, the schema), the kit's cross-field rules, verl's own rules and
manifest validation findings are all a Problem; every verb prints them with `text_line` or
`as_json`, so a script reads one shape whatever stage found the problem.
"""

from __future__ import annotations

import difflib
import json
from collections.abc import Iterable
from dataclasses import asdict, dataclass, replace

# Stages, in the order the pipeline reaches them.
VALUES = "values"  # a values file, --set, or the schema
RULES = "rules"  # the kit's cross-field rules (rules/check.py)
VERL = "verl"  # verl's own rules (verl_check/); `rule` says verl's stage
PLAN = "plan"  # the plan's estimates (plan.py)
VALIDATE = "validate"  # manifest validation (validate/); `rule` names the rule


@dataclass(frozen=True)
class Problem:
    severity: str  # "error" | "warning"
    stage: str  # VALUES, RULES, VERL, PLAN or VALIDATE
    key: str  # values key, verl config key, or the path inside `object`
    message: str
    source: str = ""  # profile, file or document the problem was found in
    object: str = ""  # Kind/namespace/name, for validation findings
    rule: str = ""  # the rule's id: a validation rule, or "verl startup" and the like

    def line(self) -> str:
        """`severity: [source: ][object ][key: ]message[ [rule]]`, on one line."""
        where = " ".join(part for part in (self.object, self.key) if part)
        text = ": ".join(part for part in (self.severity, self.source, where, self.message) if part)
        return one_line(text + (f" [{self.rule}]" if self.rule else ""))

    def at(self, source: str) -> Problem:
        return replace(self, source=source)

    def as_dict(self) -> dict[str, str]:
        return asdict(self)


def error(stage: str, key: str, message: str) -> Problem:
    return Problem("error", stage, key, message)


class Problems(ValueError):
    """Raised with every problem found, never only the first: a user fixes them in one go."""

    def __init__(self, problems: Iterable[Problem]) -> None:
        self.problems = list(problems)
        super().__init__("\n".join(p.line() for p in self.problems))

    def at(self, source: str) -> Problems:
        return Problems(p.at(source) for p in self.problems)


def did_you_mean(word: str, choices: Iterable[str]) -> str:
    """' (did you mean 'x'?)' for the closest of `choices` (difflib's ratio), or ''."""
    close = difflib.get_close_matches(word, list(choices), n=1, cutoff=0.6)
    return f" (did you mean {close[0]!r}?)" if close else ""


def one_line(text: str) -> str:
    """Input can put newlines or control characters into a message: show them escaped."""
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)


def errors(problems: Iterable[Problem]) -> list[Problem]:
    return [p for p in problems if p.severity == "error"]


def as_json(report: object) -> str:
    """Problems anywhere inside `report` (lists, dicts) become their dicts."""
    return json.dumps(report, indent=2, default=lambda p: p.as_dict())
