"""Fixtures of the site tests."""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from store_fixture import ENVIRONMENT

os.environ.setdefault("NO_MKDOCS_2_WARNING", "1")

PINNED_ENVIRONMENT = {**ENVIRONMENT, "torch": "9.9.9"}
"""The "current" environment every in-process site build sees, so that a page never depends on
the torch or Python it is built with: the stored results' own, but for torch, so the golden
HTML always shows one "you have" note."""


@contextmanager
def _pinned_environment() -> Iterator[None]:
    """Pin :func:`claimcheck.core.provenance.environment_info`, as ``status`` reads it."""
    import claimcheck.store.status

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(claimcheck.store.status, "environment_info", lambda: dict(PINNED_ENVIRONMENT))
        yield


# The pin holds while a test of this folder sets up, runs and tears down: pytest calls these
# hooks only for the items under this conftest, so the session fixtures that build sites in
# process are pinned, and a test of another folder that runs afterwards on the same worker
# (tests/engine_core/test_rejudge.py reads the real torch version) is not. A session-scoped
# autouse fixture would stay in force for the rest of the worker's session.
@pytest.hookimpl(wrapper=True)
def pytest_runtest_setup(item: pytest.Item) -> Iterator[None]:
    with _pinned_environment():
        return (yield)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Iterator[None]:
    with _pinned_environment():
        return (yield)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_teardown(item: pytest.Item) -> Iterator[None]:
    with _pinned_environment():
        return (yield)


@pytest.fixture
def update_goldens() -> bool:
    """Set CLAIMCHECK_UPDATE_GOLDENS=1 to rewrite tests/site/golden/ after a deliberate change."""
    return os.environ.get("CLAIMCHECK_UPDATE_GOLDENS") == "1"


@pytest.fixture
def repo_root() -> Path:
    """The repository root (where mkdocs.yml lives)."""
    return Path(__file__).resolve().parents[2]


@pytest.fixture(scope="session")
def stored_minisite(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The mini-site with its fixed results store, built once for every browser test."""
    from site_html import build_site, copy_fixture
    from store_fixture import MINISITE_RESULTS, write_results

    project = copy_fixture("minisite", tmp_path_factory.mktemp("browser"))
    write_results(project, MINISITE_RESULTS)
    return build_site(project)


def _chromium(tmp_path_factory: pytest.TempPathFactory) -> Iterator[object]:
    """A headless Chromium, closed when the session ends (a skip where none is installed)."""
    from browsing import CHROMIUM
    from cdp import Browser

    if CHROMIUM is None:
        pytest.skip("headless Chromium is not installed (apt-get install chromium)")
    browser = Browser(CHROMIUM, tmp_path_factory.mktemp("chrome-profile"))
    yield browser
    browser.close()


@pytest.fixture(scope="session")
def chromium(tmp_path_factory: pytest.TempPathFactory) -> Iterator[object]:
    """One headless Chromium for the session's tests of the fixture sites (the mini-site, the
    hostile site, the frozen snapshot)."""
    yield from _chromium(tmp_path_factory)


@pytest.fixture(scope="session")
def repo_chromium(tmp_path_factory: pytest.TempPathFactory) -> Iterator[object]:
    """Another for the tests of the repository's own site: the two sets of tests then share no
    fixture, so pytest-xdist's loadgroup may run them (the suite's two largest groups) on two
    workers at once, where one Chromium would put both on one worker, one after the other."""
    yield from _chromium(tmp_path_factory)


@pytest.fixture
def browser(chromium: object) -> object:
    """The session's Chromium, with a 1280 x 900 desktop screen."""
    chromium.set_viewport(1280, 900)  # type: ignore[attr-defined]
    return chromium


@pytest.fixture
def repo_browser(repo_chromium: object) -> object:
    """The Chromium of the repository's site, with a 1280 x 900 desktop screen."""
    repo_chromium.set_viewport(1280, 900)  # type: ignore[attr-defined]
    return repo_chromium


@pytest.fixture(scope="session")
def repo_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The repository's wiki built with ``mkdocs build --strict`` in a fresh process, once."""
    import subprocess
    import sys

    root = Path(__file__).resolve().parents[2]
    site = tmp_path_factory.mktemp("repo-site") / "site"
    completed = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "-d", str(site)],
        cwd=root, env={**os.environ, "NO_MKDOCS_2_WARNING": "1"}, capture_output=True,
        text=True, timeout=600,
    )
    assert completed.returncode == 0, completed.stderr[-4000:]
    return site


@pytest.fixture(scope="session")
def repo_url(repo_site: Path) -> Iterator[str]:
    """The repository's site served over HTTP on 127.0.0.1, for the session."""
    from browsing import serving

    with serving(repo_site) as url:
        yield url


@pytest.fixture(scope="session")
def repo_pages(repo_chromium: object, repo_site: Path, repo_url: str) -> dict[str, Any]:
    """What each page of the repository's site shows, read in one pass (repo_tour.py): every
    test of test_site_reading.py and test_site_fit.py that reads it asks for this, so asking for
    one runs the whole pass (about two minutes)."""
    from repo_tour import tour

    return tour(repo_chromium, repo_site, repo_url)  # type: ignore[arg-type]
