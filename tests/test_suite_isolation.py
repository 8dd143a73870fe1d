"""The suite runs on several pytest-xdist workers: a test that writes into the repository fails
(tests/repo_guard.py), and tests that share a fixture run on one worker (tests/conftest.py)."""

from __future__ import annotations

import os
import textwrap
from collections.abc import Callable
from pathlib import Path

import pytest
import tomllib

from tests import repo_guard

pytest_plugins = ["pytester"]

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def pretend_root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The guard watches ``tmp_path/repo`` as if it were the repository, so the real writes
    below touch no file of the checkout."""
    root = (tmp_path / "repo").resolve()
    (root / ".claimcheck" / "cache").mkdir(parents=True)
    (root / "existing").write_text("x")
    repo_guard.take()
    monkeypatch.setattr(repo_guard, "ROOT", str(root))
    monkeypatch.setattr(repo_guard, "ALLOWED_FOLDERS", (str(root / ".claimcheck" / "cache"),))
    return root


def _replace_by_dir_fd(root: Path) -> None:
    folder = os.open(root, os.O_RDONLY)
    try:
        os.replace("existing", "renamed", src_dir_fd=folder, dst_dir_fd=folder)
    finally:
        os.close(folder)


WRITES: dict[str, Callable[[Path], object]] = {
    "open": lambda root: open(root / "new", "w").close(),
    "append": lambda root: open(root / "existing", "a").close(),
    "write_text": lambda root: (root / "new").write_text("x"),
    "os.open": lambda root: os.close(os.open(root / "new", os.O_WRONLY | os.O_CREAT)),
    "mkdir": lambda root: (root / "folder").mkdir(),
    "replace": lambda root: os.replace(root / "existing", root / "renamed"),
    "replace-dir_fd": _replace_by_dir_fd,
    "remove": lambda root: (root / "existing").unlink(),
    "symlink": lambda root: (root / "link").symlink_to(root / "existing"),
}


@pytest.mark.parametrize("write", sorted(WRITES))
def test_each_kind_of_write_into_the_repository_is_reported(pretend_root: Path,
                                                             write: str) -> None:
    WRITES[write](pretend_root)
    found = repo_guard.take()
    assert found and all(str(pretend_root) in line for line in found), found


def test_reads_caches_and_temporary_folders_are_not_reported(pretend_root: Path,
                                                             tmp_path: Path) -> None:
    (pretend_root / "existing").read_text()
    (pretend_root / ".claimcheck" / "cache" / "sources.json").write_text("{}")
    (pretend_root / "__pycache__").mkdir()
    (tmp_path / "elsewhere").write_text("x")
    assert repo_guard.take() == []


def test_the_real_repository_is_watched() -> None:
    assert Path(repo_guard.ROOT) == ROOT
    assert repo_guard._watching  # installed by tests/conftest.py


CONFTEST = """
    import pytest
    from tests.conftest import pytest_collection_modifyitems

    @pytest.fixture(scope="session")
    def browser():
        return object()
"""

FIRST = """
    import pytest

    @pytest.fixture(scope="module")
    def built():
        return object()

    @pytest.fixture
    def page(browser):
        return browser

    def test_uses_the_browser_through_a_fixture(page): pass
    def test_uses_the_module_fixture(built): pass
    def test_uses_both(built, browser): pass
    def test_shares_nothing(tmp_path): pass
"""

SECOND = """
    import pytest

    @pytest.fixture(scope="module")
    def other():
        return object()

    def test_uses_the_browser(browser): pass
    def test_uses_its_own_module_fixture(other): pass
"""

PACKAGE_CONFTEST = """
    import pytest

    @pytest.fixture(scope="package")
    def cluster():
        return object()
"""

PACKAGE_TESTS = """
    def test_uses_the_cluster(cluster): pass
    def test_asks_for_the_cluster_only_at_run_time(request): pass
"""


def test_tests_that_share_a_fixture_form_one_group(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(textwrap.dedent(CONFTEST))
    pytester.makepyfile(test_first=textwrap.dedent(FIRST), test_second=textwrap.dedent(SECOND))
    package = pytester.mkdir("package")
    (package / "conftest.py").write_text(textwrap.dedent(PACKAGE_CONFTEST))
    (package / "test_package.py").write_text(textwrap.dedent(PACKAGE_TESTS))
    items, _ = pytester.inline_genitems("-p", "no:xdist", "-p", "no:cacheprovider")
    groups = {item.name: (mark.args[0] if (mark := item.get_closest_marker("xdist_group"))
                          else None) for item in items}
    browser = groups["test_uses_the_browser_through_a_fixture"]
    assert browser is not None
    # the module fixture's tests join the browser's group through test_uses_both
    assert {groups["test_uses_the_browser"], groups["test_uses_the_module_fixture"],
            groups["test_uses_both"]} == {browser}
    assert groups["test_shares_nothing"] is None
    assert groups["test_uses_its_own_module_fixture"] == "test_second.py"
    cluster = groups["test_uses_the_cluster"]
    assert cluster is not None and cluster != browser
    assert groups["test_asks_for_the_cluster_only_at_run_time"] == cluster


def test_the_workers_addopts_asks_for_are_installed_by_the_dev_extra() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    addopts = project["tool"]["pytest"]["ini_options"]["addopts"].split()
    dev = project["project"]["optional-dependencies"]["dev"]
    assert "-n" in addopts
    assert any(requirement.startswith("pytest-xdist") for requirement in dev)
