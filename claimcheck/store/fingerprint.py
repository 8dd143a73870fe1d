"""Claim fingerprints: what a stored verdict depends on, hashed, so staleness is derived.

A fingerprint is the sha256 of canonical JSON (sorted keys, compact separators, UTF-8) of:

* the claim as written: statement, cite, check, args, expect, accept_proxy, tier;
* ``{relative path: sha256 of the source}`` of every file the check runs:
  - a custom check (``module.path:function``): its module, the packages above it, and every
    project module it imports transitively (:func:`claimcheck.trust.references.local_imports`);
  - a built-in kind: the ``claimcheck/checks/*.py`` module that registers it (and nested kinds of
    ``ratio``), every function its args name (:func:`claimcheck.trust.boundary.callable_slots`)
    resolved the same way as a custom check, and for ``params``/``shapes``/``train`` the configured
    ``model_factory`` (and for ``train`` the ``trainer``) with their local imports; registry
    names reach the model files through the factory module's imports;
* the claimcheck version.

The environment (torch version, device, platform) is *not* covered: it is provenance, stored with
each result and shown as a difference (:mod:`claimcheck.core.provenance`); a claim that must re-run
when it changes says so with ``rerun_on``.

The tool stands for itself through its version: files of the ``claimcheck`` package reached by a
project module's imports (``from claimcheck.checks.api import Evidence``) are left out, so that
changing the tool does not make every stored result stale; only the module of a built-in kind
(with its helpers in ``claimcheck/checks/``) counts as that kind's source.

Nothing here imports torch or any project module: sources are found with :mod:`ast` and read as
bytes. A reference that cannot be resolved is recorded as a problem string, so the fingerprint is
still defined (and changes once the reference is fixed).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from claimcheck.cards.frontmatter import Claim
from claimcheck.core.config import ModuleRoot, ProjectConfig
from claimcheck.core.errors import CheckReferenceError
from claimcheck.core.version import __version__
from claimcheck.trust.boundary import callable_slots, resolve_reference
from claimcheck.trust.references import SourceIndex, imported_files, is_reference, local_imports
from claimcheck.trust.roles import Role

if TYPE_CHECKING:
    from claimcheck.cards.wiki import ClaimRef

MODEL_KINDS = frozenset({"params", "shapes", "flops", "train"})
TOOL_FOLDER = Path(__file__).resolve().parents[1]  # the claimcheck package, found without imports


def canonical_json(data: Any) -> str:
    """The one JSON text of ``data`` that is hashed: sorted keys, no spaces, UTF-8 kept."""
    return json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)


def claim_fingerprint(ref: ClaimRef, config: ProjectConfig) -> str:
    """The fingerprint of one claim (see the module docstring for what it covers).

    For many claims use one :class:`Fingerprinter` (or ``StoredStatus.fingerprint``): each call
    here starts a new pass, though it reuses the parse cache in ``<results>/cache/``.
    """
    return Fingerprinter(config, cache_dir=config.results / "cache").fingerprint(ref.claim)


class Fingerprinter:
    """Fingerprints the claims of one project, reading each source file at most once.

    Keep one instance for one pass over the wiki (``claimcheck status``, the verify planner);
    make a new one after files may have changed. With ``cache_dir`` (the store's ``cache/``)
    the parsed import facts are kept between runs; call :meth:`save` at the end.
    """

    def __init__(self, config: ProjectConfig, cache_dir: Path | None = None) -> None:
        self.config = config
        inside = cache_dir is not None and config.root in cache_dir.parents
        self.index = SourceIndex(cache_dir / "sources.json" if cache_dir else None,
                                 config.root if inside else None)
        self._digests: dict[Path, str] = {}
        self._labels: dict[Path, str] = {}
        self._references: dict[tuple[str, Role | None], tuple[frozenset[Path], str | None]] = {}
        self._kinds: dict[str, Path] | None = None
        self.tool_folder = TOOL_FOLDER

    def fingerprint(self, claim: Claim) -> str:
        """The sha256 hex digest of :meth:`payload`."""
        return hashlib.sha256(canonical_json(self.payload(claim)).encode("utf-8")).hexdigest()

    def payload(self, claim: Claim) -> dict[str, Any]:
        """Everything the fingerprint covers, as plain JSON data (useful to see why it changed)."""
        files: set[Path] = set()
        problems: list[str] = []
        for found, problem in self._dependencies(claim):
            files |= found
            if problem:
                problems.append(problem)
        return {
            "claim": {
                "statement": claim.statement,
                "cite": claim.cite,
                "check": claim.check,
                "args": claim.args,
                "expect": claim.expect.as_mapping() if claim.expect else None,
                "accept_proxy": claim.accept_proxy,
                "tier": claim.tier.value if claim.tier else None,
                # the card's limits shape what a run can complete (issue 33): only when set, so
                # that claims without any keep their fingerprints
                **({"resources": claim.resources.model_dump()} if claim.resources else {}),
            },
            "sources": {self._label(path): self._digest(path) for path in sorted(files)},
            "problems": sorted(set(problems)),
            "claimcheck": __version__,
        }

    def save(self) -> None:
        """Keep the parsed source facts for the next run (best effort; see ``cache_dir``)."""
        self.index.save()

    def _dependencies(self, claim: Claim) -> Iterator[tuple[frozenset[Path], str | None]]:
        check = claim.check
        if check is None:
            return
        for slot in callable_slots(check, claim.args):
            yield self._reference(slot.text, slot.role)
        if is_reference(check):
            return
        kinds = {check, *_nested_kinds(claim.args)}
        for kind in sorted(kinds):
            module = self._builtin_kinds().get(kind)
            if module is None:
                yield frozenset(), f"unknown check kind {kind!r}"
            else:
                yield self._builtin_module(module)
        if kinds & MODEL_KINDS:
            yield self._reference(self.config.model_factory, None)
        if "train" in kinds:
            yield self._reference(self.config.trainer, None)

    def reference_sources(self, text: str, role: Role) -> dict[str, Any]:
        """``{"sources": {path: sha256}, "problems": [...]}`` of the function ``text`` names for
        ``role`` (its module, parent packages and local imports): what a wrong variant's power
        results depend on besides the claim (:mod:`claimcheck.store.power`)."""
        files, problem = self._reference(text, role)
        return {"sources": {self._label(path): self._digest(path) for path in sorted(files)},
                "problems": [problem] if problem else []}

    def _reference(self, text: str, role: Role | None) -> tuple[frozenset[Path], str | None]:
        """The files behind ``module:function``: its module, parent packages and local imports."""
        key = (text, role)
        if key not in self._references:
            try:
                ref = resolve_reference(text, self.config, role=role, index=self.index)
            except CheckReferenceError as exc:
                self._references[key] = (frozenset(), exc.message)
            else:
                files = {ref.file, *local_imports(ref.file, self.config, index=self.index)}
                # The tool's own code is covered by its version, not by its sources: a
                # refactor of claimcheck must not make every stored (GPU) result stale.
                files = {f for f in files if self.tool_folder not in f.parents} | {ref.file}
                parts = ref.module.split(".")
                for end in range(1, len(parts)):
                    package = self.index.module_file(
                        ".".join(parts[:end]), self.config.module_roots, self.config.root
                    )
                    if package is not None:
                        files.add(package)
                self._references[key] = (frozenset(files), None)
        return self._references[key]

    def _builtin_module(self, module: Path) -> tuple[frozenset[Path], str | None]:
        package = module.parent
        tool_root = ModuleRoot(self.tool_folder.parent, self.tool_folder.name, self.tool_folder)
        helpers = imported_files(module, (tool_root,), package, index=self.index)
        # Modules that register other kinds are those kinds' sources, not this one's helpers.
        other_kinds = set(self._builtin_kinds().values()) - {module}
        return frozenset({module, *(set(helpers) - other_kinds)}), None

    def _builtin_kinds(self) -> dict[str, Path]:
        """Kind name -> the ``claimcheck/checks`` module whose ``@register_check`` defines it."""
        if self._kinds is None:
            self._kinds = {}
            for module in sorted((self.tool_folder / "checks").glob("*.py")):
                facts = self.index.facts(module)
                for kind in facts.registered if facts else ():
                    self._kinds.setdefault(kind, module)
        return self._kinds

    def _label(self, path: Path) -> str:
        if path not in self._labels:
            self._labels[path] = path.as_posix()
            for base in (self.config.root, self.tool_folder.parent):
                if base is not None and base in path.parents:
                    self._labels[path] = path.relative_to(base).as_posix()
                    break
        return self._labels[path]

    def _digest(self, path: Path) -> str:
        if path not in self._digests:
            try:
                self._digests[path] = hashlib.sha256(path.read_bytes()).hexdigest()
            except OSError:
                self._digests[path] = "unreadable"
        return self._digests[path]


def _walk(value: Any) -> Iterable[Any]:
    yield value
    if isinstance(value, Mapping):
        for item in value.values():
            yield from _walk(item)
    elif isinstance(value, (list, tuple)):
        for item in value:
            yield from _walk(item)


def _nested_kinds(args: Mapping[str, Any]) -> Iterable[str]:
    """Kinds named inside args, e.g. ``ratio``'s ``numerator: {kind: params, ...}``."""
    for value in _walk(args):
        if isinstance(value, Mapping) and isinstance(value.get("kind"), str):
            yield value["kind"]
