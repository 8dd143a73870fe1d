"""Safe YAML loading that remembers where every key and value was written.

PyYAML's composer gives a node tree with marks; we construct plain Python values from it
ourselves, so that we can:

* report duplicate keys (PyYAML silently keeps the last one);
* refuse aliases, which make "billion laughs" expansion bombs possible;
* refuse every tag outside YAML's core schema (``!!python/...`` is never constructed);
* bound the nesting depth, so hostile input never reaches a ``RecursionError``;
* keep a ``(path tuple) -> (line, col)`` map used to point validation errors into the file.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import yaml
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

MAX_DEPTH = 32
_CORE_TAGS = {
    "tag:yaml.org,2002:str",
    "tag:yaml.org,2002:int",
    "tag:yaml.org,2002:float",
    "tag:yaml.org,2002:bool",
    "tag:yaml.org,2002:null",
    "tag:yaml.org,2002:timestamp",
    "tag:yaml.org,2002:seq",
    "tag:yaml.org,2002:map",
}

Path = tuple[str | int, ...]


class YamlProblem(Exception):
    """A YAML problem at a 1-based line and column (relative to the YAML text)."""

    def __init__(self, message: str, line: int, col: int) -> None:
        super().__init__(message)
        self.message = message
        self.line = line
        self.col = col


@dataclass
class Positions:
    """Where each value (and each mapping key) starts, as 1-based (line, col)."""

    values: dict[Path, tuple[int, int]] = field(default_factory=dict)
    keys: dict[Path, tuple[int, int]] = field(default_factory=dict)

    def value(self, path: Path) -> tuple[int, int]:
        """Position of the value at ``path``, or of its nearest recorded ancestor."""
        for end in range(len(path), -1, -1):
            found = self.values.get(path[:end])
            if found is not None:
                return found
        return (1, 1)

    def key(self, path: Path) -> tuple[int, int]:
        """Position of the key that introduces ``path`` (falls back to the value's)."""
        return self.keys.get(path) or self.value(path)


class _NoAliasLoader(yaml.SafeLoader):
    def compose_node(self, parent: Node | None, index: Any) -> Node:  # type: ignore[override]
        if self.check_event(yaml.AliasEvent):
            event = self.peek_event()
            raise YamlProblem(
                "YAML aliases (*name) are not allowed in cards",
                event.start_mark.line + 1,
                event.start_mark.column + 1,
            )
        node: Node = super().compose_node(parent, index)  # type: ignore[no-untyped-call]
        return node


def _mark(node: Node) -> tuple[int, int]:
    return (node.start_mark.line + 1, node.start_mark.column + 1)


def load_yaml(text: str) -> tuple[Any, Positions]:
    """Parse one YAML document into plain values and their positions.

    Raises :class:`YamlProblem` for syntax errors, duplicate keys, aliases, unsafe tags and
    excessive nesting.
    """
    loader = _NoAliasLoader(text)
    try:
        node = loader.get_single_node()
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line, col = (mark.line + 1, mark.column + 1) if mark else (1, 1)
        message = exc.problem or str(exc)
        raise YamlProblem(f"YAML syntax error: {message}", line, col) from None
    except yaml.YAMLError as exc:
        raise YamlProblem(f"YAML error: {exc}", 1, 1) from None
    finally:
        loader.dispose()  # type: ignore[no-untyped-call]
    positions = Positions()
    if node is None:
        return None, positions
    value = _construct(node, (), positions, 0, loader)
    return value, positions


def _construct(node: Node, path: Path, positions: Positions, depth: int, loader: Any) -> Any:
    if depth > MAX_DEPTH:
        line, col = _mark(node)
        raise YamlProblem(f"front matter is nested deeper than {MAX_DEPTH} levels", line, col)
    positions.values[path] = _mark(node)
    if node.tag not in _CORE_TAGS:
        line, col = _mark(node)
        raise YamlProblem(f"YAML tag {node.tag!r} is not allowed in cards", line, col)
    if isinstance(node, MappingNode):
        result: dict[Any, Any] = {}
        for key_node, value_node in node.value:
            key = _construct(key_node, path + ("<key>",), positions, depth + 1, loader)
            if isinstance(key, (list, dict)):
                line, col = _mark(key_node)
                raise YamlProblem("a mapping key must be a plain value", line, col)
            if key in result:
                line, col = _mark(key_node)
                raise YamlProblem(f"duplicate key {key!r}", line, col)
            child = path + (key,)
            positions.keys[child] = _mark(key_node)
            result[key] = _construct(value_node, child, positions, depth + 1, loader)
        positions.values.pop(path + ("<key>",), None)
        return result
    if isinstance(node, SequenceNode):
        return [
            _construct(item, path + (index,), positions, depth + 1, loader)
            for index, item in enumerate(node.value)
        ]
    if isinstance(node, ScalarNode):
        return _scalar(node, loader)
    line, col = _mark(node)
    raise YamlProblem("unsupported YAML node", line, col)


def _scalar(node: ScalarNode, loader: Any) -> Any:
    try:
        return loader.construct_object(node, deep=True)
    except (ValueError, yaml.YAMLError) as exc:
        if node.tag == "tag:yaml.org,2002:timestamp":
            return node.value  # left as text, so validation can say "bad date"
        line, col = _mark(node)
        raise YamlProblem(f"bad YAML value: {exc}", line, col) from None
