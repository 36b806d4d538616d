"""What a shell does with a command line, read by a real bash grammar (bashlex).

KubeRay's K8sJobMode submitter pastes a RayJob's entrypoint unquoted into a `bash -ce` string
after `ray job submit ... --` (ray-operator/controllers/ray/common/job.go, v1.4-v1.7): anything
in it that bash treats as more than one simple command (`&&`, `;`, `|`, `$(...)`, redirections,
newlines outside a line continuation) ends the submit early and runs the rest in the submitter pod.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field

from .bash_grammar import import_bashlex

bashlex = import_bashlex()

# Node kinds that mean "more than one plain command".
SPLITTING = {
    "operator": "a shell operator",
    "pipe": "a pipe",
    "commandsubstitution": "a command substitution",
    "processsubstitution": "a process substitution",
    "redirect": "a redirection",
    "compound": "a compound command",
    "if": "an if",
    "for": "a for loop",
    "while": "a while loop",
    "until": "an until loop",
    "function": "a function definition",
}


@dataclass
class Parsed:
    commands: list[list[str]] = field(default_factory=list)  # every simple command, as its words
    splitting: list[str] = field(default_factory=list)  # what makes it more than one command
    error: str = ""


class _Visitor(bashlex.ast.nodevisitor):
    def __init__(self, parsed: Parsed) -> None:
        self.parsed = parsed

    def visitcommand(self, node, parts) -> None:  # noqa: ANN001 - bashlex's API
        self.parsed.commands.append([p.word for p in parts if p.kind == "word"])

    def visitnode(self, node) -> None:  # noqa: ANN001
        kind = node.kind
        if kind == "operator" and node.op == "\n":
            return
        if kind in SPLITTING:
            what = SPLITTING[kind]
            self.parsed.splitting.append(f"{what} ({node.op})" if kind == "operator" else what)


def parse(text: str) -> Parsed:
    parsed = Parsed()
    try:
        trees = bashlex.parse(text)
    except (bashlex.errors.ParsingError, NotImplementedError) as e:
        parsed.error = str(e)
        return parsed
    if len(trees) > 1:
        parsed.splitting.append(f"{len(trees)} lines")
    for tree in trees:
        _Visitor(parsed).visit(tree)
    return parsed


@functools.lru_cache(maxsize=256)
def one_command_problems(text: str) -> tuple[str, ...]:
    """Why `text` would not stay one command after `ray job submit ... --` (empty: it would).
    Kept per text: every profile has the same entrypoint, and bashlex reads 2 kB in ~10 ms."""
    parsed = parse(text)
    if parsed.error:
        return (f"is not valid shell ({parsed.error})",)
    if parsed.splitting or len(parsed.commands) != 1:
        found = ", ".join(dict.fromkeys(parsed.splitting)) or f"{len(parsed.commands)} commands"
        return (
            f"is not one command ({found}): KubeRay's submitter runs `ray job submit -- <entrypoint>` "
            "in bash, so the rest runs in the submitter pod; use one script that execs the last step",
        )
    return ()
