"""What a check reaches and what a wrong variant changes, seen inside a power run's processes.

A power run is a matrix: each wrong variant runs against every claim whose check *reaches* what
the variant changes (:mod:`claimcheck.engine.power_child`). Both sides are observed, never
guessed from names:

* **Reach** (:class:`Recorder`). While the claim's check runs *without* a variant, a trace
  function (:func:`sys.settrace`, call events only; no line events) records every code object of
  the content packages that runs once, with the module whose globals it runs in and the names it
  looks up (``co_names``: globals and attributes). The result is a :class:`Trace`.
* **Change** (:func:`snapshot`, :func:`diff`). A variant's changes are found by comparing the
  namespaces of every loaded content module, and of every class those modules define, before
  and after calling it: each rebound, added or removed attribute is a :class:`Change`, with the
  code identity of the value it replaced when that value is a content function. A content module
  the variant imported for the first time is a change of the whole module.

:func:`reaches` decides a (claim, variant) pair from the two: a replaced content function is
reached exactly when it ran; another changed module attribute when code of that module looks the
name up (for a stand-in of a library module, ``torch`` with its ``softmax`` replaced, the name
together with a member the stand-in changes); another changed class attribute when any content
code looks the attribute up (or, for a special method such as an inherited ``__init__``, when any
method of the class ran); a newly imported module when any of its code ran. It errs on the
side of running: a variant whose changes cannot be seen (it changed nothing a namespace shows)
reaches every claim. A pair that is not reached is never run; the same comparison with a listed
variant is never made (a listed variant always runs).

**Self-contained** (:class:`Watcher`). A variant must not call the function it replaces: when the
source of that function changes (a breakage, a fix), a variant that wraps it changes with it, and
its power says nothing. While the varied check runs, a trace function watches the code objects
the variant replaced; one that starts with a frame of the catalogue's code on the stack is
recorded as "called by the variant".
"""

from __future__ import annotations

import inspect
import os
import sys
import threading
import types
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

__all__ = ["Change", "Recorder", "Trace", "Watcher", "code_id", "diff", "reaches", "snapshot"]


def code_id(code: types.CodeType) -> str:
    """``file:line:qualname`` of a code object: the same in every process of one project."""
    return f"{os.path.realpath(code.co_filename)}:{code.co_firstlineno}:{code.co_qualname}"


def _code_of(value: Any) -> types.CodeType | None:
    """The code object of a function (or of a static/class method's function), else ``None``."""
    value = getattr(value, "__func__", value)
    code = getattr(value, "__code__", None)
    return code if isinstance(code, types.CodeType) else None


@dataclass(frozen=True)
class Change:
    """One attribute a variant rebound: ``owner`` (a module name, or ``module:Class``), the
    attribute (``""`` for a module the variant imported for the first time) and the code identity
    of the function it replaced (``""`` when the old value was not a content function)."""

    owner: str
    attr: str
    old: str = ""
    members: tuple[str, ...] = ()
    """When a library module is replaced by a stand-in (``torch`` by ``Replaced(torch,
    softmax=...)``): the module's attributes the stand-in changes. Reach then asks for code that
    looks up both the name and one of them (``torch.softmax``), not any use of ``torch``."""

    @property
    def on_class(self) -> bool:
        """Whether the owner is a class (``module:Class``)."""
        return ":" in self.owner

    def to_json(self) -> list[Any]:
        """The compact form a power task carries."""
        return [self.owner, self.attr, self.old, list(self.members)]

    @classmethod
    def from_json(cls, data: Iterable[Any]) -> Change:
        """The inverse of :meth:`to_json`."""
        owner, attr, old, *rest = list(data)  # a probe's older form has no members
        members = rest[0] if rest else ()
        return cls(str(owner), str(attr), str(old), tuple(str(m) for m in members))

    def describe(self) -> str:
        """``models.x.torch`` or ``models.x:Layer.forward``, or ``models.x`` for a module."""
        if not self.attr:
            return self.owner
        return f"{self.owner}.{self.attr}"


class _Content:
    """Which files are content (the configured content folders, outside the catalogue)."""

    def __init__(self, folders: Iterable[str], catalogue: Iterable[str]) -> None:
        self.folders = tuple(os.path.join(os.path.realpath(f), "") for f in folders)
        self.catalogue = tuple(catalogue)
        self._files: dict[str, bool] = {}

    def file(self, filename: str) -> bool:
        """Whether ``filename`` is a content file (cached by name)."""
        known = self._files.get(filename)
        if known is None:
            real = os.path.realpath(filename)
            known = real.startswith(self.folders) and "site-packages" not in real
            self._files[filename] = known
        return known

    def module(self, name: str) -> bool:
        """Whether module ``name`` is content that a variant may change (not the catalogue's)."""
        if any(name == c or name.startswith(c + ".") for c in self.catalogue):
            return False
        module = sys.modules.get(name)
        filename = getattr(module, "__file__", None)
        return isinstance(filename, str) and self.file(filename)


@dataclass
class Trace:
    """What an unvaried run of a check executed, of the content packages."""

    executed: set[str] = field(default_factory=set)
    """:func:`code_id` of every content code object that ran."""
    names: dict[str, set[str]] = field(default_factory=dict)
    """Per module: the names its code that ran looks up."""
    methods: set[str] = field(default_factory=set)
    """``module:Qualname`` prefixes of every class whose method ran."""
    together: dict[str, list[list[str]]] = field(default_factory=dict)
    """Per module: the names of each code object that ran, apart (names looked up together)."""

    def to_json(self) -> dict[str, Any]:
        """Plain data (lists), picklable and printable."""
        return {"executed": sorted(self.executed),
                "names": {m: sorted(n) for m, n in sorted(self.names.items())},
                "methods": sorted(self.methods), "together": self.together}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Trace:
        """The inverse of :meth:`to_json`."""
        return cls(set(data.get("executed", ())),
                   {m: set(n) for m, n in dict(data.get("names", {})).items()},
                   set(data.get("methods", ())), dict(data.get("together", {})))

    def looks_up(self, module: str, name: str, members: tuple[str, ...]) -> bool:
        """Whether code of ``module`` that ran looks ``name`` up (and, with ``members``, one of
        them in the same code object)."""
        if not members:
            return name in self.names.get(module, ())
        wanted = set(members)
        return any(name in names and wanted.intersection(names)
                   for names in self.together.get(module, ()))


class Recorder:
    """Record the content code a run executes (see the module docstring)."""

    def __init__(self, folders: Iterable[str], catalogue: Iterable[str]) -> None:
        self._content = _Content(folders, catalogue)
        self._seen: dict[types.CodeType, str] = {}

    def _trace(self, frame: types.FrameType, event: str, arg: Any) -> None:
        code = frame.f_code
        if (code not in self._seen and code.co_flags & inspect.CO_OPTIMIZED
                and self._content.file(code.co_filename)):
            # functions only: a module or class body run by an import looks up every name it
            # defines, which says nothing about what the check computes with them
            self._seen[code] = str(frame.f_globals.get("__name__", ""))
        return None

    def start(self) -> None:
        """Trace calls in this thread and in threads started from now on."""
        threading.settrace(self._trace)
        sys.settrace(self._trace)

    def stop(self) -> Trace:
        """Stop tracing; what ran."""
        sys.settrace(None)
        threading.settrace(None)
        trace = Trace()
        for code, module in self._seen.items():
            trace.executed.add(code_id(code))
            trace.names.setdefault(module, set()).update(code.co_names)
            if code.co_names:
                trace.together.setdefault(module, []).append(sorted(code.co_names))
            owner, _, _ = code.co_qualname.rpartition(".")
            if owner and "<locals>" not in owner:
                trace.methods.add(f"{module}:{owner}")
        return trace


Namespaces = dict[str, dict[str, Any]]


def snapshot(folders: Iterable[str], catalogue: Iterable[str]) -> Namespaces:
    """A shallow copy of the namespace of every loaded content module and of every class it
    defines, by ``module`` and ``module:Qualname``."""
    content = _Content(folders, catalogue)
    spaces: Namespaces = {}
    for name, module in list(sys.modules.items()):
        if module is None or not content.module(name):
            continue
        space = dict(vars(module))
        spaces[name] = space
        for value in space.values():
            if isinstance(value, type) and value.__module__ == name:
                spaces[f"{name}:{value.__qualname__}"] = dict(vars(value))
    return spaces


def diff(before: Namespaces, after: Namespaces, folders: Iterable[str],
         members: bool = False) -> list[Change]:
    """Every attribute rebound, added or removed between two :func:`snapshot` s; with
    ``members``, what a stand-in for a library module changes of it (:attr:`Change.members`)."""
    content = _Content(folders, ())
    changes: list[Change] = []
    for owner, space in sorted(after.items()):
        old_space = before.get(owner)
        if old_space is None:
            if ":" not in owner:
                changes.append(Change(owner, ""))
            continue
        for attr in sorted(set(space) | set(old_space)):
            old, new = old_space.get(attr, _MISSING), space.get(attr, _MISSING)
            if old is new or attr == "__dict__":
                continue
            code = _code_of(old)
            changes.append(Change(owner, attr, code_id(code) if code is not None
                                  and content.file(code.co_filename) else "",
                                  _members(old, new) if members else ()))
    return changes


def _members(old: Any, new: Any) -> tuple[str, ...]:
    """The attributes of library module ``old`` that ``new`` (its stand-in) gives otherwise;
    ``()`` when ``old`` is not a module or ``new`` is not a stand-in of it."""
    if not isinstance(old, types.ModuleType) or isinstance(new, types.ModuleType):
        return ()
    changed = []
    for name in dir(old):
        if name.startswith("__"):
            continue  # a stand-in's own identity (__doc__, __class__), not what it changes
        try:
            if getattr(new, name) is not getattr(old, name):
                changed.append(name)
        except Exception:  # an attribute that cannot be read cannot be compared: changed
            changed.append(name)
    return tuple(changed)


_MISSING = object()


def reaches(changes: list[Change] | None, trace: Trace) -> str:
    """Why the run traced in ``trace`` reaches what ``changes`` change (``""`` when it does not;
    see the module docstring). ``None`` (changes that could not be found) reaches."""
    if not changes:
        return "the variant's changes could not be seen, so it runs everywhere"
    every_name = set().union(*trace.names.values()) if trace.names else set()
    for change in changes:
        if change.old:  # a content function replaced: reached exactly when it ran
            if change.old in trace.executed:
                return f"the check ran {change.describe()}, which the variant replaces"
            continue
        if not change.attr:
            if change.owner in trace.names:
                return f"the check ran code of {change.owner}, which the variant changes"
            continue
        if change.on_class:
            if change.attr in every_name or (
                    change.attr.startswith("__") and change.owner in trace.methods):
                return f"the check used {change.describe()}"
        elif trace.looks_up(change.owner, change.attr, change.members):
            what = ".".join((change.attr, *change.members[:1]))
            return f"code of {change.owner} that the check ran looks up {what!r}"
    return ""


class Watcher:
    """Watch, during a varied run, whether code the variant replaced is called from the
    catalogue's code (the variant calling the function it replaces)."""

    def __init__(self, changes: list[Change], catalogue_files: Iterable[str]) -> None:
        self._watched = {c.old: c for c in changes if c.old}
        self._catalogue = tuple(os.path.realpath(f) for f in catalogue_files)
        self._ids: dict[types.CodeType, str] = {}
        self.called: str = ""
        """The replaced attribute the variant called (``""`` while none was)."""

    def _trace(self, frame: types.FrameType, event: str, arg: Any) -> None:
        if self.called or not self._watched:
            return None
        code = frame.f_code
        ident = self._ids.get(code)
        if ident is None:
            ident = self._ids[code] = code_id(code)
        change = self._watched.get(ident)
        if change is None:
            return None
        caller = frame.f_back
        while caller is not None:
            if _inside(os.path.realpath(caller.f_code.co_filename), self._catalogue):
                self.called = change.describe()
                break
            caller = caller.f_back
        return None

    def start(self) -> None:
        """Watch this thread and threads started from now on (nothing to watch: no tracing)."""
        if self._watched:
            threading.settrace(self._trace)
            sys.settrace(self._trace)

    def stop(self) -> str:
        """Stop watching; the replaced attribute the variant called, or ``""``."""
        sys.settrace(None)
        threading.settrace(None)
        return self.called


def _inside(path: str, places: tuple[str, ...]) -> bool:
    """Whether ``path`` is one of ``places`` or lies in a folder of them."""
    return any(path == place or path.startswith(place + os.sep) for place in places)
