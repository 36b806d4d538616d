"""Name a failed run's cause from its log lines, with the line that shows it, or say unknown."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from .causes import CAUSES, ERROR_LINE, Cause

# What Ray puts around a worker's lines when it forwards them (`(WorkerDict pid=123, ip=10.0.0.2) `,
# `(raylet) `), its repeat counter, and colour codes as they survive copy and paste.
RAY_PREFIX = re.compile(
    r"^(\x1b\[\d+m|\^\[\[\d+m|\[\d+m)*\((?:raylet|[\w.:-]+ pid=\d+[^)]*)\)(\x1b\[\d+m|\[\d+m)* ?"
)
REPEATED = re.compile(r" \[repeated \d+x across cluster\]$")
ANSI = re.compile(r"\x1b\[[0-9;]*m|\^\[\[[0-9;]*m")
SHOWN_ERRORS = 5
WIDEST = 300  # a quoted line is cut here (an OOM message runs to 500 characters)
EVIDENCE = 3
# A line that states a failure (an exception, a warning event, a status) rather than quoting code.
STATEMENT = re.compile(r"^\s*[\w.]*(Error|Exception)\b|\bWarning\b|\bFailed\b|Reason:|Message:")


def normalise(line: str) -> str:
    line = ANSI.sub("", line.rstrip("\n"))
    line = REPEATED.sub("", line)
    while (m := RAY_PREFIX.match(line)) is not None and m.end() > 0:
        line = line[m.end() :]
    return line


def cut(line: str, pattern: re.Pattern[str] | None = None) -> str:
    """The line, or a window of it around what `pattern` found there."""
    line = line.strip()
    if len(line) <= WIDEST:
        return line
    found = pattern.search(line) if pattern else None
    start = max(0, min(found.start() - WIDEST // 3, len(line) - WIDEST)) if found else 0
    return ("…" if start else "") + line[start : start + WIDEST] + ("…" if start + WIDEST < len(line) else "")


@dataclass
class Finding:
    cause: Cause
    evidence: list[str]  # "source: line", the lines that show it; the fix's own line first
    fix: str


@dataclass
class Verdict:
    findings: list[Finding] = field(default_factory=list)  # the cause first, then what else showed
    errors: list[str] = field(default_factory=list)  # when unknown: the first error lines

    @property
    def cause(self) -> str:
        return self.findings[0].cause.id if self.findings else "unknown"


def classify(texts: dict[str, str]) -> Verdict:
    """`texts`: where each text comes from (a log file, the events, the RayJob status) -> its text."""
    lines = [(source, normalise(line)) for source, text in texts.items() for line in text.splitlines()]
    whole = "\n".join(line for _, line in lines)
    findings = []
    for cause in CAUSES:
        matcher = cause.matcher()
        paired = [re.compile(line) for line, context in cause.paired if re.search(context, whole)]
        if paired:
            matcher = re.compile("|".join([matcher.pattern, *(p.pattern for p in paired)]))
        hits = [(s, line, matcher) for s, line in lines if matcher.search(line)]
        if not hits:
            continue
        fix, first = cause.fix, []
        for pattern, refined in cause.refinements:
            found = re.compile(pattern)
            shown = [(s, line, found) for s, line in lines if found.search(line)]
            if shown:
                fix, first = refined, shown[:1]
                break
        ranked = sorted(hits, key=lambda hit: not STATEMENT.search(hit[1]))  # stable: in order
        evidence = list(dict.fromkeys(f"{s}: {cut(line, p)}" for s, line, p in first + ranked))
        findings.append(Finding(cause, evidence[:EVIDENCE], fix))
    if findings:
        return Verdict(findings)
    errors = [f"{s}: {cut(line)}" for s, line in lines if ERROR_LINE.search(line)][:SHOWN_ERRORS]
    return Verdict([], errors)


def report(verdict: Verdict) -> list[str]:
    if not verdict.findings:
        return [
            "cause: unknown (no known failure pattern in the logs, events or status)",
            *(
                ["first error lines:", *(f"  {e}" for e in verdict.errors)]
                if verdict.errors
                else ["no error lines"]
            ),
        ]
    first, *others = verdict.findings
    lines = [f"cause: {first.cause.id}: {first.cause.title}", "evidence:"]
    lines += [f"  {e}" for e in first.evidence]
    lines.append(f"fix: {first.fix}")
    if others:
        lines.append("also seen (often a consequence of the cause):")
        lines += [f"  {f.cause.id}: {f.evidence[0]}" for f in others]
    return lines
