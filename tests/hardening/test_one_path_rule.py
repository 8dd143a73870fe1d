"""One path rule for every writer (issue 33 item 4).

``schema -o`` and ``report -o`` wrote through a committed link (``docs/schema.json ->
~/.bashrc``), bypassing the no-follow rule the results store, the source cache, ``init`` and
``new`` follow. They now write through :func:`claimcheck.core.outputs.write_output`. The static
test below reads every module of ``claimcheck/`` and lists each call that creates, writes, moves
or replaces a file: each must be the rule itself or a writer listed here with the reason it
keeps to the rule, so a new writer cannot skip it unnoticed.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from claimcheck.cli.main import main
from tests.engine.conftest import write_project

TOOL = Path(__file__).resolve().parents[2] / "claimcheck"
_PATH_WRITES = {"write_text", "write_bytes", "touch", "mkdir", "symlink_to", "hardlink_to"}
"""Methods of ``pathlib.Path`` that write, whatever they are called on."""
_MODULE_WRITES = {"os": {"replace", "rename", "renames", "makedirs", "mkdir", "link", "symlink",
                         "mkfifo", "truncate"},
                  "shutil": {"move", "copy", "copy2", "copyfile", "copytree", "copyfileobj"},
                  "tempfile": {"mkstemp", "mkdtemp", "NamedTemporaryFile"}}
RULE = {"core/safe_fs.py", "core/outputs.py"}
"""The rule: every write from a root, one plain name at a time, never through a link."""
KEEPERS = {
    ("checks/train.py", "train_check"): "writes into ctx.scratch, a fresh temp folder of the "
                                         "engine, never a committed path",
    ("engine/check_run.py", "run_task"): "makes the task's scratch folder (a fresh temp folder)",
    ("engine/ray_support.py", "write_artifacts"): "recreates a task's artifacts in its fresh "
                                                  "scratch folder; names that leave it are refused",
    ("store/results.py", "_stage_artifacts"): "moves a check's files from its scratch folder into "
                                              "a staging folder made through safe_fs",
    ("authoring/project_init.py", "write_project"): "checks every folder on the way for links "
                                                    "before writing (test_scaffold_links.py)",
    ("authoring/scaffold.py", "write_new_card"): "creates the card with O_EXCL after checking "
                                                 "every folder (test_scaffold_links.py)",
    ("sources/cache.py", "_prepare"): "makes the operator's cache folder (its parent is the "
                                      "project or the user's cache folder: core/config.py)",
}


def _writers() -> set[tuple[str, str]]:
    found = set()
    for path in sorted(TOOL.rglob("*.py")):
        module = path.relative_to(TOOL).as_posix()
        if module in RULE:
            continue
        tree = ast.parse(path.read_text("utf-8"))
        for function in ast.walk(tree):
            if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            for node in ast.walk(function):
                if isinstance(node, ast.Call) and _writes(node):
                    found.add((module, function.name))
    return found


def _writes(call: ast.Call) -> bool:
    func = call.func
    name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
    owner = getattr(func.value, "id", "") if isinstance(func, ast.Attribute) else ""
    if name in _PATH_WRITES or name in _MODULE_WRITES.get(owner, ()):
        return True
    if name in {"open", "fdopen"}:
        first = 0 if isinstance(func, ast.Attribute) and owner != "os" else 1  # path.open(mode)
        modes = [arg.value for arg in call.args[first:first + 1] if isinstance(arg, ast.Constant)]
        modes += [kw.value.value for kw in call.keywords
                  if kw.arg == "mode" and isinstance(kw.value, ast.Constant)]
        flags = ast.dump(call)
        return any(isinstance(m, str) and set(m) & set("wax+") for m in modes) or (
            "O_CREAT" in flags or "O_WRONLY" in flags or "O_RDWR" in flags)
    return False


def test_every_writer_keeps_to_the_one_path_rule() -> None:
    writers = _writers()
    unlisted = sorted(writers - set(KEEPERS))
    assert unlisted == [], ("these functions write files without core/safe_fs.py or "
                            f"core/outputs.py: {unlisted}")
    assert sorted(set(KEEPERS) - writers) == []  # the list names only writers that exist
    assert all(KEEPERS.values())


@pytest.mark.parametrize("command", [["schema", "-o"], ["report", "wiki", "-o"]])
def test_an_output_path_that_is_a_committed_link_is_replaced_not_written_through(
    tmp_path: Path, command: list[str], monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    root = write_project(tmp_path / "project", {})
    (root / "wiki").mkdir(exist_ok=True)
    outside = tmp_path / "operator-file"
    outside.write_text("the operator's own file\n", encoding="utf-8")
    (root / "docs").mkdir()
    (root / "docs" / "out.md").symlink_to(outside)
    monkeypatch.chdir(root)
    assert main([*command, "docs/out.md"]) == 0, capsys.readouterr().err
    assert outside.read_text(encoding="utf-8") == "the operator's own file\n"
    assert not (root / "docs" / "out.md").is_symlink()
    assert (root / "docs" / "out.md").stat().st_size > 0


@pytest.mark.parametrize("command", [["schema", "-o"], ["report", "wiki", "-o"]])
def test_an_output_folder_that_is_a_committed_link_is_refused(
    tmp_path: Path, command: list[str], monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    root = write_project(tmp_path / "project", {})
    (root / "wiki").mkdir(exist_ok=True)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (root / "docs").symlink_to(elsewhere, target_is_directory=True)
    monkeypatch.chdir(root)
    assert main([*command, "docs/out.md"]) == 2
    assert "docs/out.md: not written" in capsys.readouterr().err
    assert list(elsewhere.iterdir()) == []
