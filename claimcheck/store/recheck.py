"""Which claims' stored results a pull request changed, so CI can re-make them.

Results are committed, so a pull request can change a result file by hand. Every read judges a
stored measurement again (:mod:`claimcheck.store.status`), which catches a verdict that does not
follow from its own measurement, but not a forged measurement. CI therefore re-runs every claim
whose result file or artifacts differ from the pull request's base::

    claimcheck verify wiki/ --recheck-results-changed-since origin/main

:func:`changed_result_claims` asks git for the files under the results store that differ between
``GIT_REF`` and the working tree (committed, staged, unstaged or untracked) and maps them to the
claims of the wiki. ``GIT_REF`` may name a commit or a tree: the empty tree (``git hash-object -t
tree /dev/null``, what ``.ci/recheck-base`` prints when it finds no base) makes every stored file
changed, so everything is re-checked. A re-run replaces the changed file with a real
measurement, and :mod:`claimcheck.engine.gate` compares the two; one the run's budget cannot
reproduce (a ``short``-budget training result in a ``smoke`` CI run) is left as it is and shown
as "not re-made by CI". A changed power file (:func:`changed_power_claims`) is re-made the same
way by ``verify --power``: every variant its claim lists runs again.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Callable
from pathlib import Path

from claimcheck.cards.wiki import Wiki
from claimcheck.core.errors import UsageError
from claimcheck.store.results import result_stem


def _git(root: Path, *args: str) -> list[str]:
    """The NUL-separated paths a git command prints, unquoted, with every pathspec taken
    literally: git quotes a name with a tab, a quote or a non-ASCII letter in its line output
    (``"r\\303\\251sultats/..."``), and would read ``:(attr:x)store`` as pathspec magic; either
    way a changed result would map to no claim and go unchecked."""
    try:
        done = subprocess.run(["git", "--literal-pathspecs", "-C", str(root), *args],
                              capture_output=True, timeout=60, check=False)
    except (OSError, subprocess.SubprocessError) as exc:
        raise UsageError(f"--recheck-results-changed-since needs git: {exc}") from None
    if done.returncode != 0:
        problem = " ".join(done.stderr.decode(errors="replace").split()) \
            or f"git exited with {done.returncode}"
        raise UsageError(f"--recheck-results-changed-since: {problem}")
    return [os.fsdecode(path) for path in done.stdout.split(b"\0") if path.strip()]


def changed_result_claims(wiki: Wiki, git_ref: str) -> frozenset[str]:
    """Global ids of the claims whose result file or artifacts differ from ``git_ref``."""
    return _changed(wiki, git_ref, _stem)


def changed_power_claims(wiki: Wiki, git_ref: str) -> frozenset[str]:
    """Global ids of the claims whose power file (``power/<stem>.json``,
    :mod:`claimcheck.store.power`) differs from ``git_ref``: ``verify --power`` runs all their
    listed variants again."""
    return _changed(wiki, git_ref, _power_stem)


def _changed(wiki: Wiki, git_ref: str, stem_of: Callable[[Path, str], str | None]
             ) -> frozenset[str]:
    root, store = wiki.config.root, wiki.config.results
    try:
        relative = store.relative_to(root).as_posix()
    except ValueError:
        raise UsageError(
            f"--recheck-results-changed-since: the results store {store} lies outside the "
            f"project {root}") from None
    if git_ref.startswith("-"):
        raise UsageError(f"--recheck-results-changed-since: {git_ref!r} is not a git ref")
    _git(root, "rev-parse", "--verify", "--quiet", f"{git_ref}^{{tree}}")
    _refuse_nested_repository(root, relative)
    changed = _git(root, "diff", "-z", "--relative", "--name-only", "--no-renames", git_ref,
                   "--", relative)
    changed += _git(root, "ls-files", "-z", "--others", "--exclude-standard", "--", relative)
    stems = {stem_of(Path(path), relative) for path in changed} - {None}
    return frozenset(ref.global_id for ref in wiki.claims()
                     if result_stem(ref.global_id) in stems)


def _refuse_nested_repository(root: Path, store: str) -> None:
    """Refuse a results store that is, or holds, another git repository: committed, it is a
    gitlink (mode 160000), whose files the project's history does not hold, so no diff can show
    a forged result in it; not yet added, ``ls-files`` shows it as one folder (``store/``)."""
    staged = _git(root, "ls-files", "-z", "--stage", "--", store)
    nested = [entry.split("\t", 1)[-1] for entry in staged if entry.startswith("160000 ")]
    nested += [path for path in _git(root, "ls-files", "-z", "--others", "--exclude-standard",
                                     "--directory", "--", store) if path.endswith("/")
               and (root / path / ".git").exists()]
    if nested:
        raise UsageError(
            f"--recheck-results-changed-since: {nested[0]} in the results store is another git "
            "repository, whose files this project's history does not hold, so CI cannot tell "
            "which results changed; commit the results as plain files")


def _stem(path: Path, store: str) -> str | None:
    """``results/<stem>.json`` or ``artifacts/<stem>/...`` under the store, as ``<stem>``."""
    try:
        parts = path.relative_to(store).parts
    except ValueError:
        return None
    if len(parts) == 2 and parts[0] == "results" and parts[1].endswith(".json"):
        return parts[1][: -len(".json")]
    if len(parts) >= 3 and parts[0] == "artifacts":
        return parts[1]
    return None


def _power_stem(path: Path, store: str) -> str | None:
    """``power/<stem>.json`` under the store, as ``<stem>``."""
    try:
        parts = path.relative_to(store).parts
    except ValueError:
        return None
    if len(parts) == 2 and parts[0] == "power" and parts[1].endswith(".json"):
        return parts[1][: -len(".json")]
    return None
