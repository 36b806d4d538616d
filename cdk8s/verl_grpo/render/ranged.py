"""Objects that differ only in their index (the 8 RDMA networks) as one template with a `range`,
as a Helm author writes them, instead of one file per object."""

from __future__ import annotations

import re

from ..values.expressions import from_root
from .templates import LITERAL

INDEX = "\x00INDEX\x00"
ACTION = re.compile(r"\{\{.*?\}\}")


def numbered(keys: list[str]) -> dict[str, list[str]]:
    """`<base>-0`, `<base>-1`, ... (two or more, from 0 without gaps): base -> keys in order."""
    groups: dict[str, dict[int, str]] = {}
    for key in keys:
        if found := re.fullmatch(r"(.+)-(\d+)", key):
            groups.setdefault(found[1], {})[int(found[2])] = key
    return {
        base: [members[i] for i in range(len(members))]
        for base, members in groups.items()
        if len(members) > 1 and sorted(members) == list(range(len(members)))
    }


def ranged(bodies: list[str]) -> str | None:
    """One template for `bodies`, body i being the template of index i, or None when they differ
    in anything but their index."""
    split = [re.split(r"(\d+)", body) for body in bodies]
    if len({len(parts) for parts in split}) != 1:
        return None
    text = ""
    for at, pieces in enumerate(zip(*split, strict=True)):
        if len(set(pieces)) == 1:
            text += pieces[0]
        elif at % 2 and all(p == str(i) for i, p in enumerate(pieces)):
            text += INDEX
        else:
            return None
    if INDEX not in text:
        return None
    text = ACTION.sub(_index_in_action, text).replace(INDEX, "{{ $i }}")
    text = from_root(text)  # inside `range`, `.` is the index, the root is `$`
    return f"{{{{- range $i := until {len(bodies)} }}}}\n---\n{text}{{{{- end }}}}\n"


def _index_in_action(action: re.Match[str]) -> str:
    """`"-rdma-<i>"` inside `{{ list ... | join "" }}` -> `"-rdma-" $i`."""
    text = action[0]
    if INDEX not in text:
        return text
    assert text.startswith("{{ list ") and '| join ""' in text, f"an index outside a joined list: {text}"

    def split(literal: re.Match[str]) -> str:
        if INDEX not in literal[0]:
            return literal[0]
        parts = literal[0][1:-1].split(INDEX)
        items = [f'"{p}"' if p else "" for p in parts]
        return " $i ".join(items).strip()

    return LITERAL.sub(split, text)
