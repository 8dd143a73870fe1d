"""What a card may name in ``args``, read from the project's source with :mod:`ast` (no imports).

Lint validates registry names, presets and config fields before anything runs, without importing
torch or the project's content code. The facts come from the configured ``model_factory`` module
(``[tool.claimcheck] model_factory``) and the modules it names:

* every module-level tuple or list of dotted strings in the factory's module that names a project
  module (``FAMILY_MODULES = ("models.dynamic.capsnet", ...)``), and every project module it
  imports, is scanned as well;
* a class or function decorated ``@register_model("name", PRESETS)`` (or
  ``@registry.register_model(...)``) registers ``name``; ``PRESETS`` is a dict literal, inline or
  bound at module level, whose string keys are the presets;
* a preset written ``lambda: SomeConfig(...)`` names its config dataclass; the class's annotated
  fields are the keys that ``kwargs``/``overrides`` may set.

The configured trainer's module may declare ``SPEC_KEYS`` (a set, list or tuple of strings) and
``METRICS``; a ``train`` claim's args are then held to them.

Whatever cannot be read this way (a registry built in a loop, presets from a function call) is
left unknown (:attr:`ModelCatalog.unread`), and lint then only warns about a name no readable
registration defines: a false "unknown model" would be worse than a late one from ``verify``.
"""

from __future__ import annotations

import ast
import functools
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from claimcheck.core.config import ModuleRoot, ProjectConfig
from claimcheck.trust.references import SourceIndex, find_module_file, within

__all__ = [
    "ModelCatalog", "TrainerFacts", "marked_callables", "model_catalog", "trainer_facts",
]

MAX_SOURCE_BYTES = 2_000_000
REGISTER_NAME = "register_model"


@dataclass(frozen=True)
class ModelCatalog:
    """Registered models with their presets and config fields (``fields`` may lack a model)."""

    presets: dict[str, tuple[str, ...]] = field(default_factory=dict)
    fields: dict[str, tuple[str, ...]] = field(default_factory=dict)
    outputs: dict[str, tuple[str, ...]] = field(default_factory=dict)
    """Models whose ``forward`` is annotated, or seen in its ``return`` statements, to return
    several tensors: the parts a ``shapes`` claim chooses from with ``field:`` (a tuple's
    indices, a dict's keys, a dataclass's tensor fields)."""
    indexed: dict[str, int] = field(default_factory=dict)
    """Models of :attr:`outputs` whose output is also a tuple (a ``NamedTuple``): how many items
    an integer ``field:`` may index (a dataclass or dict output takes names only)."""
    single: set[str] = field(default_factory=set)
    """Models whose ``forward`` is annotated to return one tensor (``-> torch.Tensor``): a
    ``field:`` has nothing to choose there, and verify refuses it."""
    unread: list[int] = field(default_factory=list)
    """Lines of ``register_model`` calls lint cannot read (in a loop, with a computed name or
    presets): a model name no readable registration defines may still be registered there."""
    mentioned: set[str] | None = None
    """Every string constant of the modules read (``None``: the factory's module was not
    found): with no registration readable, a name that appears nowhere in the factory's source
    is a name nothing defines."""

    @property
    def known(self) -> bool:
        """Whether any registration was found (else names are not judged)."""
        return bool(self.presets)


@dataclass(frozen=True)
class TrainerFacts:
    """The trainer's declared spec keys and metrics (empty: not declared, not judged)."""

    spec_keys: tuple[str, ...] = ()
    metrics: tuple[str, ...] = ()


def _parse(file: Path) -> ast.Module | None:
    try:
        data = file.read_bytes()[: MAX_SOURCE_BYTES + 1]
        if len(data) > MAX_SOURCE_BYTES:
            return None
        return ast.parse(data, filename=str(file))
    except (OSError, SyntaxError, ValueError):
        return None


def _strings(node: ast.expr | None) -> tuple[str, ...] | None:
    """The items of a literal tuple, list or set of strings (``None`` otherwise)."""
    if not isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return None
    items = [e.value for e in node.elts if isinstance(e, ast.Constant)]
    if len(items) != len(node.elts) or not all(isinstance(i, str) for i in items):
        return None
    return tuple(str(i) for i in items)


def _assignments(tree: ast.Module) -> dict[str, ast.expr]:
    found: dict[str, ast.expr] = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target = node.targets[0]
            if isinstance(target, ast.Name):
                found[target.id] = node.value
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.value:
            found[node.target.id] = node.value
    return found


def _imported_modules(tree: ast.Module) -> list[str]:
    names: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.extend(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.append(node.module)
    return names


def _called_name(node: ast.expr) -> str | None:
    func = node.func if isinstance(node, ast.Call) else None
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute):
        return func.attr
    return None


def _config_fields(tree: ast.Module, class_name: str) -> tuple[str, ...] | None:
    for node in tree.body:
        if isinstance(node, ast.ClassDef) and node.name == class_name:
            names = [
                item.target.id for item in node.body
                if isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name)
                and "ClassVar" not in ast.unparse(item.annotation)
            ]
            return tuple(names)
    return None


_TENSOR = {"Tensor", "torch.Tensor"}


def _tensor_parts(annotation: ast.expr | None, lookup: dict[str, ast.ClassDef]) -> tuple[str, ...]:
    """The parts of a ``forward`` return annotation that are certainly tensors, when several:
    ``tuple[Tensor, Tensor]`` gives ``("0", "1")``; a dataclass gives its ``Tensor`` fields
    (an optional ``Tensor | None`` may be ``None`` at run time, so it is not counted)."""
    if isinstance(annotation, ast.Subscript) and ast.unparse(annotation.value) in (
            "tuple", "Tuple", "typing.Tuple"):
        items = annotation.slice.elts if isinstance(annotation.slice, ast.Tuple) else []
        if any(isinstance(item, ast.Constant) and item.value is Ellipsis for item in items):
            return ()
        parts = tuple(str(i) for i, item in enumerate(items) if ast.unparse(item) in _TENSOR)
    elif isinstance(annotation, (ast.Name, ast.Constant)):
        name = annotation.id if isinstance(annotation, ast.Name) else str(annotation.value)
        node = lookup.get(name)
        if node is None:
            return ()
        parts = tuple(item.target.id for item in node.body
                      if isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name)
                      and ast.unparse(item.annotation) in _TENSOR)
    else:
        return ()
    return parts if len(parts) > 1 else ()


def _forward(node: ast.ClassDef | ast.FunctionDef) -> ast.FunctionDef | None:
    if isinstance(node, ast.ClassDef):
        for item in node.body:
            if isinstance(item, ast.FunctionDef) and item.name == "forward":
                return item
    return None


def _returned_parts(forward: ast.FunctionDef, lookup: dict[str, ast.ClassDef]
                    ) -> tuple[str, ...]:
    """Without a return annotation, the parts ``forward``'s ``return`` statements build, when
    every one builds the same several: ``return out, aux`` gives ``("0", "1")``, a dict literal
    its string keys, ``Parts(out, aux)`` of a class defined or imported here its ``Tensor``
    fields. Anything else (a name, a call, returns that disagree) leaves the output unknown."""
    found: set[tuple[str, ...]] = set()
    for node in _own_returns(forward):
        value = node.value
        if isinstance(value, ast.Tuple) and not any(
                isinstance(item, (ast.Constant, ast.Starred)) for item in value.elts):
            found.add(tuple(str(i) for i in range(len(value.elts))))
        elif isinstance(value, ast.Dict) and all(
                isinstance(k, ast.Constant) and isinstance(k.value, str) for k in value.keys):
            found.add(tuple(str(k.value) for k in value.keys if isinstance(k, ast.Constant)))
        elif isinstance(value, ast.Call) and isinstance(value.func, ast.Name):
            found.add(_tensor_parts(value.func, lookup))
        else:
            return ()
    parts = found.pop() if len(found) == 1 else ()
    return parts if len(parts) > 1 else ()


def _own_returns(function: ast.FunctionDef) -> list[ast.Return]:
    """The ``return`` statements of ``function`` itself, not of functions or classes nested in
    it (a bare ``return`` counts too: it returns ``None``, one part)."""
    found: list[ast.Return] = []
    pending: list[ast.AST] = list(function.body)
    while pending:
        node = pending.pop()
        if isinstance(node, ast.Return):
            found.append(node)
        elif not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef,
                                   ast.Lambda)):
            pending.extend(ast.iter_child_nodes(node))
    return found


def _classes(tree: ast.Module, roots: tuple[ModuleRoot, ...], boundary: Path
             ) -> dict[str, ast.ClassDef]:
    """The classes a module defines, and those it imports by name from project modules."""
    found = {node.name: node for node in tree.body if isinstance(node, ast.ClassDef)}
    for node in tree.body:
        if not isinstance(node, ast.ImportFrom) or not node.module or node.level:
            continue
        wanted = {alias.asname or alias.name: alias.name for alias in node.names
                  if (alias.asname or alias.name) not in found}
        file = find_module_file(node.module, roots, boundary) if wanted else None
        other = _parse(file) if file is not None else None
        if other is not None:
            defined = {n.name: n for n in other.body if isinstance(n, ast.ClassDef)}
            found.update({local: defined[name] for local, name in wanted.items()
                          if name in defined})
    return found


def _registrations(tree: ast.Module, catalog: ModelCatalog,
                   class_lookup: Callable[[], dict[str, ast.ClassDef]] | None = None) -> None:
    values = _assignments(tree)
    read: set[int] = set()
    for node in tree.body:
        if not isinstance(node, (ast.ClassDef, ast.FunctionDef)):
            continue
        for decorator in node.decorator_list:
            if _called_name(decorator) != REGISTER_NAME or not isinstance(decorator, ast.Call):
                continue
            args = list(decorator.args)
            args += [k.value for k in decorator.keywords if k.arg in ("name", "presets")]
            if len(args) < 2 or not isinstance(args[0], ast.Constant):
                continue
            name = args[0].value
            table = values.get(args[1].id) if isinstance(args[1], ast.Name) else args[1]
            if not isinstance(name, str) or not isinstance(table, ast.Dict):
                continue
            keys = [k.value for k in table.keys if isinstance(k, ast.Constant)]
            if len(keys) != len(table.keys) or not all(isinstance(k, str) for k in keys):
                continue
            read.add(id(decorator))
            catalog.presets[name] = tuple(str(k) for k in keys)
            forward = _forward(node)
            if forward is not None and class_lookup is not None:
                _record_output(catalog, name, forward, class_lookup())
            classes = {
                str(_called_name(v.body)) for v in table.values
                if isinstance(v, ast.Lambda) and _called_name(v.body)
            }
            fields = [_config_fields(tree, c) for c in sorted(classes)]
            if len(classes) == 1 and fields[0] is not None:
                catalog.fields[name] = fields[0]
    catalog.unread.extend(node.lineno for node in ast.walk(tree) if isinstance(node, ast.Call)
                          and _called_name(node) == REGISTER_NAME and id(node) not in read)


def _record_output(catalog: ModelCatalog, name: str, forward: ast.FunctionDef,
                   lookup: dict[str, ast.ClassDef]) -> None:
    """The tensors model ``name``'s ``forward`` returns, when several (and, for a
    ``NamedTuple``, how many items an index may reach)."""
    if _one_tensor(forward.returns):
        catalog.single.add(name)
        return
    parts = (_tensor_parts(forward.returns, lookup) if forward.returns is not None
             else _returned_parts(forward, lookup))
    if not parts:
        return
    catalog.outputs[name] = parts
    output = _output_class(forward, lookup)
    if output is not None and any(ast.unparse(base) in _NAMED_TUPLE for base in output.bases):
        catalog.indexed[name] = sum(isinstance(item, ast.AnnAssign) for item in output.body)


_NAMED_TUPLE = {"NamedTuple", "typing.NamedTuple"}


def _one_tensor(annotation: ast.expr | None) -> bool:
    """Whether a ``forward`` return annotation is one tensor: ``Tensor``, ``torch.Tensor``, or
    either written as a string."""
    if isinstance(annotation, ast.Constant) and isinstance(annotation.value, str):
        return annotation.value.strip() in _TENSOR
    return annotation is not None and ast.unparse(annotation) in _TENSOR


def _output_class(forward: ast.FunctionDef, lookup: dict[str, ast.ClassDef]
                  ) -> ast.ClassDef | None:
    """The class ``forward`` is annotated to return, or that every ``return`` builds."""
    annotation = forward.returns
    if isinstance(annotation, (ast.Name, ast.Constant)):
        return lookup.get(annotation.id if isinstance(annotation, ast.Name)
                          else str(annotation.value))
    if annotation is not None:
        return None
    built = {node.value.func.id for node in _own_returns(forward)
             if isinstance(node.value, ast.Call) and isinstance(node.value.func, ast.Name)}
    return lookup.get(built.pop()) if len(built) == 1 else None


def model_catalog(config: ProjectConfig) -> ModelCatalog:
    """The models, presets and config fields of ``config``'s model registry (cached)."""
    return _catalog(config.model_factory, config.module_roots, config.root, _stamp(config))


def _stamp(config: ProjectConfig) -> tuple[tuple[str, float], ...]:
    """Modification times of the project's Python files under the roots' top packages."""
    module = config.model_factory.partition(":")[0].split(".")[0]
    stamps = []
    for root in config.module_roots:
        folder = root.base / module
        if root.admits(module) and folder.is_dir():
            for file in sorted(folder.rglob("*.py")):
                try:
                    stamps.append((str(file), file.stat().st_mtime))
                except OSError:
                    continue
    return tuple(stamps)


@lru_cache(maxsize=8)
def _catalog(
    factory: str, roots: tuple[ModuleRoot, ...], boundary: Path,
    stamp: tuple[tuple[str, float], ...],
) -> ModelCatalog:
    del stamp  # part of the cache key only
    catalog = ModelCatalog()
    start = find_module_file(factory.partition(":")[0], roots, boundary)
    if start is None:
        return catalog
    queue, seen = [start], {start}
    first = True
    mentioned: set[str] = set()
    catalog = ModelCatalog(mentioned=mentioned)
    while queue:
        tree = _parse(queue.pop(0))
        if tree is None:
            continue
        mentioned.update(node.value for node in ast.walk(tree)
                         if isinstance(node, ast.Constant) and isinstance(node.value, str))
        _registrations(tree, catalog, functools.partial(_classes, tree, roots, boundary))
        if not first:
            continue
        first = False
        named = [m for value in _assignments(tree).values() for m in (_strings(value) or ())]
        for module in [*named, *_imported_modules(tree)]:
            file = find_module_file(module, roots, boundary)
            if file is not None and file not in seen:
                seen.add(file)
                queue.append(file)
    return catalog


MAX_CONTENT_FILES = 5000


def marked_callables(config: ProjectConfig) -> dict[str, tuple[str, ...]]:
    """Every ``module.path:function`` of the content packages, by marker role (``claim_check``,
    ``model_factory``, ...), read with ``ast``: the names a card may use, for the JSON Schema."""
    stamp = []
    for root in config.module_roots:
        for file in sorted(root.folder.rglob("*.py"))[:MAX_CONTENT_FILES]:
            try:
                stamp.append((str(file), file.stat().st_mtime))
            except OSError:
                continue
    return _marked(config.module_roots, tuple(stamp))


@lru_cache(maxsize=8)
def _marked(
    roots: tuple[ModuleRoot, ...], stamp: tuple[tuple[str, float], ...]
) -> dict[str, tuple[str, ...]]:
    del stamp  # part of the cache key only
    index = SourceIndex()
    found: dict[str, set[str]] = {}
    for root in roots:
        folder = root.folder.resolve()
        if not folder.is_dir():
            continue
        for file in sorted(folder.rglob("*.py"))[:MAX_CONTENT_FILES]:
            parts = list(file.relative_to(folder).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            if root.package is not None:
                parts.insert(0, root.package)
            if not parts or not within(file, folder) or any(
                    part.startswith("_") or not part.isidentifier() for part in parts):
                continue
            facts = index.facts(file)
            for name, roles in ((facts.markers or {}) if facts else {}).items():
                for role in roles:
                    if not name.startswith("_"):
                        found.setdefault(role, set()).add(f"{'.'.join(parts)}:{name}")
    return {role: tuple(sorted(names)) for role, names in found.items()}


def trainer_facts(config: ProjectConfig, trainer: str | None = None) -> TrainerFacts:
    """``SPEC_KEYS`` and ``METRICS`` declared by the trainer's module, if it declares them."""
    module = (trainer or config.trainer).partition(":")[0]
    file = find_module_file(module, config.module_roots, config.root)
    tree = _parse(file) if file is not None else None
    if tree is None:
        return TrainerFacts()
    values = _assignments(tree)
    return TrainerFacts(_strings(values.get("SPEC_KEYS")) or (),
                        _strings(values.get("METRICS")) or ())
