"""The trust boundary: which functions a card may name, decided from files alone.

Cards are data; checks, model factories, timing factories and trainers are the repository's own
code that opts in to being named from a card (:mod:`claimcheck.checks.markers`). A card chooses
arguments, never an unmarked function. A name ``module.path:function`` is accepted for a
:class:`~claimcheck.trust.roles.Role` only when

1. it is a dotted module and an identifier, not a file path;
2. its top-level package is one of the content packages (``[tool.claimcheck] import_roots``,
   default ``models``), not the standard library, an installed package or the tool itself;
3. no part of it is private (starts with ``_``);
4. its module is a file inside that package and the project, with symlinks resolved;
5. the function is a top-level ``def`` of that file, decorated with the role's marker.

``claimcheck lint`` and ``claimcheck verify`` both call :func:`resolve_reference`, so they refuse
the same names with the same message; verify also checks the marker on the imported object
(:func:`claimcheck.checks.resolve.load_callable`). Nothing is imported here.

:func:`callable_slots` lists every place a claim names a function: its ``check``, and the args of
the built-in kinds that take one (``factory`` of ``params``/``shapes``/``flops``, ``a``/``b``,
``trainer``, and the kinds nested in ``ratio``). It is the one table that lint, verify and
fingerprints share.
"""

from __future__ import annotations

import difflib
import functools
import importlib.machinery
import site
import sys
import sysconfig
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from claimcheck.core.config import ProjectConfig
from claimcheck.core.errors import CheckReferenceError
from claimcheck.trust.references import (
    CheckReference,
    SourceIndex,
    find_module_file,
    is_reference,
    parse_reference,
    within,
)
from claimcheck.trust.roles import Role

TOOL_PACKAGE = "claimcheck"

_NOUNS = {
    Role.CLAIM_CHECK: "check reference",
    Role.MODEL_FACTORY: "model factory",
    Role.TIMING_FACTORY: "timing factory",
    Role.TRAINER: "trainer",
    Role.WRONG_VARIANT: "wrong variant",
}

ArgPath = tuple[str | int, ...]


@dataclass(frozen=True)
class CallableSlot:
    """One place a claim names a function: where in the claim (``("check",)`` or a path under
    ``("args", ...)``), the name as written, and the role it must be marked for."""

    path: ArgPath
    text: str
    role: Role


BUILTIN_CALLABLE_ARGS: Mapping[str, Mapping[str, Role]] = {
    "params": {"factory": Role.MODEL_FACTORY},
    "shapes": {"factory": Role.MODEL_FACTORY},
    "flops": {"factory": Role.MODEL_FACTORY},
    "timing": {"a": Role.TIMING_FACTORY, "b": Role.TIMING_FACTORY},
    "train": {"trainer": Role.TRAINER},
}
"""For each built-in kind, the args that name a function, and the marker each one needs."""

NESTED_KIND_ARGS: Mapping[str, tuple[str, ...]] = {"ratio": ("numerator", "denominator")}
"""Kinds whose args hold ``{kind: K, args: {...}}`` measurements of other built-in kinds."""


def callable_slots(check: str | None, args: Mapping[str, Any]) -> Iterator[CallableSlot]:
    """Every function the claim (``check`` and ``args``) names, with the role it must have."""
    if check is None:
        return
    if is_reference(check):
        yield CallableSlot(("check",), check, Role.CLAIM_CHECK)
        return
    yield from _kind_slots(check, args, ("args",))


def _kind_slots(kind: str, args: Any, where: ArgPath) -> Iterator[CallableSlot]:
    if not isinstance(args, Mapping):
        return
    for key, role in BUILTIN_CALLABLE_ARGS.get(kind, {}).items():
        value = args.get(key)
        if isinstance(value, str):
            yield CallableSlot((*where, key), value, role)
    for key in NESTED_KIND_ARGS.get(kind, ()):
        spec = args.get(key)
        if isinstance(spec, Mapping) and isinstance(spec.get("kind"), str):
            yield from _kind_slots(spec["kind"], spec.get("args", {}), (*where, key, "args"))


def role_noun(role: Role | None) -> str:
    """``check reference``, ``model factory``...: how messages name a slot of ``role``."""
    return "configured reference" if role is None else _NOUNS[role]


def refusal_rule(config: ProjectConfig, role: Role | None) -> str:
    """The rule every refusal ends with, so a reader knows what would be accepted."""
    marked = "" if role is None else f" marked {role.decorator}"
    return (f"a card may name only public functions of the content package "
            f"({config.content_names()}){marked}")


def resolve_reference(
    text: str, config: ProjectConfig, *, role: Role | None = Role.CLAIM_CHECK,
    index: SourceIndex | None = None,
) -> CheckReference:
    """Locate ``text`` for ``role`` without importing anything, or explain the refusal.

    Raises :class:`~claimcheck.core.errors.CheckReferenceError` whose message names the reference,
    why it is refused and the rule (:func:`refusal_rule`). ``index`` caches parsed files.
    ``role=None`` is for the project's own ``[tool.claimcheck]`` settings (``model_factory``,
    ``trainer``): repository configuration, held to every rule but the marker.
    """
    index = index or SourceIndex()
    noun = role_noun(role)
    rule = refusal_rule(config, role)

    def refuse(why: str, file: Path | None = None, line: int | None = None) -> CheckReferenceError:
        shown = config.relative(file) if file is not None else None
        return CheckReferenceError(f"{noun} {text!r} {why}; {rule}", shown, line)

    if not is_reference(text):
        raise refuse("is not a module.path:function name")
    try:
        module, function = parse_reference(text)
    except CheckReferenceError as exc:
        raise CheckReferenceError(f"{exc.message}; {rule}") from None
    top = module.split(".")[0]
    if top in sys.stdlib_module_names or top in sys.builtin_module_names:
        raise refuse(f"names the standard-library module {top!r}")
    if top == TOOL_PACKAGE:
        raise refuse(f"names the tool's own package {top!r}")
    installed = _installed_origin(top, config.root)
    if installed is not None:
        raise refuse(f"names the installed package {top!r} ({installed})")
    if not any(root.admits(module) for root in config.module_roots):
        raise refuse(f"lies outside the content package ({config.content_names()})")
    private = [part for part in (*module.split("."), function) if part.startswith("_")]
    if private:
        raise refuse(f"is private ({private[0]!r} starts with '_')")
    file = find_module_file(module, config.module_roots, config.root)
    if file is None:
        wanted = "/".join(module.split("."))
        raise refuse(f"names module {module!r}, not found under the import roots "
                     f"({config.content_names()}); looked for {wanted}.py and "
                     f"{wanted}/__init__.py")
    line = _def_line(file, function, config, index, refuse)
    facts = index.facts(file)
    if role is not None and (facts is None or role.value not in facts.markers_of(function)):
        raise refuse(f"is not marked {role.decorator}", file, line)
    return CheckReference(module, function, file, line)


Refuse = Callable[..., CheckReferenceError]
"""``refuse(why, file=None, line=None)``: the error of one refused name."""


def _def_line(
    file: Path, function: str, config: ProjectConfig, index: SourceIndex, refuse: Refuse
) -> int:
    shown = config.relative(file)
    facts = index.facts(file)
    if facts is None:
        raise refuse(f"cannot be read ({shown})", file)
    if facts.error is not None:
        raise refuse(f"cannot be checked: cannot parse {shown}: {facts.error}", file)
    kind, line = facts.defs.get(function, ("", 0))
    if kind == "def":
        return line
    if kind:
        what = "an async def" if kind == "async" else "a class"
        raise refuse(f"is {what} in {shown}, not a top-level def", file, line)
    defs = sorted(name for name, (kind, _) in facts.defs.items() if kind == "def")
    close = difflib.get_close_matches(function, defs, n=1, cutoff=0.6)
    if close:
        hint = f"did you mean {close[0]!r}?"
    elif defs:
        hint = "its top-level functions: " + ", ".join(defs)
    else:
        hint = "it defines no top-level functions"
    raise refuse(f"names function {function!r}, not found in {shown} ({hint})", file)


@functools.cache
def _site_dirs() -> list[str]:
    """Folders that hold installed packages: site-packages (system, user, venv) and the stdlib."""
    paths = sysconfig.get_paths()
    dirs = {paths["purelib"], paths["platlib"], paths["stdlib"], site.getusersitepackages()}
    dirs.update(site.getsitepackages())
    dirs.update(e for e in sys.path if {"site-packages", "dist-packages"} & set(Path(e).parts))
    return sorted(dirs)


def _installed_origin(top: str, project: Path) -> str | None:
    """Where ``top`` is installed outside the project, if anywhere (found, never imported).

    Looks in site-packages and the standard library, and asks the finders of editable installs
    (setuptools' ``__editable__`` hooks).
    """
    searches: list[tuple[object, list[str] | None]] = [
        (importlib.machinery.PathFinder, _site_dirs())
    ]
    searches += [
        (finder, None) for finder in sys.meta_path
        if type(finder).__module__.startswith("__editable__")
        or getattr(finder, "__module__", "").startswith("__editable__")
    ]
    for finder, paths in searches:
        find_spec = getattr(finder, "find_spec", None)
        if find_spec is None:
            continue
        try:
            spec = find_spec(top, paths)
        except (ImportError, ValueError, OSError):
            continue
        if spec is None:
            continue
        origin = spec.origin or next(iter(spec.submodule_search_locations or []), None)
        if origin is None or not within(Path(origin), project):
            return str(origin or "installed")
    return None
