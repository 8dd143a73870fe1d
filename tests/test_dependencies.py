"""The tool's dependencies are what the tool imports (issue 24 §4).

``pip install claimcheck`` pulls what ``claimcheck/`` needs, nothing the capsule wiki's content
(``models/``) alone needs: that lies in the ``capsules`` extra, which this repository's README
installs.
"""

from __future__ import annotations

import ast
import re
import sys
from pathlib import Path

import tomllib

REPO = Path(__file__).resolve().parents[1]
PROJECT = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]

MODULE_OF = {"pyyaml": "yaml", "markdown-it-py": "markdown_it", "mkdocs-material": "material"}
"""Distributions whose import name differs from their name."""

NOT_IMPORTED = {
    "mkdocs-material": "the site's theme: MkDocs loads it by name from mkdocs.yml",
    "numpy": "preloaded into the check workers with torch (claimcheck/engine/executor.py)",
}
"""Dependencies the tool needs without an import statement, each with its reason."""

PROVIDED_BY = {"pydantic_core": "pydantic", "markdown": "mkdocs", "markupsafe": "jinja2"}
"""Modules the tool imports that a declared dependency itself requires, by its pinned API."""


def _name(requirement: str) -> str:
    return re.split(r"[<>=!~\[; ]", requirement, maxsplit=1)[0].lower()


def _imported_tops(folder: Path) -> set[str]:
    tops: set[str] = set()
    for path in folder.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                tops.update(alias.name.split(".")[0] for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                tops.add(node.module.split(".")[0])
    return {top for top in tops if top not in sys.stdlib_module_names}


def _modules(requirements: list[str]) -> dict[str, str]:
    return {MODULE_OF.get(_name(r), _name(r).replace("-", "_")): _name(r) for r in requirements}


def test_every_dependency_is_imported_by_the_tool() -> None:
    imported = _imported_tops(REPO / "claimcheck")
    unused = {dist for module, dist in _modules(PROJECT["dependencies"]).items()
              if module not in imported and dist not in NOT_IMPORTED}
    assert not unused, f"dependencies the tool never imports: {sorted(unused)}"


def test_everything_the_tool_imports_is_a_dependency() -> None:
    declared = set(_modules(PROJECT["dependencies"])) | set(
        _modules(PROJECT["optional-dependencies"]["ray"]))
    missing = {top for top in _imported_tops(REPO / "claimcheck") - {"claimcheck", "models"}
               if top not in declared and PROVIDED_BY.get(top) not in declared}
    assert not missing, f"the tool imports undeclared packages: {sorted(missing)}"


def test_what_only_the_content_needs_is_the_capsules_extra() -> None:
    content_only = _imported_tops(REPO / "models") - _imported_tops(REPO / "claimcheck") - {
        "models", "claimcheck", "numpy"}
    assert content_only == {"h5py"}
    assert set(_modules(PROJECT["optional-dependencies"]["capsules"])) == content_only


def test_readme_first_command_installs_the_capsules_extra() -> None:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    first = re.search(r"```bash\n(.+?)\n```", readme)
    assert first is not None
    assert "pip install -e '.[capsules]'" in first.group(1)
    assert "claimcheck verify wiki/" in first.group(1)


def test_cpu_only_torch_advice_follows_the_first_command_in_one_line() -> None:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    after = readme.split("```bash\n", 1)[1].split("\n```\n", 1)[1]
    advice = after.strip().splitlines()[0]
    assert "--index-url https://download.pytorch.org/whl/cpu" in advice
