"""A chart-mode object as Helm template text: markers become actions, the decisions constructs
stated (values/decisions.py Decisions) become `if`/`else` blocks and `range`s, at the place they were made."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import yaml

from ..values.decisions import CHOICE, EACH, GATE, ITEM, MARKER, NAMED, ChartTable
from ..yaml_io import ManifestDumper


@dataclass(frozen=True)
class Action:
    """A scalar the template computes: the text of one `{{ ... }}` action."""

    text: str


@dataclass(frozen=True)
class GatedKey:
    """A mapping key present only when `condition` holds (Decisions.when)."""

    condition: str
    key: str


@dataclass(frozen=True)
class GatedItem:
    """A list item present only when `condition` holds (Decisions.listed)."""

    condition: str
    item: Any


@dataclass(frozen=True)
class Variants:
    """A value chosen by conditions (Decisions.choose): (condition, value) pairs, the last one's
    condition None (the `else`)."""

    choices: tuple[tuple[str | None, Any], ...]


@dataclass(frozen=True)
class Named:
    """A subtree kept in the named template `define` (Decisions.named), included where it was."""

    define: str
    body: Any


@dataclass(frozen=True)
class Ranged:
    """A list of one item per worker group, each rendered by the named template `define`."""

    define: str
    body: Any


def to_tree(node: Any, table: ChartTable) -> Any:
    """An object from chart mode, its markers turned into the nodes above."""
    if isinstance(node, dict):
        out: dict[Any, Any] = {}
        for key, value in node.items():
            if gate := GATE.match(str(key)):
                key = GatedKey(table.gates[int(gate[1])], key[gate.end() :])
            else:
                assert not MARKER.search(str(key)) and "{{" not in str(key), f"template in a key: {key}"
            out[key] = to_tree(value, table)
        return out
    if isinstance(node, list):
        return [_item(v, table) for v in node]
    if isinstance(node, str) and (choice := CHOICE.fullmatch(node)):
        return _variants(int(choice[1]), table)
    if isinstance(node, str) and (named := NAMED.fullmatch(node)):
        kept = table.named[int(named[1])]
        return Named(kept.define, to_tree(kept.body, table))
    if isinstance(node, str) and (each := EACH.fullmatch(node)):
        ranged = table.eaches[int(each[1])]
        return Ranged(ranged.define, to_tree(ranged.body, table))
    if isinstance(node, str) and (MARKER.search(node) or "{{" in node or "}}" in node):
        return Action(action(node, table))
    return node


def _item(node: Any, table: ChartTable) -> Any:
    if isinstance(node, dict) and len(node) == 1:
        ((key, value),) = node.items()
        if (gate := GATE.match(str(key))) and key[gate.end() :] == ITEM:
            return GatedItem(table.gates[int(gate[1])], to_tree(value, table))
    return to_tree(node, table)


def _variants(index: int, table: ChartTable) -> Variants:
    """A choice and the choices nested in its `otherwise`, as one if / else if / else chain."""
    choices: list[tuple[str | None, Any]] = []
    while True:
        choice = table.choices[index]
        choices.append((choice.condition, to_tree(choice.then, table)))
        nested = CHOICE.fullmatch(choice.otherwise) if isinstance(choice.otherwise, str) else None
        if nested is None:
            choices.append((None, to_tree(choice.otherwise, table)))
            return Variants(tuple(choices))
        index = int(nested[1])


def atom(go: str) -> str:
    """An expression usable as one argument: parenthesized unless it is one word."""
    return go if " " not in go or (go.startswith("(") and _closes_at_end(go)) else f"({go})"


def _closes_at_end(go: str) -> bool:
    depth, quoted = 0, False
    for i, char in enumerate(go):
        if char == '"' and (i == 0 or go[i - 1] != "\\"):
            quoted = not quoted
        elif not quoted and char in "()":
            depth += 1 if char == "(" else -1
            if depth == 0 and i < len(go) - 1:
                return False
    return True


def action(value: str, table: ChartTable) -> str:
    """A string with markers as one action: the marker's expression, or `printf` of the text (of
    each line, for a long text of several)."""
    whole = table.lookup(value)
    if whole is not None:
        return f"{{{{ {whole.go} | toJson }}}}"
    if len(value) > WIDTH:  # a piece per line, and per few words of a long line
        pieces = [piece for line in value.splitlines(True) for piece in _pieces(line)]
        parts = [_printf(p, table) if MARKER.search(p) else json.dumps(p, ensure_ascii=False) for p in pieces]
        return f"{{{{ print {' '.join(atom(part) for part in parts)} | toJson }}}}"
    return f"{{{{ {_printf(value, table)} | toJson }}}}"


def _pieces(line: str, width: int = 80) -> list[str]:
    """A line cut after spaces into pieces of about `width` characters (markers stay whole)."""
    pieces = [""]
    for word in line.split(" "):
        if pieces[-1] and len(pieces[-1]) + len(word) > width:
            pieces.append("")
        pieces[-1] += word + " "
    pieces[-1] = pieces[-1][:-1]
    return [p for p in pieces if p]


def _printf(value: str, table: ChartTable) -> str:
    fmt, args = "", []
    for i, piece in enumerate(MARKER.split(value)):
        if i % 2 == 0:
            fmt += piece.replace("%", "%%")
        else:
            expr = table.exprs[int(piece)]
            # %v: a string as it is, a number as Go formats it (as Sprig's join did).
            fmt += "%v" if expr.kind == "str" else "%s"
            args.append(atom(expr.go) if expr.kind == "str" else f"({expr.go} | toJson)")
    return f"printf {json.dumps(fmt, ensure_ascii=False)} {' '.join(args)}".rstrip()


def render_tree(tree: Any, defines: dict[str, Any] | None = None) -> str:
    """YAML text of a tree, as the YAML dumper lays it out (lists at their key's indent), with
    Actions as `{{ ... }}`, GatedKeys, GatedItems and Variants as `if` blocks around their lines,
    and Ranged as a `range` over the worker groups whose body goes to `defines`."""
    return "\n".join(_Emitter(defines)._mapping(tree, 0)) + "\n"


@dataclass
class _Emitter:
    defines: dict[str, Any] | None

    def _mapping(self, node: dict[Any, Any], depth: int) -> list[str]:
        pad, lines = " " * depth, list[str]()
        previous: str | None = None  # the condition of an `if` the last entry closed
        for key, value in node.items():
            if isinstance(key, GatedKey):
                if key.condition == previous:  # the same condition as the key before: one block
                    lines.pop()
                else:
                    lines.append(f"{pad}{{{{- if {key.condition} }}}}")
                lines += [*self._entry(key.key, value, depth), f"{pad}{{{{- end }}}}"]
                previous = key.condition
                continue
            previous = None
            if isinstance(value, Variants):
                for i, (cond, choice) in enumerate(value.choices):
                    opener = "else" if cond is None else f"{'else if' if i else 'if'} {cond}"
                    lines += [f"{pad}{{{{- {opener} }}}}", *self._entry(key, choice, depth)]
                lines.append(f"{pad}{{{{- end }}}}")
            else:
                lines += self._entry(key, value, depth)
        return lines

    def _entry(self, key: str, value: Any, depth: int) -> list[str]:
        head = f"{' ' * depth}{_scalar(key, depth)}:"
        if isinstance(value, dict) and value:
            return [head, *self._mapping(value, depth + 2)]
        if isinstance(value, list) and value:
            return [head, *self._sequence(value, depth)]
        if isinstance(value, Named):
            assert self.defines is not None, "a named template outside an object"
            self.defines[value.define] = value.body
            include = f'include "{value.define}" . | trimPrefix "\\n" | nindent {depth + 2}'
            return [head, f"{' ' * (depth + 2)}{{{{- {include} }}}}"]
        if isinstance(value, Ranged):
            assert self.defines is not None, "a range outside an object"
            self.defines[value.define] = value.body
            return [range_block(" " * depth, key, value.define)]
        return [f"{head} {self._value(value, depth)}"]

    def _sequence(self, items: list[Any], depth: int) -> list[str]:
        pad, lines = " " * depth, []
        for item in items:
            if isinstance(item, GatedItem):
                lines += [
                    f"{pad}{{{{- if {item.condition} }}}}",
                    *self._item(item.item, depth),
                    f"{pad}{{{{- end }}}}",
                ]
            else:
                lines += self._item(item, depth)
        return lines

    def _item(self, item: Any, depth: int) -> list[str]:
        pad = " " * depth
        if isinstance(item, dict) and item:
            first, *rest = self._mapping(item, depth + 2)
            assert first.startswith(pad + "  ") and not first.lstrip().startswith("{{"), (
                f"a decision on the first key of a list item: {first}"
            )
            return [f"{pad}- {first[depth + 2 :]}", *rest]
        if isinstance(item, list) and item:
            first, *rest = self._sequence(item, depth + 2)
            return [f"{pad}- {first[depth + 2 :]}", *rest]
        return [f"{pad}- {self._value(item, depth)}"]

    @staticmethod
    def _value(value: Any, depth: int) -> str:
        if isinstance(value, Action):
            return value.text
        assert not isinstance(value, (GatedItem, Variants, Ranged)), (
            f"a decision where a value belongs: {value}"
        )
        return _scalar(value, depth)


def _scalar(value: Any, depth: int) -> str:
    """A scalar (or an empty mapping or list) as the dumper writes it; a block scalar's lines
    indented under its key."""
    # A long plain string folds over lines (YAML joins them with a space, as it was).
    text = yaml.dump(
        value, Dumper=ManifestDumper, sort_keys=False, width=max(60, WIDTH - depth - 30), allow_unicode=True
    )
    text = text.removesuffix("\n...\n").removesuffix("\n")
    first, *rest = text.split("\n")
    return "\n".join([first, *(" " * depth + line if line else line for line in rest)])


def range_block(indent: str, key: str, define: str) -> str:
    """`key:` then one item per worker group, each the named template given the group's view."""
    from ..values.worker_groups import WORKER_GROUPS

    include = f'include "{define}" (dict "Values" $.Values "Release" $.Release "group" $group)'
    return (
        f"{indent}{key}:\n"
        f'{indent}{{{{- range $group := include "{WORKER_GROUPS.name}" . | fromJsonArray }}}}\n'
        f'{indent}- {{{{- {include} | trimPrefix "\\n" | nindent {len(indent) + 2} }}}}\n'
        f"{indent}{{{{- end }}}}"
    )


# Template lines are kept within this width where an action can be broken (Go templates allow
# newlines inside an action): a long action's arguments go one per line, indented under it.
WIDTH = 160


def wrap_long_lines(text: str) -> str:
    return "\n".join(_wrapped(line) if len(line) > WIDTH else line for line in text.split("\n"))


def _wrapped(line: str) -> str:
    out, at = [], 0
    indent = " " * (len(line) - len(line.lstrip()) + 4)
    for start, end in _actions(line):
        out.append(line[at:start])
        body = line[start + 2 : end - 2]
        left = "-" if body.startswith("-") else ""
        right = "-" if body.endswith("-") else ""
        inner = body[len(left) : len(body) - len(right)].strip()
        room = WIDTH - len("".join(out)) - 6  # what the action's first line leaves inside `{{ }}`
        laid = _layout(_group(_tokens(inner)), indent, room)
        out.append(f"{{{{{left} {laid} {right}}}}}".replace("  }}", " }}"))
        at = end
    out.append(line[at:])
    return "".join(out)


def _actions(line: str) -> list[tuple[int, int]]:
    """(start, end) of each `{{ ... }}` in a line, string literals respected."""
    spans, i = [], 0
    while (start := line.find("{{", i)) >= 0:
        j = start + 2
        while j < len(line) and not line.startswith("}}", j):
            j = _past_literal(line, j) if line[j] == '"' else j + 1
        spans.append((start, j + 2))
        i = j + 2
    return spans


def _past_literal(text: str, i: int) -> int:
    """The index after the Go string literal that starts at text[i] (a quote)."""
    j = i + 1
    while j < len(text) and text[j] != '"':
        j += 2 if text[j] == "\\" else 1
    return j + 1


def _tokens(body: str) -> list[str]:
    tokens, i = [], 0
    while i < len(body):
        char = body[i]
        if char == " " or char == "\n":
            i += 1
        elif char in "()":
            tokens.append(char)
            i += 1
        else:
            j = i
            while j < len(body) and body[j] not in " ()\n":
                j = _past_literal(body, j) if body[j] == '"' else j + 1
            tokens.append(body[i:j])
            i = j
    return tokens


def _group(tokens: list[str]) -> list[Any]:
    stack: list[list[Any]] = [[]]
    for token in tokens:
        if token == "(":
            stack.append([])
        elif token == ")":
            inner = stack.pop()
            stack[-1].append(inner)
        else:
            stack[-1].append(token)
    return stack[0]


def _flat(item: Any) -> str:
    return "(" + " ".join(_flat(i) for i in item) + ")" if isinstance(item, list) else item


def _layout(items: list[Any], indent: str, room: int | None = None) -> str:
    """Items on one line when they fit (in `room`, else the width left after `indent`), else the
    first and each further one on a line of its own; `| fn` stays one item."""
    items = _piped(items)
    one = " ".join(_flat(i) for i in items)
    room = WIDTH - len(indent) - 3 if room is None else room  # 3: a closing ` }}` after it
    if len(one) <= room or (len(items) == 1 and not isinstance(items[0], list)):
        return one
    if len(items) == 1:
        return f"({_layout(items[0], indent, room - 1)})"
    first = _nested(items[0], indent + "  ", room)
    return first + "".join(f"\n{indent}{_nested(i, indent + '  ')}" for i in items[1:])


def _nested(item: Any, indent: str, room: int | None = None) -> str:
    if isinstance(item, list):
        return f"({_layout(item, indent, None if room is None else room - 1)})"
    return item


def _piped(items: list[Any]) -> list[Any]:
    out: list[Any] = []
    for item in items:
        if out and out[-1] == "|":
            out[-1] = f"| {_flat(item)}"
        else:
            out.append(item)
    return out
