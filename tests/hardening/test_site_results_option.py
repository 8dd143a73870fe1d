"""The site publishes only the results store CI checks: ``mkdocs.yml`` cannot point the plugin
at another folder (docs/reliability.md, "What CI guarantees")."""

from __future__ import annotations

import logging
import shutil
from pathlib import Path

import pytest
from mkdocs.commands.build import build
from mkdocs.config import load_config
from mkdocs.exceptions import Abort, PluginError

MINISITE = Path(__file__).resolve().parents[1] / "site" / "fixtures" / "minisite"


@pytest.mark.parametrize("folder", ["elsewhere", "wiki/../other-store", ".claimcheck/results"])
def test_the_results_option_cannot_name_a_folder_ci_never_checked(
    tmp_path: Path, folder: str, caplog: pytest.LogCaptureFixture
) -> None:
    project = tmp_path / "project"
    shutil.copytree(MINISITE, project)
    (project / folder).mkdir(parents=True, exist_ok=True)
    config = load_config(str(project / "mkdocs.yml"), site_dir=str(project / "site"))
    config.plugins["claimcheck"].config.update({"results": folder})
    with caplog.at_level(logging.ERROR), pytest.raises((Abort, PluginError)) as raised:
        build(config)
    said = caplog.text + str(raised.value)
    assert "is not the results store CI checks" in said
    assert not (project / "site" / "index.html").exists()


def test_the_results_option_may_name_the_projects_own_store(tmp_path: Path) -> None:
    project = tmp_path / "project"
    shutil.copytree(MINISITE, project)
    config = load_config(str(project / "mkdocs.yml"), site_dir=str(project / "site"))
    config.plugins["claimcheck"].config.update({"results": "./.claimcheck"})
    build(config)
    assert (project / "site" / "index.html").exists()
