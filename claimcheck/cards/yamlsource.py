"""Safe YAML loading that remembers where every key and value was written.

PyYAML's composer gives a node tree with marks; we construct plain Python values from it
ourselves, so that we can:

* report duplicate keys (PyYAML silently keeps the last one);
* refuse aliases, which make "billion laughs" expansion bombs possible;
* refuse every tag outside YAML's core schema (``!!python/...`` is never constructed);
* bound the nesting depth, so hostile input never reaches a ``RecursionError``;
* keep a ``(path tuple) -> (line, col)`` map used to point validation errors into the file.

That map is built lazily: most cards load cleanly and are never pointed into, and recording the
mark of every value costs more than composing the document. :class:`Positions` keeps the text
and composes it again (libyaml, in C) the first time a position is asked for; the text has
passed every check above by then, so the second pass cannot fail.
"""

from __future__ import annotations

from collections.abc import Iterator
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

_STR = "tag:yaml.org,2002:str"
Path = tuple[str | int, ...]
_Maps = tuple[dict[Path, tuple[int, int]], dict[Path, tuple[int, int]], dict[Path, str]]


class YamlProblem(Exception):
    """A YAML problem at a 1-based line and column (relative to the YAML text)."""

    def __init__(self, message: str, line: int, col: int) -> None:
        super().__init__(message)
        self.message = message
        self.line = line
        self.col = col


class Positions:
    """Where each value (and each mapping key) starts, as 1-based file (line, col).

    Built from the YAML text on first use (see the module docstring); ``Positions()`` is the
    empty map of an empty document.
    """

    def __init__(self, text: str = "", shift: int = 0) -> None:
        self._text = text
        self._shift = shift
        self._maps: _Maps | None = None

    def _located(self) -> _Maps:
        if self._maps is None:
            values: dict[Path, tuple[int, int]] = {}
            keys: dict[Path, tuple[int, int]] = {}
            raw: dict[Path, str] = {}
            if self._text:
                loader = _Loader(self._text)
                try:
                    node = loader.get_single_node()
                    if node is not None:
                        _Builder(loader, self._shift, values, keys, raw).build(node, 0, ())
                finally:
                    loader.dispose()
            self._maps = (values, keys, raw)
        return self._maps

    @property
    def values(self) -> dict[Path, tuple[int, int]]:
        """Position of every value, by its path from the document's root."""
        return self._located()[0]

    @property
    def keys(self) -> dict[Path, tuple[int, int]]:
        """Position of every mapping key, by the path of the value it introduces."""
        return self._located()[1]

    def value(self, path: Path) -> tuple[int, int]:
        """Position of the value at ``path``, or of its nearest recorded ancestor."""
        values = self.values
        for end in range(len(path), -1, -1):
            found = values.get(path[:end])
            if found is not None:
                return found
        return (1, 1)

    def key(self, path: Path) -> tuple[int, int]:
        """Position of the key that introduces ``path`` (falls back to the value's)."""
        return self.keys.get(path) or self.value(path)

    def written(self, path: Path) -> str | None:
        """The text of the unquoted scalar at ``path`` as written, when YAML read it as
        something other than a string (``1712.03480``, read as the float 1712.0348)."""
        return self._located()[2].get(path)


_Loader: type[yaml.SafeLoader] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def _libyaml_caps_depth() -> bool:
    """Whether the composer is libyaml 0.2.5 or later, which refuses nesting deeper than 1,000
    levels, so that composing can never overflow the C stack (older ones recurse without end)."""
    if _Loader is yaml.SafeLoader:
        return False
    try:
        from yaml import _yaml

        return tuple(_yaml.get_version()) >= (0, 2, 5)
    except (ImportError, AttributeError):
        return False


_BOUNDED_COMPOSER = _libyaml_caps_depth()
"""When true, a text without ``*`` (so without an alias) is composed in one pass: the builder
bounds the depth. Otherwise an event pass refuses aliases and deep nesting first."""


def load_yaml(text: str, first_line: int = 1) -> tuple[Any, Positions]:
    """Parse one YAML document into plain values and their positions.

    ``first_line`` is the file line of the YAML text's first line, so that every reported line
    (in positions and in messages) is a line of the file.

    Raises :class:`YamlProblem` for syntax errors, duplicate keys, aliases, unsafe tags and
    excessive nesting.
    """
    shift = first_line - 1
    loader = _Loader(text)
    try:
        if "*" in text or not _BOUNDED_COMPOSER:  # an alias, or a composer without a depth cap
            _check_events(loader, shift)
            loader.dispose()
            loader = _Loader(text)
        node = loader.get_single_node()
    except yaml.MarkedYAMLError as exc:
        problem_mark = exc.problem_mark or exc.context_mark
        line, col = _at(problem_mark, shift) if problem_mark else (first_line, 1)
        message = exc.problem or str(exc)
        if "maximum nesting depth" in message:  # newer libyaml refuses deep nesting itself
            raise YamlProblem(
                f"front matter is nested deeper than {MAX_DEPTH} levels", line, col
            ) from None
        if exc.context and exc.context_mark and exc.context_mark is not problem_mark:
            message += f" ({exc.context} started at line {exc.context_mark.line + 1 + shift})"
        raise YamlProblem(f"YAML syntax error: {message}", line, col) from None
    except yaml.reader.ReaderError as exc:
        line = text.count("\n", 0, exc.position) + first_line
        col = exc.position - (text.rfind("\n", 0, exc.position) + 1) + 1
        raise YamlProblem(
            f"character {exc.character!r} is not allowed in YAML", line, col
        ) from None
    except yaml.YAMLError as exc:
        raise YamlProblem(f"YAML error: {exc}", first_line, 1) from None
    finally:
        loader.dispose()
    if node is None:
        return None, Positions()
    value = _Builder(loader, shift).build(node, 0, None)
    return value, Positions(text, shift)


def string_values(data: Any, path: Path = ()) -> Iterator[tuple[Path, str]]:
    """Every string in parsed YAML (mapping keys included, under their mapping's path), with
    its path, as :meth:`Positions.value` takes it: the text as decoded, escapes undone."""
    if isinstance(data, str):
        yield path, data
    elif isinstance(data, dict):
        for key, value in data.items():
            if isinstance(key, str):
                yield path, key
            yield from string_values(value, (*path, key))
    elif isinstance(data, list):
        for index, value in enumerate(data):
            yield from string_values(value, (*path, index))


def _at(mark: Any, shift: int) -> tuple[int, int]:
    """File (line, col), 1-based, of a 0-based YAML mark."""
    return (mark.line + 1 + shift, mark.column + 1)


def _check_events(loader: yaml.SafeLoader, shift: int) -> None:
    """Refuse aliases and deep nesting from the event stream, before anything is composed.

    The event parser keeps its own stack, so even a million nested brackets cannot overflow the
    C stack here, while the (recursive) composer could.
    """
    depth = 0
    while loader.check_event():
        event = loader.get_event()  # type: ignore[no-untyped-call]
        if isinstance(event, yaml.AliasEvent):
            raise YamlProblem(
                "YAML aliases (*name) are not allowed in cards", *_at(event.start_mark, shift)
            )
        if isinstance(event, (yaml.MappingStartEvent, yaml.SequenceStartEvent)):
            depth += 1
            if depth > MAX_DEPTH:
                raise YamlProblem(
                    f"front matter is nested deeper than {MAX_DEPTH} levels",
                    *_at(event.start_mark, shift),
                )
        elif isinstance(event, (yaml.MappingEndEvent, yaml.SequenceEndEvent)):
            depth -= 1


class _Builder:
    """Constructs plain values from composed nodes, refusing what cards may not hold.

    With ``values`` and ``keys`` maps, it also records where each value and key starts, under
    its path; :func:`load_yaml` builds without them (``path`` is then ``None``), and
    :class:`Positions` builds again with them when a position is first asked for.
    """

    def __init__(
        self,
        loader: Any,
        shift: int,
        values: dict[Path, tuple[int, int]] | None = None,
        keys: dict[Path, tuple[int, int]] | None = None,
        raw: dict[Path, str] | None = None,
    ) -> None:
        self.loader = loader
        self.shift = shift
        self.values = values
        self.keys = keys
        self.raw = raw

    def mark(self, node: Node) -> tuple[int, int]:
        return _at(node.start_mark, self.shift)

    def build(self, node: Node, depth: int, path: Path | None) -> Any:
        if self.values is not None and path is not None:
            self.values[path] = self.mark(node)
        if node.tag not in _CORE_TAGS:
            shown = node.tag.replace("tag:yaml.org,2002:", "!!")
            raise YamlProblem(
                f"YAML tag '{shown}' is not allowed in cards (tags are never executed)",
                *self.mark(node),
            )
        if isinstance(node, ScalarNode):
            if self.raw is not None and path is not None and node.tag != _STR:
                self.raw[path] = node.value
            return self._scalar(node)
        if depth >= MAX_DEPTH:  # this collection would be level MAX_DEPTH + 1
            raise YamlProblem(
                f"front matter is nested deeper than {MAX_DEPTH} levels", *self.mark(node)
            )
        if isinstance(node, MappingNode):
            return self._mapping(node, depth, path)
        if isinstance(node, SequenceNode):
            return [
                self.build(item, depth + 1, None if path is None else (*path, index))
                for index, item in enumerate(node.value)
            ]
        raise YamlProblem("unsupported YAML node", *self.mark(node))

    def _mapping(self, node: MappingNode, depth: int, path: Path | None) -> dict[Any, Any]:
        result: dict[Any, Any] = {}
        for key_node, value_node in node.value:
            if not isinstance(key_node, ScalarNode):
                raise YamlProblem("a mapping key must be a plain value", *self.mark(key_node))
            key = self.build(key_node, depth + 1, None)
            if key in result:
                raise YamlProblem(f"duplicate key {key!r}", *self.mark(key_node))
            child = None if path is None else (*path, key)
            if self.keys is not None and child is not None:
                self.keys[child] = self.mark(key_node)
            result[key] = self.build(value_node, depth + 1, child)
        return result

    def _scalar(self, node: ScalarNode) -> Any:
        if node.tag == _STR:
            return node.value  # what the constructor returns for a string, without its detour
        try:
            return self.loader.construct_object(node, deep=True)
        except (ValueError, yaml.YAMLError) as exc:
            if node.tag == "tag:yaml.org,2002:timestamp":
                return node.value  # left as text, so validation can say "bad date"
            raise YamlProblem(f"bad YAML value: {exc}", *self.mark(node)) from None
