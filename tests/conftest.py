"""What the whole suite shares: the signal dispositions its commands inherit, and how its tests
are spread over pytest-xdist's workers (``-n auto --dist loadgroup`` in pyproject's addopts).

How to write a test that is safe to run beside others (docs/architecture.md, "The test suite"):
write only under ``tmp_path`` or ``tmp_path_factory``, never into the repository; bind no fixed
port; depend on no other test having run first; and share anything expensive through a fixture
of a broader scope, which :func:`pytest_collection_modifyitems` then keeps on one worker.
"""

from __future__ import annotations

import functools
import inspect
import signal
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests import repo_guard


def pytest_configure(config: pytest.Config) -> None:
    """Give SIGINT its default meaning in the suite's process, so that the commands the interrupt
    tests start, and then interrupt as a terminal's Ctrl-C would, can be interrupted.

    A suite started in the background without job control (``nohup python -m pytest &``, a
    script's ``&``) inherits SIGINT *ignored*, and an ignored signal stays ignored across
    ``exec``: Python then installs no ``KeyboardInterrupt`` handler, and ``claimcheck verify``
    would never see the Ctrl-C a test sends it. A handled signal is reset to the default on
    ``exec``, so handling it here is enough.
    """
    del config
    if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)
    repo_guard.install()


@pytest.fixture(autouse=True)
def _writes_nothing_into_the_repository() -> Iterator[None]:
    """Fail a test that wrote, renamed or deleted a file of the repository (tests/repo_guard.py):
    on several workers, another test may be reading it."""
    yield
    found = repo_guard.take()
    if found:
        pytest.fail("wrote into the repository (write under tmp_path instead; this test, its "
                    "fixtures, or what ran since the previous test):\n  " + "\n  ".join(found),
                    pytrace=False)


@functools.cache
def _is_the_suites(function: object, rootdir: Path) -> bool:
    """Whether a fixture is defined by this project's tests, not by pytest or a plugin (asked
    once per fixture and test, 8,000 times: memoized)."""
    try:
        path = Path(inspect.getfile(function)).resolve()  # type: ignore[arg-type]
    except (TypeError, OSError):
        return False
    return rootdir in path.parents and "site-packages" not in path.parts


def shared_fixtures(item: pytest.Item) -> tuple[set[str], set[str]]:
    """What ``item`` shares with other tests: each of the suite's own session- or package-scoped
    fixtures it asks for (as ``folder/name``), and its file if it asks for a module- or
    class-scoped one; and the folders of the package-scoped ones. Fixtures count when asked for
    directly, through other fixtures or by ``usefixtures``; autouse fixtures and pytest's own
    (``tmp_path_factory``) do not."""
    info = getattr(item, "_fixtureinfo", None)
    if info is None:  # not a function (a doctest, a plugin's item)
        return set(), set()
    wanted = list(info.argnames)
    for mark in item.iter_markers("usefixtures"):
        wanted.extend(mark.args)
    seen: set[str] = set()
    shared: set[str] = set()
    packages: set[str] = set()
    while wanted:
        name = wanted.pop()
        definitions = info.name2fixturedefs.get(name, ())
        if name in seen or not definitions:
            continue
        seen.add(name)
        definition = definitions[-1]
        wanted.extend(definition.argnames)
        if not _is_the_suites(definition.func, item.config.rootpath):
            continue
        if definition.scope in ("session", "package"):
            shared.add(f"{definition.baseid}/{name}")
        if definition.scope == "package":
            packages.add(definition.baseid)
        elif definition.scope in ("module", "class"):
            shared.add(item.nodeid.split("::", 1)[0])
    return shared, packages


def xdist_groups(items: list[pytest.Item]) -> dict[str, str]:
    """Node id -> group: tests that share a fixture, directly or through other tests, form one
    group (named after the first thing they share), which pytest-xdist's ``loadgroup`` runs on
    one worker, so each shared fixture is built once. A package-scoped fixture is shared by its
    whole folder, so every test there joins its group, even one that asks for the fixture only
    at run time (``request.getfixturevalue``). Tests that share nothing stay ungrouped and are
    spread one by one. Without this, each worker would build its own copy of every shared
    fixture its tests touch: a Ray instance, a headless Chromium, a site build."""
    parent: dict[str, str] = {}

    def root(key: str) -> str:
        while parent.setdefault(key, key) != key:
            parent[key] = parent[parent[key]]
            key = parent[key]
        return key

    shares: dict[str, set[str]] = {}
    folders: set[str] = set()
    for item in items:
        shares[item.nodeid], packages = shared_fixtures(item)
        folders |= packages
    for nodeid, keys in shares.items():
        keys |= {folder for folder in folders if nodeid.startswith(f"{folder}/")}
        ordered = sorted(keys)
        for key in ordered[1:]:
            first, other = root(ordered[0]), root(key)
            parent[max(first, other)] = min(first, other)
    return {nodeid: root(min(keys)) for nodeid, keys in shares.items() if keys}


@pytest.hookimpl(wrapper=True)
def pytest_collection_modifyitems(
    config: pytest.Config, items: list[pytest.Item]
) -> Iterator[None]:
    """Mark each test that shares a fixture with its ``xdist_group``, before pytest-xdist's
    ``loadgroup`` reads the marks; then make sure the group reached the test's node id."""
    groups = xdist_groups(items)
    for item in items:
        if item.nodeid in groups:
            item.add_marker(pytest.mark.xdist_group(groups[item.nodeid]))
    yield
    if getattr(config.option, "loadgroup", False):
        _group_in_node_ids(items)


def _group_in_node_ids(items: list[pytest.Item]) -> None:
    """Append ``@group`` to the node id of each grouped test where pytest-xdist could not.

    ``loadgroup`` tells its scheduler a test's group by a suffix of the node id, written to
    ``item._nodeid``; since pytest 9.2 the node id is read from a structured ``item._id``, so
    the suffix is silently lost and each group is spread over every worker, each of which then
    builds its own Ray, Chromium and site (pytest-dev/pytest-xdist#1386, not fixed in 3.8.0).
    Where the suffix is missing, this writes it as xdist does, through pytest's own parser.
    """
    try:
        from _pytest.nodeid import NodeId
    except ImportError:  # pytest before 9.2, where xdist's own suffix holds
        return
    for item in items:
        names = sorted({str(mark.args[0] if mark.args else mark.kwargs.get("name", "default"))
                        for mark in item.iter_markers("xdist_group")})
        suffix = "@" + "_".join(names)
        if names and not item.nodeid.endswith(suffix) and isinstance(
            getattr(item, "_id", None), NodeId
        ):
            item._id = NodeId.parse(item.nodeid + suffix)
