"""YAML in and out: the C loader/dumper where available, block style for multi-line strings."""

from __future__ import annotations

from typing import Any

import yaml

_Dumper = getattr(yaml, "CSafeDumper", yaml.SafeDumper)
_Loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class ManifestDumper(_Dumper):  # type: ignore[misc,valid-type]
    pass


def _str(dumper: yaml.SafeDumper, value: str) -> yaml.Node:
    style = "|" if "\n" in value else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)


ManifestDumper.add_representer(str, _str)


def dump(doc: Any) -> str:
    return yaml.dump(doc, Dumper=ManifestDumper, sort_keys=False, width=10_000, allow_unicode=True)


def dump_all(docs: list[Any]) -> str:
    return yaml.dump_all(docs, Dumper=ManifestDumper, sort_keys=False, width=10_000, allow_unicode=True)


def load(text: str) -> Any:
    return yaml.load(text, Loader=_Loader)


def load_all(text: str) -> list[Any]:
    return [d for d in yaml.load_all(text, Loader=_Loader) if d is not None]


class TooLarge(ValueError):
    pass


MAX_NODES = 200_000


def load_all_limited(text: str, loader: type = _Loader, max_nodes: int = MAX_NODES) -> list[Any]:
    """Like load_all, for untrusted input: refuses alias bombs and absurd nesting with TooLarge."""
    docs = []
    stream = loader(text)
    try:
        while stream.check_node():
            node = stream.get_node()
            _count(node, max_nodes)
            doc = stream.construct_document(node)
            if doc is not None:
                docs.append(doc)
    except RecursionError as e:
        raise TooLarge("nested too deeply") from e
    finally:
        stream.dispose()
    return docs


def _count(root: yaml.Node, limit: int) -> None:
    """Nodes as constructed, aliases expanded: what the document costs once loaded."""
    seen, stack = 0, [root]
    while stack:
        node = stack.pop()
        seen += 1
        if seen > limit:
            raise TooLarge(f"more than {limit} values once aliases are expanded")
        if isinstance(node, yaml.SequenceNode):
            stack.extend(node.value)
        elif isinstance(node, yaml.MappingNode):
            for key, value in node.value:
                stack.extend((key, value))
